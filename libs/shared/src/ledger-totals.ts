import type { Knex } from 'knex';
import { COARSE_ROLLUPS } from './migrations/030_report_rollups';
import { PLAYER_BITMAPS, type PlayerBitmapTable } from './migrations/player-bitmap-tables';

export { SPAN_EPOCH, SPAN_LENGTHS } from './migrations/031_player_bit_spans';
export { PLAYER_BITMAPS, type PlayerBitmapTable } from './migrations/player-bitmap-tables';
import { CASINO_COUNTS, CASINO_CURRENCY_COUNTS, CURRENCY_COUNTS, FINE_COUNTS } from './migrations/unfinished-counts';

/**
 * Exact aggregates of the money history from the daily rollups (migration 009, docs/ledger.md
 * "Exact totals"). Every row matching a filter is counted exactly once, from one of three parts
 * read in one statement (one snapshot):
 *
 * 1. the rollup of each day of the range that is counted and usable (not marked stale by a
 *    takeover; for lists, in a month that still has its partition): rows final when counted. A
 *    closed day is counted whole; the day not closed yet (today) for [day, counted_until), usable
 *    when the range covers that span (migration 019);
 * 2. the rows of those days that were unfinished when counted (PENDING, OPEN), listed by key: as
 *    many as the list's counts say while the filter names no status; otherwise those counts
 *    corrected by the listed rows that finished since, which are fresh or late (migration 025,
 *    movedRows), or, for the sums of rows still unfinished, every listed row read live;
 * 3. every other instant of the range (today from its counted_until, the edge days of a from/to,
 *    stale or uncounted days), counted live through the indexes, one created_at range at a time.
 *
 * The cost depends on the days of the range and on the rows of its live parts, not on the size of
 * the ledger. Only filters on columns the rollups keep can be served so (see ROLLUP_COLUMNS); a
 * caller with any other filter (player, round, transactionId, amount...) counts live: those
 * filters are selective and indexed.
 */

export type LedgerTable = 'transactions' | 'rounds';

/** The columns a filter or a grouping may name for the rollups to serve it. */
export const ROLLUP_COLUMNS: Record<LedgerTable, readonly string[]> = {
  transactions: ['group_id', 'provider_id', 'game_id', 'currency', 'category', 'status'],
  rounds: ['group_id', 'provider_id', 'game_id', 'currency', 'status'],
};

/**
 * The status of a row the rollups do not hold (it is not final yet). A filter on it matches only
 * such rows, which are few by nature (the reconciliation queue's own) and indexed by status: a
 * caller counts them live instead of through the rollups, which would look each one up.
 */
export const UNFINISHED_STATUS: Record<LedgerTable, string> = { transactions: 'PENDING', rounds: 'OPEN' };

/**
 * A grouping column of a source: a rollup column, or the UTC day as a `date` (the caller formats
 * it, once per group: formatting every source row, and grouping by text, cost a report about a
 * fifth of its CPU).
 */
export type SourceDim = 'day' | 'group_id' | 'provider_id' | 'game_id' | 'currency' | 'category' | 'status';

export interface SourceSpec {
  table: LedgerTable;
  /** Inclusive lower bound on created_at; none: unbounded. */
  from?: Date | string;
  /** Exclusive upper bound on created_at; none: unbounded. */
  until?: Date | string;
  /**
   * Narrows a query over `alias` (the table, its rollup or its player rollup: same column names)
   * to the caller's scope and filters. It may only name ROLLUP_COLUMNS (players: not status nor category).
   */
  narrow: (query: Knex.QueryBuilder, alias: string) => Knex.QueryBuilder;
  /** Output grouping, in order. */
  dims: readonly SourceDim[];
  /** Lists: an archived month (no partition) counts nothing. Reports: its rollups stay. */
  requirePartition: boolean;
  /**
   * The name of a CTE of the caller's statement holding listedMoved() of this period and filter:
   * the transactions' sources of a finished status read the listed rows that moved from it instead
   * of computing them each (see listedMoved).
   */
  listed?: string;
}

const ROLLUP_TABLE: Record<LedgerTable, string> = { transactions: 'ledger_rollup_transactions', rounds: 'ledger_rollup_rounds' };

/** A coarser table a total may read, and the columns it keeps: its key, less the day and the list's parent. */
interface Coarse {
  table: string;
  columns?: ReadonlySet<string>;
}
const coarse = ({ table, key }: { table: string; key: string }): Coarse => ({
  table, columns: new Set(key.split(', ').filter((c) => c !== 'day' && c !== 'parent')),
});

/**
 * The first of `choices` that keeps every column the filter or the grouping names (the day is in every
 * one; `besides`: columns the caller supplies itself), or undefined.
 */
