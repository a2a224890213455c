import { type Knex } from '@relay/shared';
import {
  afterPosition, boundedRead, countedSpec, createdUntil, keysetPage, ledgerCount, orderBy as keysetOrder, pageKey, type KeysetPosition, type LedgerTable, type SortColumn, type SortOrder,
} from '@relay/ledger';
import { completionOrderedIds, servedByCompletionOrder } from './completionOrder';

/**
 * The one paged-list query behind both reporting lists. Every query is scoped by group_id first
 * (each reporting index leads with it) and walked with the ledger's keyset primitives
 * (@relay/ledger pager.ts, shared with the back office's search). What is reporting's own:
 * the page/offset mode, the late row lookup, and the plan choices below (completionOrder,
 * studioLedOrder, sortsTheRange).
 */

export type { KeysetPosition, SortColumn, SortOrder };

export interface ListCriteria {
  /** Exact-match filters, column name to value. Column names come from code, never from input. */
  equals: Record<string, string | number>;
  /** Inclusive bounds on created_at, at millisecond precision (docs/api, timestamps). */
  createdFrom?: Date;
  createdTo?: Date;
  sort: SortColumn;
  sortOrder: SortOrder;
  page: number;
  limit: number;
  /**
   * Keyset paging: the page holds the rows after this position in the sort order (page is then
   * ignored). Present, even as null, to start a walk from the first row.
   */
  after?: KeysetPosition | null;
}

export interface Page<Row> {
  rows: Row[];
  /** Absent on the later pages of a keyset walk: the walk learnt it on its first page. */
  total?: number;
  /** Keyset paging only: where the next page starts, null when this page was the last. */
  next?: KeysetPosition | null;
}

/** A reporting query that runs longer than this is cancelled on the server and answered 503. */
export const QUERY_TIMEOUT_MS = 15000;

export async function pagedList<Row>(read: Knex, table: LedgerTable, columns: readonly string[], groupId: string, criteria: ListCriteria): Promise<Page<Row>> {
  // studioLed: the studio as `= ANY(ARRAY[studio])`, see studioLedOrder below.
  const filtered = (studioLed = false) => {
    const query = studioLed
      ? read(table).whereRaw(`"${table}"."group_id" = ANY(?::text[])`, [[groupId]])
      : read(table).where(`${table}.group_id`, groupId);
    for (const [column, value] of Object.entries(criteria.equals)) query.where(`${table}.${column}`, value);
    return query;
  };
  const until = createdUntil(criteria);
  const scoped = (studioLed = false) => {
    const query = filtered(studioLed);
    if (criteria.createdFrom) query.where(`${table}.created_at`, '>=', criteria.createdFrom);
    if (until) query.where(`${table}.created_at`, '<', until);
    return query;
  };

  const keyset = criteria.after !== undefined;
  // One row beyond a keyset page tells whether there is a next page, without a second query.
  const window = keyset ? { take: criteria.limit + 1, skip: 0 } : { take: criteria.limit, skip: (criteria.page - 1) * criteria.limit };
  const after = (query: Knex.QueryBuilder, sort: SortColumn) => {
    if (criteria.after) afterPosition(query, table, sort, criteria.sortOrder, criteria.after);
  };
  // Late row lookup: the page's ids come from the index alone where it covers filter and sort
  // (deep pages skip index entries, not table rows), then only the page's rows are read.
  const pageIds = servedByCompletionOrder(table, criteria)
    ? completionOrderedIds(read, table, groupId, { filtered, scoped }, criteria, window, after)
    : (studioLedOrder(criteria)
      ? scoped(true).orderByRaw(`"${table}"."group_id", ${orderBy(table, criteria)}`)
      : scoped().orderByRaw(orderBy(table, criteria, sortsTheRange(criteria))))
      .select(`${table}.id`).modify((q) => after(q, criteria.sort)).limit(window.take).offset(window.skip);
  const rowsQuery = read(table)
    .select(columns.map((c) => `${table}.${c}`))
    .join(pageIds.as('page'), 'page.id', `${table}.id`)
    .orderByRaw(orderBy(table, criteria));
  if (keyset) rowsQuery.select(pageKey(read, table, criteria.sort));
  // A walk's later pages skip the count: it does not change what the walk reads, and it would
  // make every page cost as much as counting the whole filter.
  const counting = !keyset || criteria.after === null;
  const countedBy = countedSpec({
    table, equals: criteria.equals, from: criteria.createdFrom, until, scope: (q, alias) => q.where(`${alias}.group_id`, groupId),
  });
  const countQuery = countedBy ? ledgerCount(read, countedBy) : scoped().count({ total: '*' });

  // Count and page on two pooled connections at once: the answer takes the slower of the two, not the sum.
  const [rows, counted] = await Promise.all([withTimeout<Row[]>(rowsQuery), counting ? withTimeout(countQuery) : Promise.resolve(null)]);
  // A raw count (from the counts) answers { rows }, a builder's count the rows themselves.
  const totals = counted === null ? null : Array.isArray(counted) ? counted : (counted as { rows: unknown[] }).rows;
  const total = totals ? Number((totals as { total: string | number }[])[0].total) : undefined;
  if (!keyset) return { rows, total };
  return { ...keysetPage(rows, criteria.limit), total };
}

