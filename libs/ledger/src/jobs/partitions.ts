import type pg from 'pg';
import type { ServiceMetrics } from '@relay/shared';

export const MONEY_TABLES = ['transactions', 'transaction_attempts', 'rounds'] as const;
export type MoneyTable = (typeof MONEY_TABLES)[number];

/** Creates the current month's partitions and `monthsAhead` more for every money table; returns how many it created. */
export async function ensurePartitions(client: pg.ClientBase, monthsAhead: number): Promise<number> {
  const { rows } = await client.query<{ created: number }>('SELECT ledger_ensure_partitions($1) AS created', [monthsAhead]);
  return rows[0].created;
}

export interface PartitionHealth {
  /** Per table: whole months ahead of the current one that have a partition, without a gap (-1: not even the current month). */
  monthsAhead: Record<string, number>;
  /** Per table: rows in the default partition (a month written before its partition existed; should be 0). */
  defaultRows: Record<string, number>;
}

export async function partitionHealth(query: (sql: string) => Promise<{ rows: Record<string, unknown>[] }>): Promise<PartitionHealth> {
  const ahead = await query(`
    WITH this_month AS (SELECT date_trunc('month', now() AT TIME ZONE 'UTC')::date AS m)
    SELECT t.parent_table,
           (SELECT coalesce(min(g.i), 121) - 1 FROM generate_series(0, 120) AS g(i)
             WHERE NOT EXISTS (SELECT 1 FROM ledger_partitions p WHERE p.parent_table = t.parent_table
                                 AND p.month = ((SELECT m FROM this_month) + make_interval(months => g.i))::date))::int AS months_ahead
      FROM unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) AS t(parent_table)`);
  const defaults = await query(`
    SELECT 'transactions' AS parent_table, (SELECT count(*) FROM transactions_pdefault)::int AS n
    UNION ALL SELECT 'transaction_attempts', (SELECT count(*) FROM transaction_attempts_pdefault)::int
    UNION ALL SELECT 'rounds', (SELECT count(*) FROM rounds_pdefault)::int`);
  const health: PartitionHealth = { monthsAhead: {}, defaultRows: {} };
  for (const row of ahead.rows) health.monthsAhead[String(row.parent_table)] = Number(row.months_ahead);
  for (const row of defaults.rows) health.defaultRows[String(row.parent_table)] = Number(row.n);
  return health;
}

/** The gauges of /metrics: read at each scrape (two small catalog queries and three counts of tables that should be empty). */
export function registerPartitionMetrics(metrics: ServiceMetrics, query: (sql: string) => Promise<{ rows: Record<string, unknown>[] }>): void {
  let pending: Promise<PartitionHealth> | null = null;
  // One read serves both gauges of a scrape.
  const read = () => {
    pending ??= partitionHealth(query).finally(() => setTimeout(() => (pending = null), 1000).unref());
    return pending;
  };
  metrics.gauge('relay_ledger_partition_months_ahead', 'Whole months after the current one that have a partition, per money table', ['table'], async function () {
    const health = await read().catch(() => null);
    if (!health) return;
    for (const [table, n] of Object.entries(health.monthsAhead)) this.set({ table }, n);
  });
  metrics.gauge('relay_ledger_default_partition_rows', 'Rows in the default partition of a money table (should be 0)', ['table'], async function () {
    const health = await read().catch(() => null);
    if (!health) return;
    for (const [table, n] of Object.entries(health.defaultRows)) this.set({ table }, n);
  });
}