function coarsestFor(choices: readonly Coarse[], named: Narrowed, dims: readonly SourceDim[], besides: readonly string[] = []): Coarse | undefined {
  const asked = [...named.columns, ...dims].filter((c) => c !== 'day' && !besides.includes(c));
  return choices.find((choice) => asked.every((c) => choice.columns?.has(c)));
}

/**
 * The rollups a total reads: the first coarse sums that keep every column the filter and the grouping
 * name (029: per studio and status, a row per day, not one per day and casino, game and currency;
 * 030: per studio and currency, per casino and currency, what reports group by), else the rollups by
 * every key.
 */
function rollupTable(table: LedgerTable, named: Narrowed, dims: readonly SourceDim[]): string {
  return coarsestFor(COARSE_ROLLUPS[table].map(coarse), named, dims)?.table ?? ROLLUP_TABLE[table];
}

/** The sums of each part, under the same names: n (rows), amount | bet_amount, payout_amount. */
const SUMS: Record<LedgerTable, { rollup: (a: string) => string; rows: (a: string) => string }> = {
  transactions: {
    rollup: (a) => `sum(${a}.n) AS n, sum(${a}.amount) AS amount`,
    rows: (a) => `count(*) AS n, sum(${a}.amount) AS amount`,
  },
  rounds: {
    rollup: (a) => `sum(${a}.n) AS n, sum(${a}.bet_amount) AS bet_amount, sum(${a}.payout_amount) AS payout_amount`,
    rows: (a) => `count(*) AS n, sum(${a}.bet_amount) AS bet_amount, coalesce(sum(${a}.payout_amount), 0) AS payout_amount`,
  },
};

const dimOfRollup = (d: SourceDim, a: string) => `${a}.${d}`;
const dimOfRow = (d: SourceDim, a: string) => (d === 'day' ? `(${a}.created_at AT TIME ZONE 'UTC')::date AS day` : `${a}.${d}`);

function selectDims(read: Knex, q: Knex.QueryBuilder, dims: readonly SourceDim[], of: (d: SourceDim) => string, sums: string): Knex.QueryBuilder {
  const list = [...dims.map(of), sums].join(', ');
  q.select(read.raw(list));
  if (dims.length) q.groupByRaw(dims.map((_, i) => String(i + 1)).join(', '));
  return q;
}

function bound(v: Date | string | undefined): string | null {
  if (v === undefined) return null;
  return v instanceof Date ? v.toISOString() : v;
}

function usableDays(read: Knex, spec: SourceSpec): Knex.Raw {
  return read.raw('SELECT day FROM ledger_rollup_days_usable(?, ?::timestamptz, ?::timestamptz, ?)', [
    spec.table, bound(spec.from), bound(spec.until), spec.requirePartition,
  ]);
}

/**
 * `alias.day IN (days)`, with the period's days also as a range, which the planner reads from an
 * index leading with the day (it cannot tell what the IN list spans): without it a month's report
 * read the whole unfinished list and every rollup row to keep the month's (at 30M, 225,000 and
 * 131,000 rows for 49,000 and 43,000).
 */
function inDays(read: Knex, spec: Pick<SourceSpec, 'from' | 'until'>, alias: string, days: Knex.Raw): Knex.Raw {
  // Unbounded, the range says nothing, and made the planner read every day's rollup rows through the
  // index one day at a time rather than in one scan.
  if (spec.from === undefined && spec.until === undefined) return read.raw(`${alias}.day IN (?)`, [days]);
  return read.raw(
    `${alias}.day IN (?) AND ${alias}.day >= coalesce((?::timestamptz AT TIME ZONE 'UTC')::date, '-infinity') AND ${alias}.day <= coalesce((?::timestamptz AT TIME ZONE 'UTC')::date, 'infinity')`,
    [days, bound(spec.from), bound(spec.until)],
  );
}

/** The columns the unfinished list keeps with each key (013): every filter column but the status. */
const UNFINISHED_KEPT: Record<LedgerTable, readonly string[]> = {
  transactions: ['group_id', 'provider_id', 'game_id', 'currency', 'category'],
  rounds: ['group_id', 'provider_id', 'game_id', 'currency'],
};

/** The live columns of each table that a part reads (status and sums change as a row finishes). */
const LIVE_COLUMNS: Record<LedgerTable, readonly string[]> = {
  transactions: ['id', 'created_at', 'status', 'amount', 'player_id'],
  rounds: ['id', 'created_at', 'status', 'bet_amount', 'payout_amount'],
};

