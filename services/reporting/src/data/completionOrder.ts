import { LATE_COMPLETION, UNFINISHED_STATUS, type Knex, type LedgerTable } from '@relay/shared';
import type { ListCriteria, SortColumn } from './pagedList';

/**
 * A created_at range sorted by completedAt (transactions) or settledAt (rounds), in time that
 * depends on the page rather than on the range's rows (issue 17).
 *
 * Call L the margin of 021 (LATE_COMPLETION, 5 minutes), [F, T) the range (T is `to` plus its
 * millisecond) and W = [F, T + L) the window. A money call completes within seconds of its claim and
 * a round settles within minutes of its bet, so nearly every row of the range has its key in W. Every
 * row of the range is in exactly one of three parts, by its key:
 *
 * - key in W: read in the list's order from 012's key index (group_id, key DESC NULLS LAST, id) with
 *   W as index condition, created_at checked on each entry. The scan meets the range's rows and the
 *   rows of W created outside the range: those created in [F - L, F) or [T, T + L) with their key on
 *   time, and a few late ones. Whatever the range's size, that is at most L worth of neighbours;
 * - key outside W: such a row is late in 021's sense. Its key is before F, so before its created_at
 *   (F <= created_at); or at or after T + L, so more than L after its created_at (created_at < T).
 *   Read from 021's partial index of late rows (group_id, created_at DESC, id) INCLUDE (key) over the
 *   range, the key checked in the index, and sorted: few by nature (completed after a takeover, or
 *   "before" they were created: a clock step, or a round opened already settled by a credit that
 *   succeeded first);
 * - no key (NULL, last in both directions): the unfinished rows (PENDING, OPEN), read from their
 *   status index (015's status-and-time index, 017's open rounds) over the range, sorted by id. The
 *   wallet keeps the key NULL exactly while the status is unfinished: it sets completed_at with
 *   SUCCESS or FAILED, only from PENDING, and clears it when a takeover turns FAILED back into
 *   PENDING; a round gets settled_at when it becomes SETTLED and never reopens. So the part asks
 *   for the status alone, which its index holds (no table row is read).
 *
 * With only `from`, W is [F, infinity); with only `to`, (-infinity, T + L): the same reasoning holds.
 * The three conditions are complements of each other on a row's current values (a row changes part
 * only when its key changes, and the second part's late predicate holds for every row outside W), and
 * the parts are read by one statement, in one snapshot: a row moved meanwhile (a takeover, a late
 * completion) is seen in the part its visible version belongs to, once. Each part yields at most
 * offset + limit rows in the list's order, so the first offset + limit rows of the list are among
 * them; the outer ORDER BY (same key, same id tiebreak) merges them and OFFSET/LIMIT cut the page.
 * A keyset position narrows each part the same way pagedList's afterPosition narrows the list.
 *
 * The first part asks for the window and the range, not for "not late": the planner takes the two
 * ranges as independent, and one more condition it cannot estimate would make it read the whole
 * range through a bitmap and sort it instead of reading the key index in order.
 *
 * Equality filters apply to every part. The ones that keep most rows (category, currency, game,
 * casino, the finished status) are served here: the ordered scan skips a few rows for each one it
 * keeps. A selective filter (player, round, transactionId, FAILED) or an unfinished status would
 * make that scan walk the whole range: the caller then reads the range by its own index and sorts it.
 */

const KEY: Record<LedgerTable, 'completed_at' | 'settled_at'> = { transactions: 'completed_at', rounds: 'settled_at' };

/** Filters under which most of a range's rows stay (a game provider has a few games, a few currencies). */
const BROAD_FILTERS = ['category', 'currency', 'game_id', 'provider_id'];
/** The finished status that most rows have: the other statuses are few and have indexes of their own. */
const BROAD_STATUS: Record<LedgerTable, string> = { transactions: 'SUCCESS', rounds: 'SETTLED' };

