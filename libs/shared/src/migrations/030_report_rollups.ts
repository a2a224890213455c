import type { Knex } from 'knex';
import { coarseRollupTable, dropCoarseRollupTable, ROLLUPS_BY_STATUS, type ByStatus } from './029_rollups_by_status';
import { CASINO_COUNTS, CASINO_CURRENCY_COUNTS, countTriggerFunctions, createCountsTable, CURRENCY_COUNTS, FINE_COUNTS } from './unfinished-counts';

/**
 * The daily rollups and the unfinished list's counts by the keys of the back office's reports
 * (docs/ledger.md, "Exact totals"). A report always groups by currency, which 029's sums per studio
 * and status do not keep, so every report read the rollups by every key: per day, a row per
 * (studio, casino, game, currency) combination with activity. A report by casino (a casino's finance
 * staff, the platform's month by day and casino) or by studio and currency now reads one row per day
 * and (casino, currency) or (studio, currency):
 *
 * - rollups per casino, day, currency (category) and status; rollups per studio, day, currency
 *   (category) and status: kept by the same statement triggers as 029's, in the writer's own
 *   transaction;
 * - the unfinished list counted per day, casino, currency and category (the rounds a report counts
 *   as open or settled, whose rows it never reads): kept by the same triggers as 024, 026 and 028.
 *
 * Their keys lead with the casino or the studio, as the scopes of the back office do.
 */
/** The sums per `lead` (the casino or the studio), day, currency (category) and status of each rollup. */
function sumsBy(lead: 'provider_id' | 'group_id', name: string): Record<'transactions' | 'rounds', ByStatus> {
  const keyed = (key: string[], sums: Record<string, string>): Pick<ByStatus, 'key' | 'sums' | 'columns'> => ({
    key: key.join(', '),
    sums: Object.keys(sums),
    columns: [...key.map((c) => `${c} ${c === 'day' ? 'date' : 'text'} NOT NULL`), ...Object.entries(sums).map(([c, type]) => `${c} ${type} NOT NULL`)].join(', '),
  });
  return {
    transactions: { source: 'ledger_rollup_transactions', table: `ledger_rollup_transactions_by_${name}`, ...keyed([lead, 'day', 'currency', 'category', 'status'], { n: 'bigint', amount: 'numeric' }) },
    rounds: { source: 'ledger_rollup_rounds', table: `ledger_rollup_rounds_by_${name}`, ...keyed([lead, 'day', 'currency', 'status'], { n: 'bigint', bet_amount: 'numeric', payout_amount: 'numeric' }) },
  };
}
export const REPORT_ROLLUPS = { byCasino: sumsBy('provider_id', 'casino'), byStudio: sumsBy('group_id', 'studio') };
const TABLES = [...Object.values(REPORT_ROLLUPS.byStudio), ...Object.values(REPORT_ROLLUPS.byCasino)];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- No job writes the rollups or the list while the new tables start from them.
    LOCK TABLE ledger_rollup_transactions, ledger_rollup_rounds, ledger_rollup_unfinished IN SHARE ROW EXCLUSIVE MODE;
    ${TABLES.map(coarseRollupTable).join('\n')}
    ${countTriggerFunctions([FINE_COUNTS, CASINO_COUNTS, CURRENCY_COUNTS, CASINO_CURRENCY_COUNTS])}
    ${createCountsTable(CASINO_CURRENCY_COUNTS, 'parent text NOT NULL, day date NOT NULL, provider_id text, currency text, category text', 'provider_id')}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${countTriggerFunctions([FINE_COUNTS, CASINO_COUNTS, CURRENCY_COUNTS])}
    DROP TABLE IF EXISTS ${CASINO_CURRENCY_COUNTS.table};
    ${TABLES.map(dropCoarseRollupTable).join('\n')}
  `);
}

/** Every coarse rollup table so far (029's and these), smallest first: what a total may read instead of the rollups by every key. */
export const COARSE_ROLLUPS: Record<'transactions' | 'rounds', readonly ByStatus[]> = {
  transactions: [ROLLUPS_BY_STATUS.transactions, REPORT_ROLLUPS.byStudio.transactions, REPORT_ROLLUPS.byCasino.transactions],
  rounds: [ROLLUPS_BY_STATUS.rounds, REPORT_ROLLUPS.byStudio.rounds, REPORT_ROLLUPS.byCasino.rounds],
};
