import { AppError, type Knex, type OperatorScope } from '@relay/shared';
import {
  afterPosition, countedSpec, createdUntil, isPosition, keysetPage, ledgerCounts, orderBy, pageKey, type SortColumn, type SortOrder,
} from '@relay/ledger';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';
import { ledgerEquals, ROUND_COLUMNS, scopedLedger, TRANSACTION_COLUMNS, type LedgerFilter, type LedgerTable } from './ledger';
import { streamed } from './streamed';

/**
 * Search over rounds and transactions across every studio and casino in scope, walked with a
 * keyset cursor. The default sort is the creation time, newest first: (created_at DESC, id ASC),
 * the order of the indexes (created_at DESC, id), (group_id, created_at DESC, id).
 *
 * The other sorts (a transaction's completion time or amount, a round's settlement time, bet or
 * payout) have no index of their own on purpose: every index is written by each money call. Their
 * page reads the rows the filters match, which the exact totals of the same search read anyway,
 * and sorts them (a top-N sort for a page); the money tables are partitioned by created_at, so a
 * from/to range prunes them to the range's months and the created_at index range within them
 * (test/money-search-sort.test.ts checks the plans).
 *
 * The order, the keyset predicate and the key's text are the ledger's pager (@relay/ledger
 * pager.ts, shared with reporting's lists). A cursor carries the last row's position (sort key
 * as exact text, id) and the sort it was made for: a cursor replayed under another sort is a 400,
 * never a skipped row.
 */

export type { SortColumn, SortOrder };
export { orderBy };

/** The sorts each search offers, by the API's name. */
export const SORTS = {
  transactions: {
    createdAt: { column: 'created_at', nullable: false, type: 'timestamp' },
    completedAt: { column: 'completed_at', nullable: true, type: 'timestamp' },
    amount: { column: 'amount', nullable: false, type: 'numeric' },
  },
  rounds: {
    createdAt: { column: 'created_at', nullable: false, type: 'timestamp' },
    settledAt: { column: 'settled_at', nullable: true, type: 'timestamp' },
    betAmount: { column: 'bet_amount', nullable: false, type: 'numeric' },
    payoutAmount: { column: 'payout_amount', nullable: true, type: 'numeric' },
  },
} as const satisfies Record<LedgerTable, Record<string, SortColumn>>;

export type TransactionSort = keyof typeof SORTS.transactions;
export type RoundSort = keyof typeof SORTS.rounds;

export interface Sort {
  by: string;
  order: SortOrder;
}

export interface Cursor {
  /** The sort key of the last row shown, exact text; null for an empty value. */
  key: string | null;
  id: string;
  /** The sort the cursor was made for: a cursor walks one list one way only. */
  by: string;
  order: SortOrder;
}

export const SEARCH_COLUMNS: Record<LedgerTable, readonly string[]> = { transactions: TRANSACTION_COLUMNS, rounds: ROUND_COLUMNS };

/** The column of a sort name; a name the table does not offer is a 400 (the routes' enums refuse it first). */
export function sortColumn(table: LedgerTable, by: string): SortColumn {
  const sorts: Record<string, SortColumn> = SORTS[table];
  if (!Object.prototype.hasOwnProperty.call(sorts, by)) throw new AppError('Bad Request', `Validation failed: sortBy: not a sort of ${table}`);
  return sorts[by];
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.key, c.id, c.by, c.order])).toString('base64url');
}

export function decodeCursor(text: string, table: LedgerTable, sort: Sort): Cursor {
  try {
    const column = sortColumn(table, sort.by);
    const [key, id, by, order] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (isPosition(key, id, column) && by === sort.by && order === sort.order) return { key: key as string | null, id: id as string, by: sort.by, order: sort.order };
  } catch {
    // falls through to the refusal
  }
  throw new AppError('Bad Request', 'Validation failed: cursor: not a cursor this search answered with the same sortBy and sortOrder', {
    details: [{ path: 'cursor', message: 'is not a cursor of this search and sort' }],
  });
}

