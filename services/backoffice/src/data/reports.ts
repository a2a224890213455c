import type { Knex, OperatorScope } from '@relay/shared';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';

/**
 * GGR reports, aggregated at read time from the ledger itself: NUMERIC sums in SQL over exactly
 * the rows they summarise, so a late transaction is in the next answer and a report always
 * agrees to the cent with the transactions (no rollup to keep in step or to rebuild). The
 * period bounds use created_at ranges that the (created_at DESC, id), (provider_id, created_at
 * DESC, id) and (group_id, created_at DESC, id) indexes serve.
 *
 * - bets, bet sum, distinct players: successful CASH_OUTs;
 * - payout sum: successful CASH_INs (wins, losses at 0, refunds);
 * - rounds settled / open: rounds opened in the period, by their status now.
 */
export const DIMENSIONS = ['day', 'casino', 'studio', 'game', 'currency'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const DIM_SQL: Record<Dimension, (alias: string) => string> = {
  day: (a) => `to_char((${a}.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`,
  casino: (a) => `${a}.provider_id`,
  studio: (a) => `${a}.group_id`,
  game: (a) => `${a}.game_id`,
  currency: (a) => `${a}.currency`,
};

export interface ReportFilter {
  /** First and last UTC day, inclusive (YYYY-MM-DD). */
  fromDay: string;
  toDay: string;
  providerId?: string;
  groupId?: string;
  gameId?: number;
  currency?: string;
}

function scoped(read: Knex, table: 'transactions' | 'rounds', alias: string, scope: OperatorScope, f: ReportFilter): Knex.QueryBuilder {
  const q = scopeFilter(read(`${table} as ${alias}`), scope, { providerId: `${alias}.provider_id`, groupId: `${alias}.group_id` })
    .where(`${alias}.created_at`, '>=', `${f.fromDay}T00:00:00Z`)
    .whereRaw(`${alias}.created_at < (?::date + 1)::timestamp AT TIME ZONE 'UTC'`, [f.toDay]);
  if (f.providerId) q.where(`${alias}.provider_id`, f.providerId);
  if (f.groupId) q.where(`${alias}.group_id`, f.groupId);
  if (f.gameId !== undefined) q.where(`${alias}.game_id`, f.gameId);
  if (f.currency) q.where(`${alias}.currency`, f.currency);
  return q;
}

/** The report query: one row per group of the chosen dimensions (currency always among them), ordered by them. */
export function reportQuery(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): Knex.Raw {
  const cols = (a: string) => dims.map((d) => `${DIM_SQL[d](a)} as ${d}`).join(', ');
  const tx = scoped(read, 'transactions', 't', scope, f)
    .where('t.status', 'SUCCESS')
    .select(read.raw(`${cols('t')},
      count(*) filter (where t.category = 'CASH_OUT') as bets,
      coalesce(sum(t.amount) filter (where t.category = 'CASH_OUT'), 0) as bet_sum,
      coalesce(sum(t.amount) filter (where t.category = 'CASH_IN'), 0) as payout_sum,
      count(distinct t.player_id) filter (where t.category = 'CASH_OUT') as players`))
    .groupByRaw(dims.map((_, i) => String(i + 1)).join(', '));
  const rd = scoped(read, 'rounds', 'r', scope, f)
    .select(read.raw(`${cols('r')},
      count(*) filter (where r.status = 'SETTLED') as rounds_settled,
      count(*) filter (where r.status = 'OPEN') as rounds_open`))
    .groupByRaw(dims.map((_, i) => String(i + 1)).join(', '));
  const list = dims.join(', ');
  return read.raw(
    `with tx as (?), rd as (?)
     select ${list},
       coalesce(tx.bets, 0)::int as bets, coalesce(tx.bet_sum, 0)::text as bet_sum, coalesce(tx.payout_sum, 0)::text as payout_sum,
       coalesce(tx.players, 0)::int as players, coalesce(rd.rounds_settled, 0)::int as rounds_settled, coalesce(rd.rounds_open, 0)::int as rounds_open
     from tx full outer join rd using (${list})
     order by ${list}`,
    [tx, rd],
  );
}

export async function reportRows(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[], page: { limit: number; offset: number }) {
  const q = reportQuery(read, scope, f, dims);
  const [rows, counted] = await Promise.all([
    bounded<{ rows: Record<string, unknown>[] }>(read.raw('select * from (?) g limit ? offset ?', [q, page.limit, page.offset])),
    bounded<{ rows: { n: number }[] }>(read.raw('select count(*)::int as n from (?) g', [q])),
  ]);
  return { rows: rows.rows, total: counted.rows[0].n };
}

export function reportStream(read: Knex, scope: OperatorScope, f: ReportFilter, dims: Dimension[]): AsyncIterable<Record<string, unknown>> {
  // A raw query streams through the same server-side cursor as a builder.
  return reportQuery(read, scope, f, dims).stream({ batchSize: 1000, highWaterMark: 1000 }) as unknown as AsyncIterable<Record<string, unknown>>;
}