/**
 * The distinct non-NULL values of `column` in `table` (within `prefix`, an equality on the column
 * before it in the index), as a SELECT of one column `v`: a skip scan of an index leading with them,
 * one probe per value, whatever the number of rows (PostgreSQL 15 has no skip scan of its own). For
 * the studios a table or the unfinished list holds: a few, against millions of rows.
 */
export function distinctBySkipScan(read: Knex, table: string, column: string, prefix?: { column: string; value: string }): Knex.Raw {
  const within = prefix ? '?? = ? AND' : '';
  const inPrefix = prefix ? [prefix.column, prefix.value] : [];
  return read.raw(
    `WITH RECURSIVE s(v) AS (
       SELECT min(??) FROM ?? WHERE ${within} ?? IS NOT NULL
       UNION ALL
       SELECT (SELECT min(??) FROM ?? WHERE ${within} ?? > s.v) FROM s WHERE s.v IS NOT NULL)
     SELECT v FROM s WHERE v IS NOT NULL`,
    [column, table, ...inPrefix, column, column, table, ...inPrefix, column],
  );
}

/** The list's columns and the live row's, as the unfinished parts name them (list `u`, live row `l`). */
const listedColumns = (table: LedgerTable) =>
  [...UNFINISHED_KEPT[table].map((c) => `u.${c}`), ...LIVE_COLUMNS[table].map((c) => `l.${c}`)].join(', ');

/**
 * The live row of a listed key. The studio is part of the join (a row's studio is the list's: only a
 * takeover rewrites it, and its day is then stale, not usable), so the planner knows the live rows'
 * studio too.
 */
const liveRowOf = (table: LedgerTable) => `JOIN ${table} l ON l.id = u.id AND l.created_at = u.created_at AND l.group_id = u.group_id`;

/**
 * The listed rows of the usable days that are not unfinished any more (they finished after the job
 * listed them), with their live columns, as a SELECT of listedColumns. Every such row is fresh or
 * late (migration 025): a listed row the job marked not fresh was created more than
 * LATE_COMPLETION before anything that can still finish it started, so it can only finish late, and
 * 021's partial index of late rows then holds it. So they are read from two small sets, whatever the
 * number of rows still unfinished (the benchmark's 1 % of stuck rows, 75,000 open rounds of the
 * largest studio at 30M, are not read at all):
 *
 * - the fresh listed rows (025's partial index), each looked up, kept when finished now;
 * - the late rows of the range (021's index, leading with the studio: the caller's one studio, or each
 *   studio the list holds, by a skip scan), kept when the list holds them not fresh (its primary key).
 *
 * The two are disjoint (fresh, not fresh), and a row is read in one snapshot: each moved row once.
 */
function movedRows(read: Knex, spec: SourceSpec, studio: string | undefined): Knex.Raw {
  const { table } = spec;
  const days = () => inDays(read, spec, 'u', usableDays(read, spec));
  // Each moved row's live row by its key, once that row is known to be one: LATERAL with OFFSET 0 is
  // a probe per row. As a plain join the planner, which cannot tell how few they are, may hash the
  // live side, read through an index of every unfinished row of the table (the stuck ones too).
  const liveOf = (alias: string) =>
    `CROSS JOIN LATERAL (SELECT ${LIVE_COLUMNS[table].map((c) => `l.${c}`).join(', ')} FROM ${table} l
       WHERE l.id = ${alias}.id AND l.created_at = ${alias}.created_at AND l.group_id = ${alias}.group_id AND l.status <> ? OFFSET 0) l`;
  const fresh = read.raw(
    `SELECT ${listedColumns(table)} FROM ledger_rollup_unfinished u ${liveOf('u')}
      WHERE u.parent = ? AND u.fresh AND ?${studio === undefined ? '' : ' AND u.group_id = ?'}`,
    [UNFINISHED_STATUS[table], table, days(), ...(studio === undefined ? [] : [studio])],
  );
  // Through a function the planner takes at its word (027): it would estimate 021's predicate at a
  // third of the table, and size every step above for millions of rows.
  const range = [bound(spec.from), bound(spec.until)];
  const lateKeys = studio !== undefined
    ? read.raw('SELECT k.group_id, k.created_at, k.id FROM ledger_late_keys(?, ?, ?::timestamptz, ?::timestamptz) k', [table, studio, ...range])
    : read.raw('SELECT k.group_id, k.created_at, k.id FROM (?) studio CROSS JOIN LATERAL ledger_late_keys(?, studio.v, ?::timestamptz, ?::timestamptz) k',
      [distinctBySkipScan(read, 'ledger_rollup_unfinished', 'group_id', { column: 'parent', value: table }), table, ...range]);
  // From the late rows to the list by its primary key, then to the live row, each a probe: as plain
  // joins the planner read every listed row of the studio and probed the late index with each (at 5M,
  // 12,445 probes for none).
  const late = read.raw(
    `SELECT ${listedColumns(table)} FROM (?) k
       CROSS JOIN LATERAL (SELECT u.* FROM ledger_rollup_unfinished u
                            WHERE u.parent = ? AND u.day = (k.created_at AT TIME ZONE 'UTC')::date AND u.id = k.id AND u.created_at = k.created_at
                              AND NOT u.fresh OFFSET 0) u
       ${liveOf('k')}
      WHERE ?`,
    [lateKeys, table, UNFINISHED_STATUS[table], days()],
  );
  return read.raw('(?) UNION ALL (?)', [fresh, late]);
}