/** The statement of one page (limit + 1 rows: the extra one tells whether there is a next page); the tests EXPLAIN it. */
export function searchPageQuery(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter, limit: number, sort: Sort, after?: Cursor): Knex.QueryBuilder {
  const column = sortColumn(table, sort.by);
  const q = scopedLedger(read, table, scope, filter)
    .select(SEARCH_COLUMNS[table].map((c) => `${table}.${c}`))
    .select(pageKey(read, table, column));
  if (after) afterPosition(q, table, column, sort.order, after);
  return q.orderByRaw(orderBy(table, column, sort.order)).limit(limit + 1);
}

/** One page in the given sort, starting after the cursor. */
export async function searchPage(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter, limit: number, sort: Sort, after?: Cursor) {
  const rows = await bounded<Record<string, unknown>[]>(searchPageQuery(read, table, scope, filter, limit, sort, after));
  const page = keysetPage(rows, limit);
  return { rows: page.rows, next: page.next && encodeCursor({ ...page.next, by: sort.by, order: sort.order }) };
}

/**
 * Exact totals of everything the filters match (not just the page): a count, and sums per currency
 * in NUMERIC. From the reporting database's counts when every filter is a counted column
 * (@relay/ledger counts.ts, docs/ledger.md "Exact totals"): the cost is the days of the range
 * and the rows of its partial edge days, not the caller's history. Any other filter (player, round,
 * session, transactionId, reason, amount range) is selective and indexed: counted live, under the
 * back office's time limit.
 */
export async function searchTotals(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter) {
  const source = countedSource(read, table, scope, filter);
  if (!source) return liveTotals(read, table, scope, filter);
  const sums = table === 'transactions'
    ? ['s.amount::text AS amount']
    : ['s.bet_amount::text AS bet_amount', 's.payout_amount::text AS payout_amount'];
  const { rows } = await bounded<{ rows: Record<string, string>[] }>(read.raw(
    `SELECT s.currency, s.n::text AS count, ${sums.join(', ')} FROM (?) s ORDER BY s.currency`,
    [source],
  ));
  return rows;
}

/**
 * The counted aggregate of a search by currency, or null when a filter is not a counted column (an
 * amount range never is; a rounds search has no category to count by, as it has none to list by).
 */
export function countedSource(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter): Knex.Raw | null {
  if (filter.amountMin !== undefined || filter.amountMax !== undefined) return null;
  const spec = countedSpec({
    table,
    equals: ledgerEquals(table, filter),
    from: filter.from,
    until: createdUntil({ createdTo: filter.to }),
    scope: (q, alias) => scopeFilter(q, scope, { providerId: `${alias}.provider_id`, groupId: `${alias}.group_id` }),
  });
  return spec && ledgerCounts(read, { ...spec, dims: ['currency'] });
}

/** The statement of the same totals counted over the rows themselves (filters the rollups do not keep); the tests EXPLAIN it. */
export function liveTotalsQuery(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter): Knex.QueryBuilder {
  const sums = table === 'transactions'
    ? ['sum(transactions.amount)::text as amount']
    : ['sum(rounds.bet_amount)::text as bet_amount', 'coalesce(sum(rounds.payout_amount), 0)::text as payout_amount'];
  return scopedLedger(read, table, scope, filter)
    .select(`${table}.currency`)
    .select(read.raw(['count(*)::text as count', ...sums].join(', ')))
    .groupBy(`${table}.currency`)
    .orderBy(`${table}.currency`);
}

async function liveTotals(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter) {
  return bounded<Record<string, string>[]>(liveTotalsQuery(read, table, scope, filter));
}

/**
 * Every matching row in the given sort (the export's default: oldest first), through a server-side
 * cursor: constant memory here whatever the length (a sort other than the creation time is done
 * by PostgreSQL, spilling to disk beyond work_mem, before the first row arrives).
 */
export function searchStream(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter, sort: Sort = { by: 'createdAt', order: 'asc' }): AsyncIterable<Record<string, unknown>> {
  const column = sortColumn(table, sort.by);
  return streamed(scopedLedger(read, table, scope, filter)
    .select(SEARCH_COLUMNS[table].map((c) => `${table}.${c}`))
    .orderByRaw(orderBy(table, column, sort.order)));
}
