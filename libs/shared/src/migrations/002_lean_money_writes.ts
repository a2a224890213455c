import type { Knex } from 'knex';

/**
 * Every index on the money tables is written on each money call (a transaction's outcome update
 * changes its status, which is indexed, so the update writes every index again). Two of them did
 * no work for any reader:
 * - transactions (provider_id, round_id): every query by round also names the game provider,
 *   and (group_id, round_id) serves it;
 * - transaction_attempts.id: nothing reads attempts by it; (transaction_pk, attempt), already
 *   unique, becomes the primary key, and each attempt no longer draws from a sequence.
 * The new primary key index is built under the table's lock: on a large attempts table, run this
 * migration in a maintenance window.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX transactions_provider_round;
    ALTER TABLE transaction_attempts
      DROP CONSTRAINT transaction_attempts_pkey,
      DROP COLUMN id,
      DROP CONSTRAINT transaction_attempts_transaction_pk_attempt_key,
      ADD CONSTRAINT transaction_attempts_pkey PRIMARY KEY (transaction_pk, attempt);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE transaction_attempts
      DROP CONSTRAINT transaction_attempts_pkey,
      ADD CONSTRAINT transaction_attempts_transaction_pk_attempt_key UNIQUE (transaction_pk, attempt),
      ADD COLUMN id bigserial PRIMARY KEY;
    CREATE INDEX transactions_provider_round ON transactions (provider_id, round_id);
  `);
}
