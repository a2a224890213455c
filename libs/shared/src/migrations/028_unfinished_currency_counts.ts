import type { Knex } from 'knex';
import { CASINO_COUNTS, countTriggerFunctions, createCountsTable, CURRENCY_COUNTS, FINE_COUNTS } from './unfinished-counts';

/**
 * The unfinished list counted per day, studio, currency and category (docs/ledger.md, "Exact
 * totals"): what a studio's list of one currency or one category (cash-ins, cash-outs) reads instead
 * of 024's counts by every key, whose number grows with the stuck rows (at 30M the largest studio's
 * GBP rounds are listed under 4,668 keys, against 1,148 at 5M; its cash-ins under 15,572 against
 * 5,216). Kept by the same statement triggers as 024 and 026.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    LOCK TABLE ledger_rollup_unfinished IN SHARE ROW EXCLUSIVE MODE;
    ${countTriggerFunctions([FINE_COUNTS, CASINO_COUNTS, CURRENCY_COUNTS])}
    ${createCountsTable(CURRENCY_COUNTS, 'parent text NOT NULL, day date NOT NULL, group_id text, currency text, category text')}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${countTriggerFunctions([FINE_COUNTS, CASINO_COUNTS])}
    DROP TABLE IF EXISTS ${CURRENCY_COUNTS.table};
  `);
}
