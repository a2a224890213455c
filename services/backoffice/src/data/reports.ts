import { ledgerPlayerBits, ledgerSource, listedMoved, PLAYER_BLOCK_BITS, type Knex, type OperatorScope, type SourceDim, type SourceSpec } from '@relay/shared';
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
 * The three parts of a report as one stream of rows, each carrying the chosen dimensions and the
 * figures of one source: transactions (category, n, amount), rounds (status, n) or players with a
 * successful bet (player_casino, player_block, player_bits or player_id: libs/shared
 * ledgerPlayerBits). Two aggregates over this stream compute every figure of every group (PER_BLOCK
 * then FIGURES), so no join of per-source groupings is needed (a group is in the stream when any
 * source has it: what a full join of the three gave). `grouped` is a constant that only the totals'
 * grouping set leaves out, so GROUPING(grouped) tells a total from a group, even when currency is
 * the only dimension and both grouping sets would otherwise be the same.
 */
function reportSource(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): { source: Knex.Raw; listed: Knex.Raw } {
  const narrow = narrowing(scope, f);
  const period = { from: `${f.fromDay}T00:00:00.000Z`, until: dayAfter(f.toDay), requirePartition: false };
  const keys = dims.map((d) => SOURCE_DIM[d]);
  // The listed transactions that moved, computed once for the sums and the players (withListed).
  const listedRows = listedMoved(read, { ...period, narrow });
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
  const pl = ledgerPlayerBits(read, { ...period, dims: keys, narrow, listed });
  const named = dims.map((d) => `s.${SOURCE_DIM[d]} AS ${d}`).join(', ');
  const noPlayer = `NULL::text, NULL::integer, NULL::bit(${PLAYER_BLOCK_BITS}), NULL::text`;
  const source = read.raw(
    `SELECT ${named}, true AS grouped, s.category, NULL::text AS status, s.n, s.amount,
            NULL::text AS player_casino, NULL::integer AS player_block, NULL::bit(${PLAYER_BLOCK_BITS}) AS player_bits, NULL::text AS player_id FROM (?) s
     UNION ALL
     SELECT ${named}, true, NULL, s.status, s.n, NULL, ${noPlayer} FROM (?) s
     UNION ALL
     SELECT ${named}, true, NULL, NULL, NULL, NULL, s.player_casino, s.player_block, s.player_bits, s.player_id FROM (?) s`,
    [tx, rd, pl],
  );
  return { source, listed: listedRows };
}

/** The CTE holding a report's listed transactions to look up (libs/shared listedMoved). */
const LISTED = 'report_listed';

/**
 * A report statement over reportSource's `source` (its first binding), with the listed transactions
 * that moved as a MATERIALIZED CTE at its head: computed once, read by the sums and by the players.
 */
function withListed(read: Knex, { source, listed }: ReturnType<typeof reportSource>, statement: string, bindings: readonly Knex.RawBinding[]): Knex.Raw {
  return read.raw(`WITH ${LISTED} AS MATERIALIZED (?) ${statement}`, [listed, source, ...bindings]);
}

/** What identifies a set of players within a group: a block of a casino's dictionary, or one player unknown to it. */
const PLAYER_KEY = ['player_casino', 'player_block', 'player_id'];

/**
 * The first aggregate, per group and PLAYER_KEY (the money rows have none: one row per group): the
 * sums, and the players of the key, the bit_count of the block's union or 1 for an unknown player.
 */
const PER_BLOCK = `sum(s.n) FILTER (WHERE s.category = 'CASH_OUT') AS bets,
  sum(s.amount) FILTER (WHERE s.category = 'CASH_OUT') AS bet_sum,
  sum(s.amount) FILTER (WHERE s.category = 'CASH_IN') AS payout_sum,
  CASE WHEN s.player_block IS NOT NULL THEN bit_count(bit_or(s.player_bits)) WHEN s.player_id IS NOT NULL THEN 1 ELSE 0 END AS players,
  sum(s.n) FILTER (WHERE s.status = 'SETTLED') AS rounds_settled,
  sum(s.n) FILTER (WHERE s.status = 'OPEN') AS rounds_open`;