/** The list's order (@relay/ledger pager.ts); sortRange: see sortsTheRange. */
function orderBy(table: string, criteria: ListCriteria, sortRange = false): string {
  return keysetOrder(table, criteria.sort, criteria.sortOrder, sortRange);
}

/** Filters that most of a studio's rows pass, and that no index leads with (see studioLedOrder). */
const BROAD_EQUALS = ['category', 'currency', 'game_id'];

/**
 * Whether the page's ids are read with the studio leading their order. A list by createdAt under broad
 * filters only (a category, a currency, a game): with `group_id = ?` the planner takes the studio for a
 * constant and drops it from the order, so the studio-less (created_at DESC, id) index gives the list's
 * order too, and for a filter it expects half the studio's rows to pass it took that index and read the
 * platform's newest rows to find the studio's: at 30M, after another provider's calls, 29,000 entries
 * for a page of cash-ins (14 ms), and in general as many as the platform wrote since the studio last
 * played. As `group_id = ANY(ARRAY[studio])` the condition and its estimate are the same, but not a
 * constant: ordered by the studio first, the page can only come in order from (group_id, created_at
 * DESC, id). Other filters keep the equality: a casino's, a status's or a player's lists have indexes of
 * their own (016's lead with the casino, 017's failed index with created_at) that the studio-led order
 * would make them sort.
 */
function studioLedOrder(criteria: ListCriteria): boolean {
  const columns = Object.keys(criteria.equals);
  return criteria.sort.column === 'created_at' && columns.length > 0 && columns.every((c) => BROAD_EQUALS.includes(c));
}

/**
 * settledAt and completedAt follow createdAt closely (a round settles seconds after it opens). Within
 * a from/to range, reading their own index from the newest entry would step over every row of the
 * partition settled after the range before reaching it (at 5M transactions, 127k index entries for
 * a day ten days back: 160 ms, six times that at 30M), while the range's rows come straight from the
 * createdAt index. Most such lists are served by completionOrder (the key index bounded to the range,
 * plus the late and unfinished rows); the others, under a selective filter, read the range and sort
 * it; the planner, which assumes the columns independent, is not offered their index for the order.
 */
function sortsTheRange(criteria: ListCriteria): boolean {
  const ranged = criteria.createdFrom !== undefined || criteria.createdTo !== undefined;
  return ranged && criteria.sort.type === 'timestamp' && criteria.sort.column !== 'created_at';
}

export function withTimeout<T>(query: Knex.QueryBuilder | Knex.Raw, timeoutMs = QUERY_TIMEOUT_MS): Promise<T> {
  return boundedRead<T>(query, timeoutMs, 'The report took too long; narrow it with filters or a from/to range');
}
