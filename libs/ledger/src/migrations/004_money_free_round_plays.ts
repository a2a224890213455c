import type { Knex } from 'knex';

/**
 * Which transactionId consumed which round of which award (issue 35, managed free rounds): written
 * in the same database transaction as that transactionId's claim (services/wallet/src/domain/
 * free-round-credit.ts). Its key is the claim's key, so a transactionId consumes at most one round,
 * ever; the credit's SUCCESS adds what it paid to the award's total_won through it, in the one
 * statement that writes the SUCCESS (services/wallet/src/data/awards.ts). Not published to the
 * reporting database (no report reads it yet).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE free_round_plays (
      provider_id    text NOT NULL,
      transaction_id text NOT NULL,
      award_id       text NOT NULL,
      round_number   integer NOT NULL CHECK (round_number > 0),
      created_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider_id, transaction_id)
    )
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS free_round_plays');
}
