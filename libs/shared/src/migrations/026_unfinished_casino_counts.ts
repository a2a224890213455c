import type { Knex } from 'knex';
import { CASINO_COUNTS, countTriggerFunctions, createCountsTable, FINE_COUNTS } from './unfinished-counts';

/**
 * The unfinished list counted per day, studio and casino alone (docs/ledger.md, "Exact totals"), next
 * to 024's counts by every key the list keeps. A total whose filter and grouping name nothing finer
 * than the studio and the casino (a studio's first page, its open rounds, its pending transactions,
 * a casino's) sums one row per day and casino instead of one per day and (casino, game, currency,
 * category): at 30M the largest studio's open rounds are listed under tens of thousands of such keys,
 * a number that grows with the stuck rows until every combination of every day has one.
 *
 * Kept by the same statement triggers as 024's counts (their functions now write both), in the
 * writer's own transaction; filled from the list under the same lock as 024.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- No job writes the list while the counts start from it.
    LOCK TABLE ledger_rollup_unfinished IN SHARE ROW EXCLUSIVE MODE;
    ${countTriggerFunctions([FINE_COUNTS, CASINO_COUNTS])}
    ${createCountsTable(CASINO_COUNTS, 'parent text NOT NULL, day date NOT NULL, group_id text, provider_id text')}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${countTriggerFunctions([FINE_COUNTS])}
    DROP TABLE IF EXISTS ${CASINO_COUNTS.table};
  `);
}