/** True when the list is a range sorted by completedAt or settledAt that the three parts serve. */
export function servedByCompletionOrder(table: LedgerTable, criteria: ListCriteria): boolean {
  if (criteria.sort.column !== KEY[table]) return false;
  if (criteria.createdFrom === undefined && criteria.createdTo === undefined) return false;
  return Object.entries(criteria.equals).every(([column, value]) => BROAD_FILTERS.includes(column) || (column === 'status' && value === BROAD_STATUS[table]));
}

export interface PageWindow {
  /** Rows to return after skipping `skip`: the limit, plus one for a keyset walk. */
  take: number;
  skip: number;
}

/**
 * The page's ids, in the list's order, merged from the three parts. `scoped` is the list's query
 * (scope, filters, created_at range); `after` narrows a part to the keyset position, with the sort
 * column given (as not nullable for the keyed parts, so that its bound stays an index condition).
 */
export function completionOrderedIds(
  read: Knex,
  table: LedgerTable,
  scoped: () => Knex.QueryBuilder,
  criteria: ListCriteria,
  window: PageWindow,
  after: (part: Knex.QueryBuilder, sort: SortColumn) => void,
): Knex.QueryBuilder {
  const key = `${table}.${KEY[table]}`;
  const id = `${table}.id`;
  const desc = criteria.sortOrder === 'desc';
  const depth = window.take + window.skip;
  const late = `(${LATE_COMPLETION.condition(KEY[table])})`;
  const part = () => scoped().select(id, `${key} as sort_key`).limit(depth);
  const parts: Knex.QueryBuilder[] = [];

  // A position on an empty key lies past every keyed row.
  if (criteria.after?.key !== null) {
    const keyed = { ...criteria.sort, nullable: false };
    const windowStart = criteria.createdFrom;
    const windowEnd = criteria.createdTo && new Date(criteria.createdTo.getTime() + 1 + LATE_COMPLETION.ms);
    const inWindow = part();
    if (windowStart) inWindow.where(key, '>=', windowStart);
    if (windowEnd) inWindow.where(key, '<', windowEnd);
    // The key index's own order, forward for desc and backward for asc (NULLS FIRST backward: the
    // part has no empty key, so this is the list's order too).
    inWindow.orderByRaw(desc ? `${key} DESC NULLS LAST, ${id} ASC` : `${key} ASC NULLS FIRST, ${id} DESC`);
    const outside = part()
      .whereRaw(late)
      .where((w) => {
        if (windowStart) w.orWhere(key, '<', windowStart);
        if (windowEnd) w.orWhere(key, '>=', windowEnd);
      })
      .orderByRaw(desc ? `${key} DESC, ${id} ASC` : `${key} ASC, ${id} DESC`);
    if (criteria.after) {
      after(inWindow, keyed);
      after(outside, keyed);
    }
    parts.push(inWindow, outside);
  }
  // A status filter is the finished one here (servedByCompletionOrder): no row without a key.
  if (criteria.equals.status === undefined) {
    // By the status alone (its key is NULL, see above): the status index then covers the part.
    const unfinished = scoped()
      .select(id, read.raw('NULL::timestamptz AS sort_key'))
      .where(`${table}.status`, UNFINISHED_STATUS[table])
      .orderBy(id, desc ? 'asc' : 'desc')
      .limit(depth);
    if (criteria.after?.key === null) after(unfinished, criteria.sort);
    parts.push(unfinished);
  }

  // A position on an empty key with the finished status asked for: nothing comes after it.
  if (!parts.length) return scoped().select(id).whereRaw('false');
  const merged = read.raw(`(${parts.map(() => '?').join(' UNION ALL ')}) AS parts`, parts);
  return read
    .select('parts.id')
    .from(merged)
    .orderByRaw(`parts.sort_key ${desc ? 'DESC' : 'ASC'} NULLS LAST, parts.id ${desc ? 'ASC' : 'DESC'}`)
    .limit(window.take)
    .offset(window.skip);
}