/**
 * The rows of the usable days that were unfinished when counted, as a table aliased `t` with the
 * ledger's column names: the filter columns come from the unfinished list, the rest from the live
 * row. A simple subquery, so PostgreSQL pulls it up and the caller's filter on studio, casino,
 * game, currency or category narrows the list (by its indexes) before any live row is looked up.
 *
 * finished: the caller keeps only rows of a finished status (SUCCESS, FAILED, SETTLED): a listed row
 * has one only if it moved (movedRows), so only those are read. A statement that reads them twice
 * (a report's sums and players) names its CTE of them in `listed` (listedMoved).
 */
function listedRows(read: Knex, spec: SourceSpec, finished: boolean, studio: string | undefined): Knex.Raw {
  const { table } = spec;
  if (!finished) {
    return read.raw(`(SELECT ${listedColumns(table)} FROM ledger_rollup_unfinished u ${liveRowOf(table)}
       WHERE u.parent = ? AND ?) AS t`, [table, inDays(read, spec, 'u', usableDays(read, spec))]);
  }
  if (spec.listed !== undefined && table === 'transactions') return read.raw('?? AS t', [spec.listed]);
  return read.raw('(?) AS t', [movedRows(read, spec, studio)]);
}

/**
 * The listed transactions of a period that moved (movedRows), with their live columns, for a statement
 * with two sources that read them, a report's sums (ledgerSource) and its players (ledgerPlayerBits):
 * the caller makes it a MATERIALIZED CTE and names it in both specs' `listed`, so it is read once.
 */
export function listedMoved(read: Knex, spec: Omit<SourceSpec, 'table' | 'dims' | 'listed'>): Knex.Raw {
  const s: SourceSpec = { ...spec, table: 'transactions', dims: [] };
  return movedRows(read, s, studioOf(narrowed(read, s)));
}

/**
 * The listed rows' number per day and key with their status now, as a table aliased `t` (day, the
 * list's kept columns, status, n), for a count that names or groups by the status: the list's counts
 * (024) as unfinished, and each row that moved (movedRows) once under its status now and once less
 * as unfinished. Neither the list nor the live rows of the rows still unfinished are read. A listed
 * row whose table row has left (its month being removed; an archived month's list is emptied) counts
 * as it was listed.
 */
function listedCountsNow(read: Knex, spec: SourceSpec, studio: string | undefined, counts: Coarse): Knex.Raw {
  const { table } = spec;
  const kept = UNFINISHED_KEPT[table];
  const unfinished = UNFINISHED_STATUS[table];
  // Coarse counts do not know some columns: the caller names none of them (countsTable).
  const counted = (c: string) => (counts.columns && !counts.columns.has(c) ? `NULL::${KEPT_TYPE[c]} AS ${c}` : `c.${c}`);
  return read.raw(
    `(SELECT c.day, ${kept.map(counted).join(', ')}, ?::text AS status, c.n
        FROM ${counts.table} c WHERE c.parent = ? AND ?
      UNION ALL
      SELECT (m.created_at AT TIME ZONE 'UTC')::date, ${kept.map((c) => `m.${c}`).join(', ')}, v.status, v.n
        FROM (?) m CROSS JOIN LATERAL (VALUES (?::text, -1::bigint), (m.status, 1::bigint)) v(status, n)) AS t`,
    [unfinished, table, inDays(read, spec, 'c', usableDays(read, spec)), movedRows(read, spec, studio), unfinished],
  );
}

/**
 * The list's counts: by every key it keeps (024), and coarser ones, each with the list's columns it
 * keeps (026: per studio and casino; 028: per studio, currency and category; 030: per casino,
 * currency and category). The first that holds every column a total names answers it.
 */
const COARSE_COUNTS: readonly Coarse[] = [coarse(CASINO_COUNTS), coarse(CURRENCY_COUNTS), coarse(CASINO_CURRENCY_COUNTS)];
const KEPT_TYPE: Record<string, string> = { group_id: 'text', provider_id: 'text', game_id: 'integer', currency: 'text', category: 'text' };

