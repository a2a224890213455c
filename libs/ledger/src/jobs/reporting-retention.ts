import type pg from 'pg';

/**
 * The reporting database's own retention (docs/reporting-database.md, "Retention"). The money
 * database archives and drops its months (retention.ts); a dropped partition is not replicated, so
 * the reporting database keeps its copy until this job drops it, REPORTING_RETENTION_MONTHS after
 * the month (the configuration holds that at least as long as the money database's retention and
 * the idempotency window: no money call can change those rows any more).
 *
 * A month goes in one transaction: ledger_retained moves past it (the lists and search totals count
 * from there, counts.ts), then its partitions are dropped. A dropped partition fires
 * no trigger, so the counts keep the month: the reports still cover it. Nothing is archived here:
 * the money database's archive is the record.
 */
export interface ReportingRetentionOptions {
  retentionMonths: number;
  /** How long the drop waits for its locks (the apply worker may hold the month's partition): then the next run. */
  lockTimeoutMs?: number;
}

const TABLES = ['transactions', 'transaction_attempts', 'rounds'] as const;

/** Drops every whole month older than the retention; returns the months dropped (YYYY-MM), oldest first. */
export async function runReportingRetention(client: pg.ClientBase, options: ReportingRetentionOptions): Promise<string[]> {
  const { rows } = await client.query<{ month: string }>(
    `SELECT DISTINCT to_char(month, 'YYYY-MM-DD') AS month FROM ledger_partitions
      WHERE month IS NOT NULL AND month < (date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => $1))::date
      ORDER BY 1`,
    [options.retentionMonths],
  );
  const dropped: string[] = [];
  for (const { month } of rows) {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = '${Math.round(options.lockTimeoutMs ?? 5000)}ms'`);
      await client.query(
        `INSERT INTO ledger_retained (ledger, since)
           SELECT t, ($1::date + interval '1 month')::date FROM unnest(ARRAY['transactions', 'rounds']) t
         ON CONFLICT (ledger) DO UPDATE SET since = greatest(ledger_retained.since, EXCLUDED.since)`,
        [month],
      );
      const partitions = await client.query<{ name: string }>(
        `SELECT format('%I', partition) AS name FROM ledger_partitions WHERE month = $1::date AND parent_table = ANY($2)`,
        [month, TABLES],
      );
      if (partitions.rows.length) await client.query(`DROP TABLE ${partitions.rows.map((p) => p.name).join(', ')}`);
      await client.query('COMMIT');
      dropped.push(month.slice(0, 7));
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
  return dropped;
}
