import pg from 'pg';

/**
 * BENCH_PG_STATEMENTS=1 (profiling, never recorded): what PostgreSQL ran in a phase, per call of
 * the phase, from pg_stat_statements (which must be in shared_preload_libraries). Every database's
 * statements are counted, so the platform's jobs show beside the money statements.
 */
export async function pgStatementsAround<T extends { samples: unknown[] }>(dbUrl: string, phase: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    const result = await phase();
    const calls = Math.max(1, result.samples.length);
    const { rows } = await client.query(
      `SELECT calls, total_exec_time, total_plan_time, rows, shared_blks_hit + shared_blks_read AS blocks, wal_records, wal_fpi, wal_bytes,
              regexp_replace(query, '\\s+', ' ', 'g') AS query
         FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 25`,
    );
    const f = (n: number, d = 3) => (Number(n) / calls).toFixed(d);
    const lines = [
      `per call of the phase (${calls} calls): statements, exec ms, plan ms, rows, blocks, WAL records, full pages, WAL bytes, query`,
      ...rows.map((r) => `${f(r.calls)} | ${f(r.total_exec_time)} | ${f(r.total_plan_time)} | ${f(r.rows, 2)} | ${f(r.blocks, 1)} | ${f(r.wal_records, 1)} | ${f(r.wal_fpi, 2)} | ${f(r.wal_bytes, 0)} | ${String(r.query).slice(0, 160)}`),
    ];
    return { result, lines };
  } finally {
    await client.end();
  }
}