/**
 * The smallest counts of the list that answer a total: a coarse one when neither the filter nor the
 * grouping names a column it does not keep (the day and the status aside: the day is in every one,
 * and the status is not a column of the list), else the counts by every key (024).
 */
function countsTable(named: Narrowed, dims: readonly SourceDim[]): Coarse {
  return coarsestFor(COARSE_COUNTS, named, dims, ['status']) ?? { table: FINE_COUNTS.table };
}

/** The same columns as SUMS' rows, for a part read only for its number of rows `n` (over the list's counts of 024: sum(t.n)). */
const countColumns = (table: LedgerTable, n = 'count(*)') =>
  `${n} AS n, ${table === 'transactions' ? 'NULL::numeric AS amount' : 'NULL::numeric AS bet_amount, NULL::numeric AS payout_amount'}`;

/**
 * What the spec's filter names, from one rendering of it on an alias of the ledger's column names:
 * the columns, and the value an `alias.column = ?` asks for.
 */
interface Narrowed {
  columns: Set<string>;
  equals(column: string): unknown;
}

function narrowed(read: Knex, spec: Pick<SourceSpec, 'narrow'>): Narrowed {
  const { sql, bindings } = spec.narrow(read('ledger_rollup_unfinished as probe'), 'probe').toSQL();
  // The tables a total reads are chosen by the columns its filter names: a column named any other way
  // (raw SQL) would go unseen, and a coarse table would then answer a filter it cannot apply.
  if (/\bprobe\./.test(sql.replace(/"probe"\."[a-z_]+"/g, ''))) {
    throw new Error('ledger totals: a filter must name its columns as "alias"."column" (knex where), not in raw SQL');
  }
  return {
    columns: new Set(Array.from(sql.matchAll(/"probe"\."([a-z_]+)"/g), (m) => m[1])),
    equals: (column) => {
      const m = new RegExp(`"probe"\\."${column}" = \\?`).exec(sql);
      return m ? bindings[(sql.slice(0, m.index).match(/\?/g) ?? []).length] : undefined;
    },
  };
}

/**
 * Whether the spec's filter names a column the unfinished list does not keep, i.e. the status
 * (which the list cannot answer: it changes as a row finishes).
 */
function narrowsStatus(named: Narrowed): boolean {
  const kept = new Set<string>(UNFINISHED_KEPT.transactions);
  return [...named.columns].some((c) => !kept.has(c));
}

/** The one studio the filter asks for, if it asks for one (the late rows are then read in its range of the index alone). */
function studioOf(named: Narrowed): string | undefined {
  const studio = named.equals('group_id');
  return typeof studio === 'string' ? studio : undefined;
}

/** Whether the filter asks for one finished status (any but the unfinished one): only moved rows of the list can match. */
function asksFinished(table: LedgerTable, named: Narrowed): boolean {
  const status = named.equals('status');
  return typeof status === 'string' && status !== UNFINISHED_STATUS[table];
}

/** Each live created_at range of the spec, joined to a query over the rows in it (alias `x`). */
function overLiveRanges(read: Knex, spec: SourceSpec, perRange: Knex.QueryBuilder): Knex.Raw {
  return read.raw(
    `SELECT x.* FROM ledger_rollup_live_ranges(?, ?::timestamptz, ?::timestamptz, ?) g CROSS JOIN LATERAL (?) x`,
    [spec.table, bound(spec.from), bound(spec.until), spec.requirePartition, perRange],
  );
}

/**
 * The aggregate source: rows of (dims..., n, sums) whose sums per group are exact. A group may
 * appear once per part: the caller sums again (SELECT dims, sum(n) ... FROM (source) GROUP BY dims).
 * countOnly: the caller reads n alone (the sums may be null), which spares the live lookups of the
 * rows still unfinished: the list's counts say how many there are, corrected by the rows that moved.
 */
