import type { Config, Runtime } from '@relay/shared';
import type { Logger } from 'pino';
import { ensurePartitions } from './partitions';
import { runRetention } from './retention';
import { LedgerScheduler, type LedgerJob } from './scheduler';
import { archiveStore } from './store';

export { LedgerScheduler, runJobOnce } from './scheduler';

/** The ledger's jobs (docs/ledger.md): partitions ahead of time, and retention with key pruning. */
export function ledgerJobs(config: Config, logger: Logger): LedgerJob[] {
  return [
    {
      name: 'partitions',
      intervalMs: config.LEDGER_PARTITIONS_INTERVAL_SECONDS * 1000,
      run: async (client) => {
        const created = await ensurePartitions(client, config.LEDGER_PARTITIONS_AHEAD_MONTHS);
        if (created) logger.info({ created }, 'ledger partitions created');
      },
    },
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
        if (result.archived.length || result.prunedKeys || result.droppedLegacy) logger.info(result, 'ledger retention done');
      },
    },
  ];
}

/** Starts the jobs (the partition gauges are registered by startAdmin); the returned function stops them (shutdown). */
export function startLedgerMaintenance(rt: Runtime): () => Promise<void> {
  const scheduler = new LedgerScheduler(rt.config.DATABASE_URL, rt.logger, ledgerJobs(rt.config, rt.logger));
  scheduler.start();
  return () => scheduler.stop();
}
