import type { Knex } from 'knex';

/**
 * Casino wallet health (back office) reads the attempts started in the last hour and day. A BRIN
 * index on started_at finds them without a scan of the month: attempts are appended in time order,
 * and a BRIN entry per 128 pages costs a money call next to nothing (no per-row index entry).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS transaction_attempts_started ON transaction_attempts USING brin (started_at) WITH (autosummarize = on)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS transaction_attempts_started');
}