export function ledgerSource(read: Knex, spec: SourceSpec, countOnly = false): Knex.Raw {
  const { table, dims } = spec;
  const named = narrowed(read, spec);
  // A counted day's rollups hold its final rows only (an archived month's also hold the rows it left
  // unfinished, but a list, requirePartition, does not read those): a list's filter on the unfinished
  // status reads nothing there (without this, the whole rollup table of an unbounded range, to find no row).
  const rollupRows = spec.narrow(read(`${rollupTable(table, named, dims)} as r`), 'r').whereRaw('?', [inDays(read, spec, 'r', usableDays(read, spec))]);
  if (spec.requirePartition && named.equals('status') === UNFINISHED_STATUS[table]) rollupRows.whereRaw('false');
  const rollup = selectDims(read, rollupRows, dims, (d) => dimOfRollup(d, 'r'), SUMS[table].rollup('r'));
  const statusNamed = narrowsStatus(named);
  const studio = studioOf(named);
  const unfinished = countOnly && !dims.includes('status') && !statusNamed
    // Only the number of rows, and no status asked: the list's counts by day and key (024, or per
    // casino: 026, or per currency and category: 028) answer, no listed row nor live row is read (the row exists: its month has a partition, and only a
    // takeover, which marks the day stale, rewrites the columns the list keeps).
    ? selectDims(read, spec.narrow(read(`${countsTable(named, dims).table} as t`).where('t.parent', table).whereRaw('?', [inDays(read, spec, 't', usableDays(read, spec))]), 't'), dims,
      (d) => dimOfRollup(d, 't'), countColumns(table, 'sum(t.n)'))
    : countOnly
      // Only the number of rows, by or of a status: the list's counts corrected by the rows that moved.
      ? selectDims(read, spec.narrow(read(listedCountsNow(read, spec, studio, countsTable(named, dims))), 't'), dims, (d) => dimOfRollup(d, 't'), countColumns(table, 'sum(t.n)'))
      // Sums: of a finished status, only the rows that moved; otherwise every listed row, looked up.
      : selectDims(read, spec.narrow(read(listedRows(read, spec, statusNamed && asksFinished(table, named), studio)), 't'), dims, (d) => dimOfRow(d, 't'), SUMS[table].rows('t'));
  const live = selectDims(read, spec.narrow(read(`${table} as t`), 't').whereRaw('t.created_at >= g.range_lo AND t.created_at < g.range_hi'), dims,
    (d) => dimOfRow(d, 't'), SUMS[table].rows('t'));
  return read.raw('(?) UNION ALL (?) UNION ALL (?)', [rollup, unfinished, overLiveRanges(read, spec, live)]);
}

/** Bits per block of a casino's player dictionary in the player bitmaps (migration 020). */
export const PLAYER_BLOCK_BITS = 4096;

/**
 * The distinct players with a successful bet, per group of dims (no status nor category among
 * them). A player is a casino's (the same id at two casinos is two players): each casino numbers
 * its players densely (ledger_player_ids, migration 020), and a set of players is, per block of
 * PLAYER_BLOCK_BITS numbers, a bitmap. Rows of (dims..., player_casino, player_block, player_id,
 * player_bits, player_n): for each group and block of a casino's numbers, one row or a few whose bits
 * are disjoint (their OR: the group's players of that block), and one row per group and player the
 * dictionary does not know (player_id, no block nor bits). Grouped by the day and the whole key of
 * the bitmaps, the bitmaps' own rows come already counted instead (player_n, no block nor bits: 032),
 * disjoint from the other rows of their group. A group's players are the sum of player_n, of
 * bit_count(player_bits) over its rows with bits, and 1 per row with a player_id: the caller needs no
 * OR of its own (without the day, an OR of a group's rows per block, for a coarser total, gives its
 * blocks). Exact:
 *
 * - a usable counted day with bitmaps gives its bitmap rows (without the game when neither dims
 *   nor the filter name it: a quarter of the rows), a usable counted day without (counted before
 *   020 and not backfilled yet) its ledger_rollup_players rows, and the unfinished rows and live
 *   ranges their players: the same three parts as ledgerSource;
 * - a player of the last two that the dictionary knows becomes its bit in its block, so the OR
 *   counts it once however many parts hold it; one it does not know (new since the job last ran,
 *   or numbered by a job commit this statement's snapshot does not see) is in no bitmap this
 *   snapshot sees (a bitmap is committed with its players' numbers), so it is counted by its
 *   (casino, id), once per group.
 */
