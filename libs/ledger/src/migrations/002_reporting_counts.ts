import type { Knex } from 'knex';
import { COUNT_FUNCTIONS_SQL, COUNT_TABLES_SQL, COUNT_TRIGGERS_SQL } from '../schema/counts';

/**
 * The counts behind exact totals (schema/counts.ts) on a reporting database that the baseline did not
 * build: one adopted from the previous release's migrations (up to 033_reporting_replica), which
 * has the daily rollups instead. They are created and filled from the rows it holds, in this
 * transaction (the apply worker waits for it). The rollups stay until a later release: the previous
 * release's back office and admin service read and keep them while a deploy rolls out.
 *
 * On any database the functions are replaced by this release's (CREATE OR REPLACE), so a database
 * whose counts an earlier build created runs the current ones.
 */
export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw<{ rows: { present: boolean }[] }>(`SELECT to_regclass('ledger_counts_transactions') IS NOT NULL AS present`);
  await knex.raw(COUNT_FUNCTIONS_SQL);
  if (rows[0].present) return;
  await knex.raw(COUNT_TABLES_SQL);
  await knex.raw(COUNT_TRIGGERS_SQL);
  await knex.raw('SELECT ledger_counts_rebuild()');
}

/** Irreversible: the counts are what this release's reports read. */
export async function down(): Promise<void> {}
