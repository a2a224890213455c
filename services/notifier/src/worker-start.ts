import { Worker } from 'bullmq';
import { createCasinoClient, Registry, type Runtime } from '@relay/shared';
import { blockingConnection, queuePrefix, ROUND_ENDED_QUEUE, type RoundEndedJob, type RoundEndedReceipt } from './queue/round-ended-queue';
import { roundEndedProcessor } from './worker/deliver-round-ended';

export interface NotifierWorkerOptions {
  /** Jobs in flight at once in this process; default NOTIFIER_WORKER_CONCURRENCY. */
  concurrency?: number;
  /**
   * How long a job's lock outlives a worker that stopped renewing it (renewed every half of it).
   * Shorter means a killed worker's job runs again sooner; too short and a busy event loop loses
   * locks (a second delivery, harmless: round-ended is idempotent at the casino).
   */
  lockDurationMs?: number;
  /** How often a worker looks for jobs whose worker died. */
  stalledIntervalMs?: number;
  /** A job older than this is dropped unsent. */
  maxJobAgeMs?: number;
}

export const WORKER_DEFAULTS = { lockDurationMs: 15_000, stalledIntervalMs: 5_000, maxJobAgeMs: 10 * 60_000 } as const;

export interface NotifierWorker {
  /** Takes no new job, lets in-flight deliveries finish, then closes its connections. */
  close(): Promise<void>;
}

/** Runs round-ended deliveries in this process (worker.ts in production; tests in-process). */
export async function startNotifierWorker(rt: Runtime, options: NotifierWorkerOptions = {}): Promise<NotifierWorker> {
  const settings = { ...WORKER_DEFAULTS, ...definedOnly(options) };
  const casinos = createCasinoClient(rt);
  const processor = roundEndedProcessor({
    registry: new Registry(rt.db.primary, rt.secrets, rt.bus),
    casinos,
    logger: rt.logger,
    metrics: rt.metrics,
    maxJobAgeMs: settings.maxJobAgeMs,
  });
  const worker = new Worker<RoundEndedJob, RoundEndedReceipt, string>(ROUND_ENDED_QUEUE, processor, {
    connection: blockingConnection(rt.config),
    prefix: queuePrefix(rt.config),
    concurrency: options.concurrency ?? rt.config.NOTIFIER_WORKER_CONCURRENCY,
    lockDuration: settings.lockDurationMs,
    stalledInterval: settings.stalledIntervalMs,
    // A job whose worker died once runs again; twice, and it fails (read as a time-out).
    maxStalledCount: 1,
  });
  worker.on('error', (err) => rt.logger.error({ err: { message: err.message } }, 'round-ended worker error'));
  worker.on('stalled', (jobId) => rt.logger.warn({ jobId }, 'round-ended job stalled (its worker stopped mid-delivery); it runs again'));
  worker.on('failed', (job, err) => rt.logger.warn({ jobId: job?.id, reason: err.message }, 'round-ended job failed'));
  await worker.waitUntilReady();

  let closing: Promise<void> | null = null;
  return {
    close: () =>
      (closing ??= (async () => {
        await worker.close();
        await casinos.close();
      })()),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
