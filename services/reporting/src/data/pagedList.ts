import { AppError, ledgerCount, ROLLUP_COLUMNS, type Knex, type LedgerTable } from '@relay/shared';

/**
 * The one paged-list query behind both reporting lists. Every query is scoped by group_id first
 * (each reporting index leads with it) and paged with a unique tiebreaker (the record id), so a
 * record never shows on two pages nor falls between them while the data is unchanged.
 */

export type SortOrder = 'asc' | 'desc';

export interface SortColumn {
  column: string;
  /** Nullable columns sort their empty values last in both directions. */
  nullable: boolean;
}

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
}

export interface Page<Row> {
  rows: Row[];
  total: number;
}

/** A reporting query that runs longer than this is cancelled on the server and answered 503. */
export const QUERY_TIMEOUT_MS = 15000;

export async function pagedList<Row>(read: Knex, table: LedgerTable, columns: readonly string[], groupId: string, criteria: ListCriteria): Promise<Page<Row>> {
  const scoped = () => {
    const query = read(table).where(`${table}.group_id`, groupId);
    for (const [column, value] of Object.entries(criteria.equals)) query.where(`${table}.${column}`, value);
    if (criteria.createdFrom) query.where(`${table}.created_at`, '>=', criteria.createdFrom);
    // Stored times carry microseconds while the API shows milliseconds: "to" includes its whole
    // millisecond. A half-open bound (instead of date_trunc on the column) keeps the index usable.
    if (criteria.createdTo) query.where(`${table}.created_at`, '<', new Date(criteria.createdTo.getTime() + 1));
    return query;
  };

  // Late row lookup: the page's ids come from the index alone where it covers filter and sort
  // (deep pages skip index entries, not table rows), then only the page's rows are read.
  const pageIds = scoped()
    .select(`${table}.id`)
    .orderByRaw(orderBy(table, criteria))
    .limit(criteria.limit)
    .offset((criteria.page - 1) * criteria.limit);
  const rowsQuery = read(table)
    .select(columns.map((c) => `${table}.${c}`))
    .join(pageIds.as('page'), 'page.id', `${table}.id`)
    .orderByRaw(orderBy(table, criteria));
  const countQuery = exactCount(read, table, groupId, criteria) ?? scoped().count({ total: '*' });

  // Count and page on two pooled connections at once: the answer takes the slower of the two, not the sum.
  const [rows, counted] = await Promise.all([withTimeout(rowsQuery), withTimeout(countQuery)]);
  // A raw count answers { rows }, a builder's count the rows themselves.
  const totals = Array.isArray(counted) ? counted : (counted as { rows: unknown[] }).rows;
  return { rows: rows as Row[], total: Number((totals as { total: string | number }[])[0].total) };
}

/**
 * The total from the daily rollups when every filter is one they keep (docs/ledger.md, "Exact
 * totals"): exact, in time that depends on the days asked for, not on the provider's history.
 * Archived months count nothing (their rows are gone from the list). Null: count live (a player,
 * round or transactionId filter is selective and indexed).
 */
function exactCount(read: Knex, table: LedgerTable, groupId: string, criteria: ListCriteria): Knex.Raw | null {
  if (!Object.keys(criteria.equals).every((c) => ROLLUP_COLUMNS[table].includes(c))) return null;
  return ledgerCount(read, {
    table,
    from: criteria.createdFrom,
    until: criteria.createdTo ? new Date(criteria.createdTo.getTime() + 1) : undefined,
    requirePartition: true,
    narrow: (q, alias) => {
      q.where(`${alias}.group_id`, groupId);
      for (const [column, value] of Object.entries(criteria.equals)) q.where(`${alias}.${column}`, value);
      return q;
    },
  });
}

/**
 * ORDER BY with the id tiebreaker running against the sort direction: (group_id, created_at DESC, id)
 * then serves both directions, forward for desc and backward for asc, without an extra sort.
 */
function orderBy(table: string, criteria: ListCriteria): string {
  const { column, nullable } = criteria.sort;
  const direction = criteria.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const tiebreak = criteria.sortOrder === 'asc' ? 'DESC' : 'ASC';
  return `"${table}"."${column}" ${direction}${nullable ? ' NULLS LAST' : ''}, "${table}"."id" ${tiebreak}`;
}

export async function withTimeout<T>(query: Knex.QueryBuilder | Knex.Raw, timeoutMs = QUERY_TIMEOUT_MS): Promise<T> {
  try {
    return (await query.timeout(timeoutMs, { cancel: true })) as T;
  } catch (err) {
    if ((err as { name?: string })?.name === 'KnexTimeoutError') {
      throw new AppError('SERVICE_UNAVAILABLE', 'The report took too long; narrow it with filters or a from/to range');
    }
    throw err;
  }
}
