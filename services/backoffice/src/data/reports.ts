import { ledgerPlayers, ledgerSource, type Knex, type OperatorScope, type SourceDim, type SourceSpec } from '@relay/shared';
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

/** The report query: one row per group of the chosen dimensions (currency always among them), ordered by them. */
export function reportQuery(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): Knex.Raw {
  const narrow = narrowing(scope, f);
  const period = { from: `${f.fromDay}T00:00:00.000Z`, until: dayAfter(f.toDay), requirePartition: false };
  const keys = dims.map((d) => SOURCE_DIM[d]);
  const tx = ledgerSource(read, {
    ...period,
    table: 'transactions',
    dims: [...keys, 'category'],
    narrow: (q, alias) => narrow(q, alias).where(`${alias}.status`, 'SUCCESS'),
  });
  const rd = ledgerSource(read, { ...period, table: 'rounds', dims: [...keys, 'status'], narrow });
  const pl = ledgerPlayers(read, { ...period, dims: keys, narrow });
  // Each part may hold a group once per source part (rollup, unfinished, live): summed again here.
  const named = dims.map((d) => `s.${SOURCE_DIM[d]} AS ${d}`).join(', ');
  const by = dims.map((_, i) => String(i + 1)).join(', ');
  const list = dims.join(', ');
  return read.raw(
    `WITH tx AS (
       SELECT ${named},
              sum(s.n) FILTER (WHERE s.category = 'CASH_OUT') AS bets,
              sum(s.amount) FILTER (WHERE s.category = 'CASH_OUT') AS bet_sum,
              sum(s.amount) FILTER (WHERE s.category = 'CASH_IN') AS payout_sum
         FROM (?) s GROUP BY ${by}),
     rd AS (
       SELECT ${named},
              sum(s.n) FILTER (WHERE s.status = 'SETTLED') AS rounds_settled,
              sum(s.n) FILTER (WHERE s.status = 'OPEN') AS rounds_open
         FROM (?) s GROUP BY ${by}),
     pl AS (SELECT ${named}, count(DISTINCT s.player_id) AS players FROM (?) s GROUP BY ${by})
     SELECT ${list},
       coalesce(tx.bets, 0)::int AS bets, coalesce(tx.bet_sum, 0)::text AS bet_sum, coalesce(tx.payout_sum, 0)::text AS payout_sum,
       coalesce(pl.players, 0)::int AS players, coalesce(rd.rounds_settled, 0)::int AS rounds_settled, coalesce(rd.rounds_open, 0)::int AS rounds_open
     FROM tx FULL OUTER JOIN rd USING (${list}) LEFT JOIN pl USING (${list})
     ORDER BY ${list}`,
    [tx, rd, pl],
  );
}

/**
 * A page of groups, their number, and the totals per currency (their own aggregate: distinct
 * players do not add up across groups), all from ONE snapshot: a REPEATABLE READ, read-only
 * transaction, so the page, the count and the totals describe the same ledger even while the
 * rollup job or a money call commits between the statements.
 */
export async function reportRows(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[], page: { limit: number; offset: number }) {
  return read.transaction(
    async (trx) => {
      const q = reportQuery(trx, scope, f, dims);
      // The count and the page in one statement: the groups are computed once.
      const paged = await bounded<{ rows: Record<string, unknown>[] }>(trx.raw(
        `WITH g AS MATERIALIZED (?)
         SELECT c.total, p.* FROM (SELECT count(*)::int AS total FROM g) c
           LEFT JOIN LATERAL (SELECT * FROM g ORDER BY ${dims.join(', ')} LIMIT ? OFFSET ?) p ON true`,
        [q, page.limit, page.offset],
      ));
      const totals = await bounded<{ rows: Record<string, unknown>[] }>(reportQuery(trx, scope, f, ['currency']));
      const total = Number(paged.rows[0]?.total ?? 0);
      // No group on the page: the one row is the count alone.
      const rows = paged.rows.filter((r) => r.currency !== null).map(({ total: _total, ...r }) => r);
      return { rows, total, totals: totals.rows };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** One statement (one snapshot) streamed through a server-side cursor: constant memory whatever the period. */
export function reportStream(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): AsyncIterable<Record<string, unknown>> {
  return streamed(reportQuery(read, scope, f, dims));
}
