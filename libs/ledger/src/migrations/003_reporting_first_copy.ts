import type { Knex } from 'knex';

/**
 * The mark of a first copy whose counts are not made yet (libs/ledger first-copy.ts): written in the
 * transaction that creates the subscription, with the count triggers switched off, and removed in
 * the one that switches them on and rebuilds the counts. While it is there the reporting database is
 * not caught up (COUNTS_DISARMED_SQL), whatever the triggers' state: a bulk load or a repair that
 * switches them off by hand is not taken for a copy.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS ledger_counts_pending (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), since timestamptz NOT NULL DEFAULT now())`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE ledger_counts_pending');
}
