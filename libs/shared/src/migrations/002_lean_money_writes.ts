import type { Knex } from 'knex';

/**
 * Every index on the money tables is written on each money call (a transaction's outcome update
 * changes its status, which is indexed, so the update writes every index again). Two of them did
 * no work for any reader:
 * - transactions (provider_id, round_id): every query by round also names the game provider,
 *   and (group_id, round_id) serves it;
 * - transaction_attempts.id: nothing reads attempts by it; (transaction_pk, attempt), already
 *   unique, becomes the primary key, and each attempt no longer draws from a sequence.
 * The new primary key index is built while the migration holds the locks of both tables (the DROP
 * INDEX lock on transactions lasts until commit): on large tables, run it in a quiet hour.
 */
export async function up(knex: Knex): Promise<void> {
  // Waiting behind a long report for these locks would queue every money call behind us: give up
  // after 5 s instead (the migration transaction rolls back and the Job retries).
  await knex.raw(`
    SET LOCAL lock_timeout = '5s';
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
