import { ledgerPlayerBits, ledgerSource, listedMoved, type Knex, type OperatorScope, type SourceDim, type SourceSpec } from '@relay/shared';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';
import { streamed } from './streamed';

/**
 * GGR reports from the daily rollups (migration 009, docs/ledger.md "Exact totals") and the live
 * ledger for what they do not hold: libs/shared ledger-totals reads, in one statement, the rollup
 * of every whole counted day of the period that no takeover marked stale, the rows of those days
 * that were unfinished when counted (PENDING, OPEN) by key, and every other day live (today, days
 * not counted yet, stale days). So a report costs the days it covers and the rows of its live
 * parts, not the ledger's size, and stays the exact SQL aggregate of the rows it summarises:
 * a late transaction or a takeover is in the next answer.
 *
 * - bets, bet sum, distinct players: successful CASH_OUTs;
 * - payout sum: successful CASH_INs (wins, losses at 0, refunds);
 * - rounds settled / open: rounds opened in the period, by their status now.
 *
 * An archived month (docs/ledger.md, "Retention") keeps its rollups, so reports still cover it
 * (the lists, whose rows are gone, do not).
 */
export const DIMENSIONS = ['day', 'casino', 'studio', 'game', 'currency'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The ledger column of each dimension (the rollups keep the same names). */
const SOURCE_DIM: Record<Dimension, SourceDim> = { day: 'day', casino: 'provider_id', studio: 'group_id', game: 'game_id', currency: 'currency' };

export interface ReportFilter {
  /** First and last UTC day, inclusive (YYYY-MM-DD). */
  fromDay: string;
  toDay: string;
  providerId?: string;
  groupId?: string;
  gameId?: number;
  currency?: string;
}

const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();

/** The caller's scope first, then the filters, on a table or rollup aliased `alias` (same column names). */
function narrowing(scope: OperatorScope, f: ReportFilter): SourceSpec['narrow'] {
  return (q, alias) => {
    scopeFilter(q, scope, { providerId: `${alias}.provider_id`, groupId: `${alias}.group_id` });
    if (f.providerId) q.where(`${alias}.provider_id`, f.providerId);
    if (f.groupId) q.where(`${alias}.group_id`, f.groupId);
    if (f.gameId !== undefined) q.where(`${alias}.game_id`, f.gameId);
    if (f.currency) q.where(`${alias}.currency`, f.currency);
    return q;
  };
}

/**
 * A report's groups and its totals per currency, each a relation of the chosen dimensions and the
 * figures (bets, bet_sum, payout_sum, players, rounds_settled, rounds_open):
 *
 * - the groups aggregate one stream of rows, each carrying the dimensions and the figures of one
 *   source: transactions (category, n, amount), rounds (status, n) or the players of a block of a
 *   casino's dictionary, already counted (libs/shared ledgerPlayerBits gives one row per group and
 *   block, OR-ed: its bit_count is the group's players of that block). A group is in the stream
 *   when any source has it. The rows are narrow: no bitmap is sorted here;
 * - the totals add the groups' sums up per currency (each source row is in exactly one group). Their
 *   players add up too when no dimension but the casino and the currency splits them (a player is a
 *   casino's); otherwise a player may be in several groups, and the totals OR the blocks: those of the
 *   groups (kept once in a CTE, a few thousand rows) when the day is not a dimension, else those of
 *   the players' source by currency alone, OR-ed over the whole period (a month by day holds 30 times
 *   the blocks a month does).
 *
 * `ctes`: what the statement computes once at its head (withParts): the listed transactions that
 * moved, read by the sums and every players' source, and the groups' blocks when the totals reuse them.
 */
function reportParts(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): { ctes: [string, Knex.Raw][]; groups: Knex.Raw; totals: Knex.Raw } {
  const narrow = narrowing(scope, f);
  const period = { from: `${f.fromDay}T00:00:00.000Z`, until: dayAfter(f.toDay), requirePartition: false };
  const keys = dims.map((d) => SOURCE_DIM[d]);
  const listed = LISTED;
  const tx = ledgerSource(read, {
    ...period,
    table: 'transactions',
    dims: [...keys, 'category'],
    narrow: (q, alias) => narrow(q, alias).where(`${alias}.status`, 'SUCCESS'),
    listed,
  });
  // Rounds give only their number per status (no sums): the count-only source reads no round row for
  // the ones still unfinished (libs/shared ledger-totals, listedCountsNow).
  const rd = ledgerSource(read, { ...period, table: 'rounds', dims: [...keys, 'status'], narrow }, true);
  const players = (of: SourceDim[]) => ledgerPlayerBits(read, { ...period, dims: of, narrow, listed });
  const ctes: [string, Knex.Raw][] = [[LISTED, listedMoved(read, { ...period, narrow })]];
  const splitting = dims.some((d) => d !== 'casino' && d !== 'currency');
  const blocksOnce = splitting && !dims.includes('day');
  if (blocksOnce) ctes.push([BLOCKS, players(keys)]);
  const named = dims.map((d) => `s.${SOURCE_DIM[d]} AS ${d}`).join(', ');
  const groups = read.raw(
    `SELECT ${dims.map((d) => `s.${d}`).join(', ')}, ${FIGURES} FROM (
       SELECT ${named}, s.category, NULL::text AS status, s.n, s.amount, NULL::bigint AS players FROM (?) s
       UNION ALL
       SELECT ${named}, NULL, s.status, s.n, NULL, NULL FROM (?) s
       UNION ALL
       SELECT ${named}, NULL, NULL, NULL, NULL, s.players
         FROM (SELECT ${keys.map((k) => `s.${k}`).join(', ')}, sum(${PLAYERS}) AS players FROM ${blocksOnce ? BLOCKS : '(?)'} s GROUP BY ${keys.map((k) => `s.${k}`).join(', ')}) s) s
     GROUP BY ${dims.map((d) => `s.${d}`).join(', ')}`,
    blocksOnce ? [tx, rd] : [tx, rd, players(keys)],
  );
  // The totals' players: the groups' (added up), or their blocks OR-ed again, or the source by currency's.
  const perBlock = (blocks: string, bindings: Knex.RawBinding[]) => read.raw(
    `SELECT b.currency, sum(CASE WHEN b.player_id IS NULL THEN bit_count(b.player_bits) ELSE 1 END)::bigint AS players
       FROM (SELECT s.currency, s.player_casino, s.player_block, s.player_id, bit_or(s.player_bits) AS player_bits
               FROM ${blocks} s GROUP BY s.currency, s.player_casino, s.player_block, s.player_id) b
      GROUP BY b.currency`, bindings);
  const totalPlayers = !splitting ? read.raw(`SELECT currency, sum(players)::bigint AS players FROM ${GROUPS} GROUP BY currency`)
    : blocksOnce ? perBlock(BLOCKS, []) : perBlock('(?)', [players(['currency'])]);
  const totals = read.raw(
    `SELECT coalesce(g.currency, p.currency) AS currency, coalesce(g.bets, 0)::bigint AS bets, coalesce(g.bet_sum, 0)::text AS bet_sum,
            coalesce(g.payout_sum, 0)::text AS payout_sum, coalesce(p.players, 0)::bigint AS players,
            coalesce(g.rounds_settled, 0)::bigint AS rounds_settled, coalesce(g.rounds_open, 0)::bigint AS rounds_open
       FROM (SELECT currency, sum(bets) AS bets, sum(bet_sum::numeric) AS bet_sum, sum(payout_sum::numeric) AS payout_sum,
                    sum(rounds_settled) AS rounds_settled, sum(rounds_open) AS rounds_open
               FROM ${GROUPS} GROUP BY currency) g
       FULL JOIN (?) p ON p.currency = g.currency`,
    [totalPlayers],
  );
  return { ctes, groups, totals };
}

/** The CTE holding a report's listed transactions to look up (libs/shared listedMoved). */
const LISTED = 'report_listed';
/** The CTE holding a report's groups. */
const GROUPS = 'report_groups';
/** The CTE holding a report's players per group and block, when its totals OR them again. */
const BLOCKS = 'report_blocks';

/** The players of a row of ledgerPlayerBits aliased `s`: counted already, its block's, or 1 for a player the dictionary does not know. */
const PLAYERS = `CASE WHEN s.player_n IS NOT NULL THEN s.player_n WHEN s.player_id IS NULL THEN bit_count(s.player_bits) ELSE 1 END`;

/** A report's figures over the stream of reportParts' groups, aliased `s`. */
const FIGURES = `coalesce(sum(s.n) FILTER (WHERE s.category = 'CASH_OUT'), 0)::bigint AS bets,
  coalesce(sum(s.amount) FILTER (WHERE s.category = 'CASH_OUT'), 0)::text AS bet_sum,
  coalesce(sum(s.amount) FILTER (WHERE s.category = 'CASH_IN'), 0)::text AS payout_sum,
  coalesce(sum(s.players), 0)::bigint AS players,
  coalesce(sum(s.n) FILTER (WHERE s.status = 'SETTLED'), 0)::bigint AS rounds_settled,
  coalesce(sum(s.n) FILTER (WHERE s.status = 'OPEN'), 0)::bigint AS rounds_open`;

/** The dimensions of a group as answered: the sources give the day as a date, formatted here once per group. */
const answered = (dims: Dimension[], alias: string) => dims.map((d) => (d === 'day' ? `to_char(${alias}.day, 'YYYY-MM-DD') AS day` : `${alias}.${d}`)).join(', ');

/**
 * A statement over a report's parts with their CTEs at its head, MATERIALIZED (each computed once),
 * and the groups' CTE when `groups` (the page and the totals both read them).
 */
function withParts(read: Knex, parts: ReturnType<typeof reportParts>, groups: boolean, statement: string, bindings: readonly Knex.RawBinding[]): Knex.Raw {
  const ctes: [string, Knex.Raw][] = groups ? [...parts.ctes, [GROUPS, parts.groups]] : parts.ctes;
  return read.raw(`WITH ${ctes.map(([name]) => `${name} AS MATERIALIZED (?)`).join(', ')} ${statement}`, [...ctes.map(([, q]) => q), ...bindings]);
}

/** The report query: one row per group of the chosen dimensions (currency always among them), ordered by them. */
export function reportQuery(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): Knex.Raw {
  const parts = reportParts(read, scope, f, dims);
  const by = dims.map((d) => `g.${d}`).join(', ');
  return withParts(read, parts, false, `SELECT ${answered(dims, 'g')}, g.bets, g.bet_sum, g.payout_sum, g.players, g.rounds_settled, g.rounds_open
    FROM (?) g ORDER BY ${by}`, [parts.groups]);
}

/**
 * A page of groups, their number, and the totals per currency, from ONE statement (so one
 * snapshot, no transaction needed): the groups once (a MATERIALIZED CTE: a report has at most a few
 * thousand), their number and the page by window functions over them, the totals from them and from
 * the players' source by currency (reportParts).
 */
export async function reportRows(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[], page: { limit: number; offset: number }) {
  const list = dims.join(', ');
  const parts = reportParts(read, scope, f, dims);
  const figures = 'bets, bet_sum, payout_sum, players, rounds_settled, rounds_open';
  const found = await bounded<{ rows: Record<string, unknown>[] }>(withParts(read, parts, true,
    `SELECT w.* FROM (
       SELECT ${answered(dims, 'g')}, ${figures}, false AS is_total, count(*) OVER () AS groups, row_number() OVER (ORDER BY ${dims.map((d) => `g.${d}`).join(', ')}) AS place
         FROM ${GROUPS} g) w
      WHERE w.place > ? AND w.place <= ?
     UNION ALL
     SELECT ${dims.map((d) => (d === 'currency' ? 't.currency' : `NULL AS ${d}`)).join(', ')}, ${figures.split(', ').map((c) => `t.${c}`).join(', ')}, true,
            (SELECT count(*) FROM ${GROUPS}), NULL FROM (?) t
     ORDER BY is_total, ${list}`,
    [page.offset, page.offset + page.limit, parts.totals],
  ));
  const strip = ({ is_total: _t, groups: _g, place: _p, ...r }: Record<string, unknown>) => r;
  return {
    rows: found.rows.filter((r) => !r.is_total).map(strip),
    // Every row carries the number of groups, totals included (a page past the end has no group); none at all: no group.
    total: Number(found.rows[0]?.groups ?? 0),
    totals: found.rows.filter((r) => r.is_total).map((r) => {
      const { currency, bets, bet_sum, payout_sum, players, rounds_settled, rounds_open } = r;
      return { currency, bets, bet_sum, payout_sum, players, rounds_settled, rounds_open };
    }),
  };
}

/** One statement (one snapshot) streamed through a server-side cursor: constant memory whatever the period. */
export function reportStream(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): AsyncIterable<Record<string, unknown>> {
  return streamed(reportQuery(read, scope, f, dims));
}
