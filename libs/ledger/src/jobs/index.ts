import { startHeartbeat, type Config, type Runtime } from '@relay/shared';
import { armCounts } from '../first-copy';
import type { Logger } from 'pino';
import { ensurePartitions } from './partitions';
import { runReportingRetention } from './reporting-retention';
import { runRetention } from './retention';
import { LedgerScheduler, type LedgerJob } from './scheduler';
import { archiveStore } from './store';

export { LedgerScheduler, runJobOnce } from './scheduler';
export { registerPartitionMetrics } from './partitions';

/** The ledger's jobs (docs/ledger.md): partitions ahead of time, and retention with key pruning. */
export function ledgerJobs(config: Config, logger: Logger): LedgerJob[] {
  return [
    partitionsJob('partitions', config, logger),
    {
      name: 'retention',
      intervalMs: config.LEDGER_RETENTION_INTERVAL_SECONDS * 1000,
      run: async (client) => {
        const result = await runRetention(client, {
          retentionMonths: config.LEDGER_RETENTION_MONTHS,
          idempotencyDays: config.IDEMPOTENCY_RETENTION_DAYS,
          store: archiveStore(config),
          logger,
        });
        if (result.archived.length || result.prunedKeys) logger.info(result, 'ledger retention done');
      },
    },
  ];
}

/**
 * The reporting database's own jobs: its ledger copy is partitioned like the money database's (a
 * month's rows arrive there whether or not its partition exists: they wait in the default one), its
 * counts are made after a first copy that outlasted the set-up's wait, and it drops its old months
 * itself (REPORTING_RETENTION_MONTHS; unset keeps everything).
 */
export function reportingJobs(config: Config, logger: Logger): LedgerJob[] {
  const retentionMonths = config.REPORTING_RETENTION_MONTHS;
  return [
    partitionsJob('reporting-partitions', config, logger),
    {
      // A new subscription's first copy runs with the count triggers off; its counts are made once it ends.
      name: 'counts-arm',
      intervalMs: 10_000,
      run: async (client) => {
        if ((await armCounts(client)) === 'armed') logger.info({ job: 'counts-arm' }, 'first copy done: exact totals counted from the copied rows');
      },
    },
    ...(retentionMonths === undefined ? [] : [{
      name: 'reporting-retention',
      intervalMs: config.LEDGER_RETENTION_INTERVAL_SECONDS * 1000,
      run: async (client: Parameters<LedgerJob['run']>[0]) => {
        const dropped = await runReportingRetention(client, { retentionMonths });
        if (dropped.length) logger.info({ dropped, job: 'reporting-retention' }, 'reporting months dropped');
      },
    }]),
  ];
}

/** Partitions ahead of time (LEDGER_PARTITIONS_AHEAD_MONTHS), on the database the job's scheduler runs on. */
function partitionsJob(name: string, config: Config, logger: Logger): LedgerJob {
  return {
    name,
    intervalMs: config.LEDGER_PARTITIONS_INTERVAL_SECONDS * 1000,
    run: async (client) => {
      const created = await ensurePartitions(client, config.LEDGER_PARTITIONS_AHEAD_MONTHS);
      if (created) logger.info({ created, job: name }, 'ledger partitions created');
    },
  };
}

/**
 * Starts the jobs (the partition gauges are registered by startAdmin) and the replicated heartbeat,
 * reporting's lag clock; the returned function stops them (shutdown).
 */
export function startLedgerMaintenance(rt: Runtime): () => Promise<void> {
  const money = new LedgerScheduler(rt.config.DATABASE_URL, rt.logger, ledgerJobs(rt.config, rt.logger));
  const reporting = new LedgerScheduler(rt.config.reportingDatabaseUrl, rt.logger, reportingJobs(rt.config, rt.logger));
  money.start();
  reporting.start();
  const stopHeartbeat = startHeartbeat(rt.db.primary, rt.config.REPLICATION_HEARTBEAT_MS, (err) => rt.logger.warn({ err }, 'replication heartbeat not written; the next beat retries'));
  return async () => {
    stopHeartbeat();
    await Promise.all([money.stop(), reporting.stop()]);
  };
}
