import type { Knex } from 'knex';
import { AppError } from '@relay/shared';
import { COUNTED_COLUMNS, type CountSpec, type LedgerTable } from './counts';

/**
 * Keyset paging over the ledger tables, as reporting's lists and the back office's search both walk
 * them: a sort column, the id as unique tiebreaker, and a position (the last row's sort key as exact
 * text, and its id) from which the next page starts. A record never shows on two pages nor falls
 * between them while the data is unchanged. Each caller keeps its own cursor format and scope; the
 * order, the "after" predicate and the key's text are written here once, since a page and the cursor
 * of another disagreeing by one comparison would skip or repeat rows.
 */

export type SortOrder = 'asc' | 'desc';

export interface SortColumn {
  column: string;
  /** Nullable columns sort their empty values last in both directions. */
  nullable: boolean;
  /** How a cursor carries the column's value as text, exactly (microseconds, every decimal). */
  type: 'timestamp' | 'numeric';
}

/** Where a keyset walk stands: the sort key of the last row shown (null for an empty value) and its id. */
export interface KeysetPosition {
  key: string | null;
  id: string;
}

/** The column alias under which a keyset page's rows carry their sort key as text. */
const PAGE_KEY = 'page_key';

/**
 * The sort key as exact text for a cursor: timestamps in UTC at microsecond precision (rows of
 * the same millisecond are neither skipped nor repeated), numerics with every decimal. Column
 * names come from code, never from input.
 */
export function keyText(table: string, sort: SortColumn): string {
  const column = `"${table}"."${sort.column}"`;
  return sort.type === 'timestamp' ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : `${column}::text`;
}

/** The select of keyText under the alias keysetPage reads back. */
export function pageKey(read: Knex, table: string, sort: SortColumn): Knex.Raw {
  return read.raw(`${keyText(table, sort)} as ${PAGE_KEY}`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const NUMERIC = /^-?\d{1,20}(\.\d{1,20})?$/;

/**
 * Whether a decoded cursor's key and id are a position keyText could have written for this sort:
 * anything else is refused by the caller before it reaches a query.
 */
export function isPosition(key: unknown, id: unknown, sort: SortColumn): boolean {
  const keyValid = key === null ? sort.nullable : typeof key === 'string' && (sort.type === 'timestamp' ? isInstant(key) : NUMERIC.test(key));
  return keyValid && typeof id === 'string' && UUID.test(id);
}

/** keyText's timestamp shape, and a real instant: a forged 2024-02-30 would reach PostgreSQL and fail there (a 500). */
function isInstant(key: string): boolean {
  if (!TIMESTAMP.test(key)) return false;
  const at = new Date(`${key.slice(0, 23)}Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 23) === key.slice(0, 23);
}

/**
 * ORDER BY with the id tiebreaker running against the sort direction: (group_id, created_at DESC, id)
 * then serves both directions, forward for desc and backward for asc, without an extra sort.
 * sortRange writes the same order as an expression no index provides, for a caller that must read a
 * range and sort it rather than walk the key's own index.
 */
export function orderBy(table: string, sort: SortColumn, order: SortOrder, sortRange = false): string {
  const direction = order === 'asc' ? 'ASC' : 'DESC';
  const tiebreak = order === 'asc' ? 'DESC' : 'ASC';
  const key = sortRange ? `("${table}"."${sort.column}" + interval '0 seconds')` : `"${table}"."${sort.column}"`;
  return `${key} ${direction}${sort.nullable ? ' NULLS LAST' : ''}, "${table}"."id" ${tiebreak}`;
}

/**
 * Rows strictly after `after` in the order of orderBy(): the sort key beyond it, or the same key
 * with an id beyond it (the id runs against the sort direction), then the empty keys, which sort
 * last in both directions. The redundant bound `key <= k` (or >=) lets the index range do the
 * work; the OR only trims its edge.
 */
export function afterPosition(query: Knex.QueryBuilder, table: string, sort: SortColumn, order: SortOrder, after: KeysetPosition): void {
  const column = `${table}.${sort.column}`;
  const id = `${table}.id`;
  const [bound, beyond, idBeyond] = order === 'desc' ? (['<=', '<', '>'] as const) : (['>=', '>', '<'] as const);
  if (after.key === null) {
    query.whereNull(column).where(id, idBeyond, after.id);
    return;
  }
  const key = after.key;
  const keyed = (w: Knex.QueryBuilder) => w.where(column, bound, key).where((edge) => edge.where(column, beyond, key).orWhere(id, idBeyond, after.id));
  if (sort.nullable) query.where((w) => w.where(keyed).orWhereNull(column));
  else keyed(query);
}

/**
 * A keyset page from a read of limit + 1 rows carrying pageKey: the extra row only tells whether
 * there is a next page, without a second query. The key column is taken off the rows.
 */
export function keysetPage<Row>(rows: Row[], limit: number): { rows: Row[]; next: KeysetPosition | null } {
  const page = rows.slice(0, limit) as (Row & { [PAGE_KEY]?: string | null; id: string })[];
  const last = page[page.length - 1];
  const next = rows.length > limit && last ? { key: last[PAGE_KEY] ?? null, id: String(last.id) } : null;
  for (const row of page) delete row[PAGE_KEY];
  return { rows: page, next };
}

/**
 * The exclusive upper bound of a created_at range. Stored times carry microseconds while the APIs
 * show milliseconds: "to" includes its whole millisecond. A half-open bound (instead of date_trunc
 * on the column) keeps the index usable.
 */
export function createdUntil(criteria: { createdTo?: Date }): Date | undefined {
  return criteria.createdTo && new Date(criteria.createdTo.getTime() + 1);
}

export interface CountedList {
  table: LedgerTable;
  /** The list's equality filters, column to value. */
  equals: Record<string, string | number>;
  from?: Date;
  /** Exclusive, as createdUntil. */
  until?: Date;
  /** The caller's scope over `alias` (the table or its counts: same column names). */
  scope: (query: Knex.QueryBuilder, alias: string) => Knex.QueryBuilder;
}

/**
 * How the reporting database's counts serve a list's total, when every filter is a counted column
 * (docs/ledger.md, "Exact totals"): exact, in time that depends on the days asked for, not on the
 * caller's history. Months past retention count nothing (their rows are gone from the list). Null:
 * the caller counts live (a player, round or transactionId filter is selective and indexed).
 */
export function countedSpec(list: CountedList): Omit<CountSpec, 'dims'> | null {
  if (!Object.keys(list.equals).every((c) => COUNTED_COLUMNS[list.table].includes(c))) return null;
  return {
    table: list.table,
    from: list.from,
    until: list.until,
    retainedOnly: true,
    narrow: (q, alias) => {
      list.scope(q, alias);
      for (const [column, value] of Object.entries(list.equals)) q.where(`${alias}.${column}`, value);
      return q;
    },
  };
}

/**
 * Runs an interactive ledger read with a server-side cancel, so one broad list over a large ledger
 * cannot hold a replica connection for minutes; past the deadline the caller is told (503) to
 * narrow it, in `advice`.
 */
export async function boundedRead<T>(query: Knex.QueryBuilder | Knex.Raw, timeoutMs: number, advice: string): Promise<T> {
  try {
    return (await query.timeout(timeoutMs, { cancel: true })) as T;
  } catch (err) {
    if ((err as { name?: string })?.name === 'KnexTimeoutError') throw new AppError('SERVICE_UNAVAILABLE', advice);
    throw err;
  }
}
