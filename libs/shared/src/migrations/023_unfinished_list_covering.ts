import type { Knex } from 'knex';

/**
 * 013's index of the unfinished list by studio, carrying every column a total reads from the list
 * (docs/ledger.md, "Exact totals"): a studio's count whose filter names no status (its first page,
 * one currency, one category) counts the listed rows of its days from the index alone, instead of
 * visiting each listed row to test its currency or category (at 30M, 75,000 listed rounds of the
 * largest studio: 22 of a 31 ms total for one currency), and the anti-join of the listed rows still
 * pending (ledger-totals, unfinishedRows) reads their keys from it too. The list is written only by
 * the rollup job; it is small (the rows unfinished when their day was counted), so is the index.
 *
 * Built CONCURRENTLY (the job keeps counting), then the old one dropped; rebuilt if an interrupted
 * run left it invalid.
 */
export const config = { transaction: false };

const NEW = 'ledger_rollup_unfinished_group_covering';
const OLD = 'ledger_rollup_unfinished_group';

export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw<{ rows: { valid: boolean }[] }>(
    `SELECT x.indisvalid AS valid FROM pg_class c JOIN pg_index x ON x.indexrelid = c.oid WHERE c.relname = ?`,
    [NEW],
  );
  if (rows[0] && !rows[0].valid) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${NEW}`);
  await knex.raw(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${NEW} ON ledger_rollup_unfinished (parent, group_id, day) INCLUDE (provider_id, game_id, currency, category, created_at, id)`,
  );
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${OLD}`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${OLD} ON ledger_rollup_unfinished (parent, group_id, day)`);
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${NEW}`);
}