export function ledgerPlayerBits(read: Knex, spec: Omit<SourceSpec, 'table'>): Knex.Raw {
  const s: SourceSpec = { ...spec, table: 'transactions' };
  const usable = usableDays(read, s);
  const withBits = read.raw('SELECT u.day FROM (?) u WHERE EXISTS (SELECT 1 FROM ledger_rollup_player_bits_days b WHERE b.day = u.day)', [usable]);
  const withoutBits = read.raw('SELECT u.day FROM (?) u WHERE NOT EXISTS (SELECT 1 FROM ledger_rollup_player_bits_days b WHERE b.day = u.day)', [usable]);
  // The least detailed bitmaps that still hold the groups and the filter: by game (020), without the
  // game, or without the studio either (022: what a casino's or the platform's finance report reads).
  const named = narrowed(read, spec);
  const grouped = new Set([...spec.dims, ...named.columns]);
  const bits: PlayerBitmapTable = grouped.has('game_id') ? PLAYER_BITMAPS.byGame : grouped.has('group_id') ? PLAYER_BITMAPS.allGames : PLAYER_BITMAPS.byCasino;
  // Each part ORs its own bitmaps per group and block first: the caller then sorts a few rows per
  // group and block instead of one per day (an OR of ORs is the OR of all). Grouped by the day and
  // every other column of the bitmaps' key, a row is already its group's block: OR-ing each with
  // itself cost a month's report by day and casino most of its time (12,000 groups of 512-byte
  // states, spilled to disk).
  const blockKey = Array.from({ length: spec.dims.length + 3 }, (_, i) => String(i + 1)).join(', ');
  const oneRowPerBlock = spec.dims.includes('day') && bits.key.every((c) => spec.dims.includes(c as SourceDim));
  // The bitmap rows of the usable days that have bitmaps, their bits as `playerBits`: each row's own,
  // or their OR per group and block. Built only where read: a day-grouped total may read 032's counts instead.
  const bitmapRows = (playerBits: string) => spec.narrow(read(`${bits.table} as r`), 'r')
    .whereRaw('?', [inDays(read, spec, 'r', withBits)])
    .select(read.raw([...spec.dims.map((d) => dimOfRollup(d, 'r')), 'r.provider_id AS player_casino', 'r.block AS player_block', 'NULL::text AS player_id',
      `${playerBits} AS player_bits`].join(', ')));
  const cols = (of: (d: SourceDim) => string, a: string) => [...spec.dims.map(of), `${a}.provider_id AS player_casino`, `${a}.player_id`].join(', ');
  const bets = (q: Knex.QueryBuilder) => q.where('t.status', 'SUCCESS').where('t.category', 'CASH_OUT');
  const listed = spec.narrow(read('ledger_rollup_players as r'), 'r').whereRaw('?', [inDays(read, spec, 'r', withoutBits)]).distinct(read.raw(cols((d) => dimOfRollup(d, 'r'), 'r')));
  // Successful bets: of the listed rows, only those that moved.
  const unfinished = bets(spec.narrow(read(listedRows(read, s, true, studioOf(named))), 't')).distinct(read.raw(cols((d) => dimOfRow(d, 't'), 't')));
  const live = bets(spec.narrow(read('transactions as t'), 't'))
    .whereRaw('t.created_at >= g.range_lo AND t.created_at < g.range_hi')
    .distinct(read.raw(cols((d) => dimOfRow(d, 't'), 't')));
  const mapped = read.raw(
    // A lookup by key per player (a subplan): a join would hash the whole dictionary (every player
    // of every casino) whenever the planner overestimates the live rows, as it does.
    `SELECT ${[...spec.dims.map((d) => `m.${d}`), 'm.player_casino'].join(', ')},
            m.n / ${PLAYER_BLOCK_BITS} AS player_block,
            CASE WHEN m.n IS NULL THEN m.player_id END AS player_id,
            bit_or(set_bit(B'0'::bit(${PLAYER_BLOCK_BITS}), m.n % ${PLAYER_BLOCK_BITS}, 1)) AS player_bits
       FROM (SELECT x.*, (SELECT i.n FROM ledger_player_ids i WHERE i.provider_id = x.player_casino AND i.player_id = x.player_id) AS n
               FROM ((?) UNION ALL (?) UNION ALL (?)) x) m
      GROUP BY ${blockKey}`,
    [listed, unfinished, overLiveRanges(read, s, live)],
  );
  if (oneRowPerBlock) {
    // Each bitmap row as it is, and each block of the other parts (a few rows: today, the edges, the
    // listed rows that moved) less the bits of the bitmap row of its key, found by the table's primary
    // key when its day is one the bitmaps answer: the two are disjoint and their union is the group's
    // block. Joining the two sides instead made the planner, misled by the live parts' estimates
    // (hundreds of thousands of rows for none), sort a month's 23,400 bitmaps on disk for a merge join.
    const same = ['day', ...bits.key].map((c) => `b.${c} = m.${c}`).join(' AND ');
    const corrected = read.raw(
      `SELECT ${[...spec.dims.map((d) => `m.${d}`), 'm.player_casino', 'm.player_block', 'm.player_id'].join(', ')},
              CASE WHEN m.player_id IS NULL
                   THEN m.player_bits & ~coalesce((SELECT b.bits FROM ${bits.table} b WHERE ${same} AND b.block = m.player_block AND m.day IN (?)), B'0'::bit(${PLAYER_BLOCK_BITS})) END AS player_bits
         FROM (?) m`,
      [withBits, mapped],
    );
    // The bitmap rows' players, already counted per day and key (032) where the table has counts: a
    // narrow row per group instead of a 512-byte bitmap per block.
    const counted = bits.counts
      ? spec.narrow(read(`${bits.counts} as r`), 'r').whereRaw('?', [inDays(read, spec, 'r', withBits)])
        .select(read.raw([...spec.dims.map((d) => dimOfRollup(d, 'r')), 'r.provider_id AS player_casino', 'NULL::integer AS player_block', 'NULL::text AS player_id',
          `NULL::bit(${PLAYER_BLOCK_BITS}) AS player_bits`, 'r.n AS player_n'].join(', ')))
      : read.raw('SELECT b.*, NULL::bigint AS player_n FROM (?) b', [bitmapRows('r.bits')]);
    return read.raw('(?) UNION ALL (SELECT c.*, NULL::bigint AS player_n FROM (?) c)', [counted, corrected]);
  }
  const bitmaps = !spec.dims.includes('day') && bits.spans ? bitmapsOverSpans(read, spec, withBits, bits.table, bits.spans)
    : bitmapRows('bit_or(r.bits)').groupByRaw(blockKey);
  // The bitmaps' block and the same block of the other parts (a few rows: today, the edges, the listed
  // rows that moved) OR-ed into one row; the unknown players (no block) match no bitmap row.
  const key = [...spec.dims, 'player_casino', 'player_block'];
  return read.raw(
    `SELECT ${key.map((c) => `coalesce(b.${c}, m.${c}) AS ${c}`).join(', ')}, m.player_id,
            CASE WHEN m.player_bits IS NULL THEN b.player_bits WHEN b.player_bits IS NULL THEN m.player_bits ELSE b.player_bits | m.player_bits END AS player_bits,
            NULL::bigint AS player_n
       FROM (?) b FULL JOIN (?) m ON ${key.map((c) => `b.${c} = m.${c}`).join(' AND ')}`,
    [bitmaps, mapped],
  );
}

