import { type Knex } from '@relay/shared';
import { createdUntil, LATE_COMPLETION, UNFINISHED_STATUS, type LedgerTable, type SortColumn } from '@relay/ledger';
import type { ListCriteria } from './pagedList';

/**
 * A created_at range sorted by completedAt (transactions) or settledAt (rounds), in time that
 * depends on the page rather than on the range's rows (issue 17).
 *
 * Call L the margin of 021 (LATE_COMPLETION, 5 minutes) and [F, T) the range (T is `to` plus its
 * millisecond). A row is late when key - created_at > L or key < created_at (021's predicate; an
 * empty key is not late). Every row of the range is in exactly one of three parts:
 *
 * - on time (created_at <= key <= created_at + L): then F <= created_at <= key and key <= created_at
 *   + L < T + L, so the part's rows lie in [F, T + L) of 012's key index (group_id, key DESC NULLS
 *   LAST, id), read in the list's order with that bound as index condition. The scan meets the
 *   range's rows and the rows created outside it whose key is in the bound: on time, those created in
 *   [F - L, F) or [T, T + L), at most L worth at each end whatever the range's size, and a few late
 *   ones;
 * - late: read from 021's partial index of late rows (group_id, created_at DESC, id) INCLUDE (key)
 *   over the range (through ledger_late_keys, 027), and sorted: few by nature (completed after a takeover, or "before" they were
 *   created: a clock step, or a round opened already settled by a credit that succeeded first);
 * - no key (NULL, last in both directions): the unfinished rows (PENDING, OPEN), read from their
 *   status index (015's status-and-time index, 017's open rounds) over the range, sorted by id. The
 *   wallet keeps the key NULL exactly while the status is unfinished: it sets completed_at with
 *   SUCCESS or FAILED, only from PENDING, and clears it when a takeover turns FAILED back into
 *   PENDING; a round gets settled_at when it becomes SETTLED and never reopens. So the part asks
 *   for the status alone, which its index holds (no table row is read).
 *
 * The parts' conditions are complements of each other on a row's current values, and the parts are
 * read by one statement, in one snapshot: a row moved meanwhile (a takeover, a late completion) is
 * seen in the part its visible version belongs to, once. Each part yields at most offset + limit
 * rows in the list's order, so the first offset + limit rows of the list are among them; the outer
 * ORDER BY (same key, same id tiebreak) merges them and OFFSET/LIMIT cut the page. A keyset position
 * narrows each part the same way afterPosition (@relay/ledger pager.ts) narrows the list. With only `from` or
 * only `to`, the bound on the key has that end only: the same reasoning holds.
 *
 * How the on-time part asks for created_at in [F, T): the planner takes created_at and the key as
 * independent, so a plain range on both would have it expect a thirtieth of the rows, and read the
 * range through a bitmap of both indexes and sort it rather than read the key index in order. For an
 * on-time row, key >= F + L implies created_at >= F, and key < T implies created_at < T; so the part
 * asks for (key >= F + L OR created_at >= F) AND (key < T OR created_at < T), which for on-time rows
 * is the range exactly, and which the planner sees as keeping most rows. A plain bound on created_at
 * at the range's whole months keeps the partitions pruned without shrinking that estimate. It still
 * expects fewer rows than there are, so a page deep enough (thousands of rows at 8M transactions,
 * deeper as the data grows) is read as before: the range through a bitmap, sorted.
 *
 * Equality filters apply to every part. The ones that keep most rows (category, currency, game,
 * casino, the finished status) are served here: the ordered scan skips the others on its way (a
 * casino's rows are about a twentieth of a studio's). A selective filter (player, round, transactionId, FAILED) or an unfinished status would
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

/** The first instant (UTC, as the ledger's monthly partitions) of the month of `at`, `months` later. */
function monthStart(at: Date, months = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, 1));
}

/**
 * The page's ids, in the list's order, merged from the three parts. `filtered` is the list's query
 * (scope, filters) without the range, `scoped` with it; `after` narrows a part to the keyset position, with the sort
 * column given (as not nullable for the keyed parts, so that its bound stays an index condition).
 */
export function completionOrderedIds(
  read: Knex,
  table: LedgerTable,
  groupId: string,
  { filtered, scoped }: { filtered: () => Knex.QueryBuilder; scoped: () => Knex.QueryBuilder },
  criteria: ListCriteria,
  window: PageWindow,
  after: (part: Knex.QueryBuilder, sort: SortColumn) => void,
): Knex.QueryBuilder {
  const key = `${table}.${KEY[table]}`;
  const id = `${table}.id`;
  const created = `${table}.created_at`;
  const desc = criteria.sortOrder === 'desc';
  const depth = window.take + window.skip;
  const late = `(${LATE_COMPLETION.condition(KEY[table])})`;
  const from = criteria.createdFrom;
  const to = createdUntil(criteria);
  const plus = (at: Date, ms: number) => new Date(at.getTime() + ms);
  const parts: Knex.QueryBuilder[] = [];

  // A position on an empty key lies past every keyed row.
  if (criteria.after?.key !== null) {
    const keyed = { ...criteria.sort, nullable: false };
    const onTime = filtered().select(id, `${key} as sort_key`).whereRaw(`NOT ${late}`);
    if (from) {
      onTime.where(created, '>=', monthStart(from)).where(key, '>=', from);
      onTime.where((w) => w.where(key, '>=', plus(from, LATE_COMPLETION.ms)).orWhere(created, '>=', from));
    }
    if (to) {
      onTime.where(created, '<', monthStart(criteria.createdTo!, 1)).where(key, '<', plus(to, LATE_COMPLETION.ms));
      onTime.where((w) => w.where(key, '<', to).orWhere(created, '<', to));
    }
    // The key index's own order, forward for desc and backward for asc (NULLS FIRST backward: the
    // part has no empty key, so this is the list's order too).
    onTime.orderByRaw(desc ? `${key} DESC NULLS LAST, ${id} ASC` : `${key} ASC NULLS FIRST, ${id} DESC`).limit(depth);
    // The late rows of the range through ledger_late_keys (027), which the planner takes at its word:
    // it estimates the index's predicate at a third of the range, and at 30M read this part with a
    // parallel worker, whose start cost more than the whole list at 5M.
    const lateRows = scoped()
      .joinRaw(`JOIN ledger_late_keys(?, ?, ?::timestamptz, ?::timestamptz) k ON k.id = ${id} AND k.created_at = ${created}`,
        [table, groupId, from ?? null, to ?? null])
      .select(id, `${key} as sort_key`)
      .orderByRaw(desc ? `${key} DESC, ${id} ASC` : `${key} ASC, ${id} DESC`)
      .limit(depth);
    if (criteria.after) {
      after(onTime, keyed);
      after(lateRows, keyed);
    }
    parts.push(onTime, lateRows);
  }
  // A status filter is the finished one here (servedByCompletionOrder): no row without a key.
  if (criteria.equals.status === undefined) {
    // By the status alone (its key is NULL, see above): the status index then covers the part.
    const unfinished = scoped().select(id, read.raw('NULL::timestamptz AS sort_key'))
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
