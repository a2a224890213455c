import { type Knex, type OperatorScope } from '@relay/shared';
import { ledgerCounts, ledgerPlayers, type CountDim, type CountSpec } from '@relay/ledger';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';
import { streamed } from './streamed';

/**
 * GGR reports from the reporting database's counts (@relay/ledger counts.ts, docs/ledger.md
 * "Exact totals"): kept per day by its triggers as each replicated row arrives, so a report costs
 * the days it covers, not the ledger's size, and is the exact aggregate of the rows it summarises.
 *
 * - bets, bet sum, distinct players: successful CASH_OUTs;
 * - payout sum: successful CASH_INs (wins, losses at 0, refunds);
 * - rounds settled / open: rounds opened in the period, by their status now.
 *
 * A month past the reporting database's retention keeps its counts, so reports still cover it (the
 * lists, whose rows are gone, do not).
 */
export const DIMENSIONS = ['day', 'casino', 'studio', 'game', 'currency'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The ledger column of each dimension (the counts keep the same names). */
const COUNT_DIM: Record<Dimension, CountDim> = { day: 'day', casino: 'provider_id', studio: 'group_id', game: 'game_id', currency: 'currency' };

export interface ReportFilter {
  /** First and last UTC day, inclusive (YYYY-MM-DD). */
  fromDay: string;
  toDay: string;
  providerId?: string;
  groupId?: string;
  gameId?: number;
  currency?: string;
}

const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The caller's scope first, then the filters, on the counts aliased `alias`. */
function narrowing(scope: OperatorScope, f: ReportFilter): CountSpec['narrow'] {
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
 * A report's groups and its totals per currency:
 * - the groups aggregate one stream of rows, each carrying the dimensions and the figures of one
 *   source: the transactions' counts (category, n, amount), the rounds' (status, n) or the players';
 * - the totals add the groups' sums up per currency (each counted row is in exactly one group); their
 *   players are counted again by currency alone (a player may be in several groups).
 */
function reportParts(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): { groups: Knex.Raw; totals: Knex.Raw } {
  const narrow = narrowing(scope, f);
  const period = { from: `${f.fromDay}T00:00:00.000Z`, until: `${dayAfter(f.toDay)}T00:00:00.000Z`, retainedOnly: false };
  const days = { fromDay: f.fromDay, untilDay: dayAfter(f.toDay), narrow };
  const keys = dims.map((d) => COUNT_DIM[d]);
  const tx = ledgerCounts(read, {
    ...period,
    table: 'transactions',
    dims: [...keys, 'category'],
    narrow: (q, alias) => narrow(q, alias).where(`${alias}.status`, 'SUCCESS'),
  });
  const rd = ledgerCounts(read, { ...period, table: 'rounds', dims: [...keys, 'status'], narrow });
  const named = dims.map((d) => `s.${COUNT_DIM[d]} AS ${d}`).join(', ');
  const groups = read.raw(
    `SELECT ${dims.map((d) => `s.${d}`).join(', ')}, ${FIGURES} FROM (
       SELECT ${named}, s.category, NULL::text AS status, s.n, s.amount, NULL::bigint AS players FROM (?) s
       UNION ALL
       SELECT ${named}, NULL, s.status, s.n, NULL, NULL FROM (?) s
       UNION ALL
       SELECT ${named}, NULL, NULL, NULL, NULL, s.players FROM (?) s) s
     GROUP BY ${dims.map((d) => `s.${d}`).join(', ')}`,
    [tx, rd, ledgerPlayers(read, { ...days, dims: keys })],
  );
  const totals = read.raw(
    `SELECT coalesce(g.currency, p.currency) AS currency, coalesce(g.bets, 0)::bigint AS bets, coalesce(g.bet_sum, 0)::text AS bet_sum,
            coalesce(g.payout_sum, 0)::text AS payout_sum, coalesce(p.players, 0)::bigint AS players,
            coalesce(g.rounds_settled, 0)::bigint AS rounds_settled, coalesce(g.rounds_open, 0)::bigint AS rounds_open
       FROM (SELECT currency, sum(bets) AS bets, sum(bet_sum::numeric) AS bet_sum, sum(payout_sum::numeric) AS payout_sum,
                    sum(rounds_settled) AS rounds_settled, sum(rounds_open) AS rounds_open
               FROM ${GROUPS} GROUP BY currency) g
       FULL JOIN (?) p ON p.currency = g.currency`,
    [ledgerPlayers(read, { ...days, dims: ['currency'] })],
  );
  return { groups, totals };
}

/** The CTE holding a report's groups. */
const GROUPS = 'report_groups';

/** A report's figures over the stream of reportParts' groups, aliased `s`. */
const FIGURES = `coalesce(sum(s.n) FILTER (WHERE s.category = 'CASH_OUT'), 0)::bigint AS bets,
  coalesce(sum(s.amount) FILTER (WHERE s.category = 'CASH_OUT'), 0)::text AS bet_sum,
  coalesce(sum(s.amount) FILTER (WHERE s.category = 'CASH_IN'), 0)::text AS payout_sum,
  coalesce(sum(s.players), 0)::bigint AS players,
  coalesce(sum(s.n) FILTER (WHERE s.status = 'SETTLED'), 0)::bigint AS rounds_settled,
  coalesce(sum(s.n) FILTER (WHERE s.status = 'OPEN'), 0)::bigint AS rounds_open`;

/** The dimensions of a group as answered: the sources give the day as a date, formatted here once per group. */
const answered = (dims: Dimension[], alias: string) => dims.map((d) => (d === 'day' ? `to_char(${alias}.day, 'YYYY-MM-DD') AS day` : `${alias}.${d}`)).join(', ');

/** A statement over a report's groups, kept once in a MATERIALIZED CTE (the page and the totals both read them). */
function withGroups(read: Knex, parts: ReturnType<typeof reportParts>, statement: string, bindings: readonly Knex.RawBinding[]): Knex.Raw {
  return read.raw(`WITH ${GROUPS} AS MATERIALIZED (?) ${statement}`, [parts.groups, ...bindings]);
}

/** The report query: one row per group of the chosen dimensions (currency always among them), ordered by them. */
export function reportQuery(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): Knex.Raw {
  const parts = reportParts(read, scope, f, dims);
  const by = dims.map((d) => `g.${d}`).join(', ');
  return read.raw(`SELECT ${answered(dims, 'g')}, g.bets, g.bet_sum, g.payout_sum, g.players, g.rounds_settled, g.rounds_open
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
  const found = await bounded<{ rows: Record<string, unknown>[] }>(withGroups(read, parts,
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