/**
 * The bitmap part of ledgerPlayerBits for groups without the day, OR-ed per group and block: the
 * blocks of the longest spans of days (migration 031) whose every day is among `withBits` (the
 * period's usable days with bitmaps; spans are nested or disjoint, so the longest that qualify do not
 * overlap), and those of each other day of `withBits` from `dayTable`. A span is the OR of its days'
 * bitmaps as they stand (031's triggers delete it when one changes), so this ORs the same bits as the
 * days would, a few spans instead of up to 64 days each.
 */
function bitmapsOverSpans(read: Knex, spec: Omit<SourceSpec, 'table'>, withBits: Knex.Raw, dayTable: string, spanTable: string): Knex.Raw {
  const cols = [...spec.dims.map((d) => `r.${d} AS ${d}`), 'r.provider_id AS player_casino', 'r.block AS player_block', 'r.bits'].join(', ');
  const fromSpans = spec.narrow(read(`${spanTable} as r`), 'r')
    .whereRaw('(r.first_day, r.days) IN (SELECT c.first_day, c.days FROM chosen c)').select(read.raw(cols));
  const fromDays = spec.narrow(read(`${dayTable} as r`), 'r')
    .whereRaw('?', [inDays(read, spec, 'r', read.raw('SELECT w.day FROM w WHERE NOT EXISTS (SELECT 1 FROM chosen c WHERE w.day >= c.first_day AND w.day < c.first_day + c.days)'))])
    .select(read.raw(cols));
  const out = [...spec.dims.map((d) => `r.${d}`), 'r.player_casino', 'r.player_block'].join(', ');
  return read.raw(
    `WITH w AS MATERIALIZED (?),
     qualified AS (
       SELECT s.first_day, s.days FROM ledger_rollup_player_spans s
        WHERE s.first_day >= (SELECT min(w.day) FROM w) AND s.first_day <= (SELECT max(w.day) FROM w)
          AND (SELECT count(*) FROM w WHERE w.day >= s.first_day AND w.day < s.first_day + s.days) = s.days),
     chosen AS MATERIALIZED (
       SELECT a.first_day, a.days FROM qualified a
        WHERE NOT EXISTS (SELECT 1 FROM qualified b WHERE b.days > a.days AND b.first_day <= a.first_day AND b.first_day + b.days >= a.first_day + a.days))
     SELECT ${out}, NULL::text AS player_id, bit_or(r.bits) AS player_bits FROM ((?) UNION ALL (?)) r GROUP BY ${out}`,
    [withBits, fromSpans, fromDays],
  );
}

/** The exact number of rows of a source with no grouping. */
export function ledgerCount(read: Knex, spec: Omit<SourceSpec, 'dims'>): Knex.Raw {
  return read.raw('SELECT coalesce(sum(s.n), 0)::bigint AS total FROM (?) s', [ledgerSource(read, { ...spec, dims: [] }, true)]);
}