/** A report's figures over PER_BLOCK's rows aliased `p`: blocks and unknown players are disjoint, so their players add up. */
const FIGURES = `coalesce(sum(p.bets), 0)::int AS bets,
  coalesce(sum(p.bet_sum), 0)::text AS bet_sum,
  coalesce(sum(p.payout_sum), 0)::text AS payout_sum,
  sum(p.players)::int AS players,
  coalesce(sum(p.rounds_settled), 0)::int AS rounds_settled,
  coalesce(sum(p.rounds_open), 0)::int AS rounds_open`;

/** The dimensions of a group as answered: the sources give the day as a date, formatted here once per group. */
const answered = (dims: Dimension[]) => dims.map((d) => (d === 'day' ? `to_char(p.day, 'YYYY-MM-DD') AS day` : `p.${d}`)).join(', ');

/** The report query: one row per group of the chosen dimensions (currency always among them), ordered by them. */
export function reportQuery(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): Knex.Raw {
  const by = dims.map((d) => `p.${d}`).join(', ');
  const perBlock = [...dims, ...PLAYER_KEY].map((d) => `s.${d}`).join(', ');
  return withListed(read, reportSource(read, scope, f, dims),
    `SELECT ${answered(dims)}, ${FIGURES}
       FROM (SELECT ${dims.map((d) => `s.${d}`).join(', ')}, ${PER_BLOCK} FROM (?) s GROUP BY ${perBlock}) p
      GROUP BY ${by} ORDER BY ${by}`,
    [],
  );
}

/**
 * A page of groups, their number, and the totals per currency, from ONE statement (so one
 * snapshot, no transaction needed) that aggregates the sources once:
 *
 * - GROUPING SETS ((currency, dims..., grouped, player key), (currency, player key)) gives the
 *   PER_BLOCK rows of every group and of the totals per currency in one pass, distinct players
 *   included: they do not add up across groups, so the totals OR the same bitmaps per block rather
 *   than summing the groups. A second, plain GROUP BY adds each group's (and total's) blocks up.
 * - The number of groups and the page are window functions over those rows: count(*) OVER () and
 *   row_number() in the groups' order, filtered to the page. Sorting every group once is cheaper
 *   than the alternatives (a materialised CTE read three times, or a second statement): a report
 *   has at most a few thousand groups, against the hundreds of thousands of source rows aggregated.
 */
export async function reportRows(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[], page: { limit: number; offset: number }) {
  const list = dims.join(', ');
  const sets = ['currency', ...dims.filter((d) => d !== 'currency'), 'grouped'].map((d) => `s.${d}`).join(', ');
  const player = PLAYER_KEY.map((d) => `s.${d}`).join(', ');
  const found = await bounded<{ rows: Record<string, unknown>[] }>(withListed(read, reportSource(read, scope, f, dims),
    `SELECT w.* FROM (
       SELECT g.*, count(*) FILTER (WHERE NOT g.is_total) OVER () AS groups,
              row_number() OVER (PARTITION BY g.is_total ORDER BY ${list}) AS place
         FROM (SELECT ${answered(dims)}, p.is_total, ${FIGURES}
                 FROM (SELECT ${dims.map((d) => `s.${d}`).join(', ')}, GROUPING(s.grouped) = 1 AS is_total, ${PER_BLOCK}
                         FROM (?) s GROUP BY GROUPING SETS ((${sets}, ${player}), (s.currency, ${player}))) p
                GROUP BY ${dims.map((d) => `p.${d}`).join(', ')}, p.is_total) g) w
      WHERE w.is_total OR (w.place > ? AND w.place <= ?)
      ORDER BY w.is_total, ${list}`,
    [page.offset, page.offset + page.limit],
  ));
  const strip = ({ is_total: _t, groups: _g, place: _p, ...r }: Record<string, unknown>) => r;
  return {
    rows: found.rows.filter((r) => !r.is_total).map(strip),
    // Every row carries the count; none at all: no group.
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
