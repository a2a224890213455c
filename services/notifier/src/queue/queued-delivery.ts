import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { Queue, QueueEvents } from 'bullmq';
import { Gauge, type Counter, type Histogram } from 'prom-client';
import { AppError, closeRedis, createRedis, currentContext, type Logger, type ReadinessCheck, type Redis, type Runtime } from '@relay/shared';
import type { Delivery } from '../domain/delivery';
import type { RoundEndedDelivery, RoundEndedNotice } from '../domain/round-ended';
import { readFailureReason } from './failure-reason';
import { startProducerSpan } from './messaging-spans';
import {
  blockingConnection,
  EVENTS_MAX_LEN,
  queuePrefix,
  ROUND_ENDED_JOB,
  ROUND_ENDED_JOB_OPTIONS,
  ROUND_ENDED_QUEUE,
  type RoundEndedJob,
  type RoundEndedReceipt,
} from './round-ended-queue';

type Finished = { state: 'completed' } | { state: 'failed'; reason: string | undefined } | { state: 'unfinished' };

interface Waiter {
  promise: Promise<Finished>;
  settle(finished: Finished): void;
}

/** Margin above the casino time-out for queueing, the worker's registry read and the events round trip. */
export const WAIT_MARGIN_MS = 5000;

/**
 * The producer side of round-ended: one BullMQ job per casino, then the request waits for each
 * job's own completed/failed event. Only a `completed` event (emitted by BullMQ after the worker
 * finished the job while holding its lock) counts as delivered; a worker that dies mid-delivery
 * produces no event, so the request answers 408 at the wait bound instead of a false ok.
 */
export class QueuedDelivery implements RoundEndedDelivery {
  private readonly waiters = new Set<Waiter>();
  private readonly outcomes: Counter<'outcome'>;
  private readonly latency: Histogram<'outcome'>;

  private constructor(
    private readonly redis: Redis,
    private readonly queue: Queue<RoundEndedJob, RoundEndedReceipt, string>,
    private readonly events: QueueEvents,
    private readonly waitMs: number,
    private readonly logger: Logger,
    rt: Runtime,
  ) {
    this.outcomes = rt.metrics.counter('notifier_round_ended_deliveries_total', 'Round-ended deliveries by outcome (ok or relay code)', ['outcome']);
    this.latency = rt.metrics.histogram('notifier_round_ended_delivery_seconds', 'From queueing a round-ended job to its result, as the request saw it', ['outcome'], [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30,
    ]);
    registerQueueGauges(rt, queue, logger);
  }

  static async start(rt: Runtime): Promise<QueuedDelivery> {
    const prefix = queuePrefix(rt.config);
    // Our own producer connection: fails fast while Redis is down, so a request answers 503.
    const redis = createRedis(rt.config.REDIS_URL, 'client');
    const queue = new Queue<RoundEndedJob, RoundEndedReceipt, string>(ROUND_ENDED_QUEUE, {
      connection: redis,
      prefix,
      defaultJobOptions: ROUND_ENDED_JOB_OPTIONS,
      streams: { events: { maxLen: EVENTS_MAX_LEN } },
    });
    queue.on('error', (err) => rt.logger.warn({ err: { message: err.message } }, 'round-ended queue: redis error'));
    await queue.waitUntilReady();
    // Results are read from the end of the event stream as it is now, so no event of a job added
    // later is missed, however late the reader's first XREAD happens.
    const last = await redis.xrevrange(queue.keys.events, '+', '-', 'COUNT', 1);
    const events = new QueueEvents(ROUND_ENDED_QUEUE, { connection: blockingConnection(rt.config), prefix, lastEventId: last[0]?.[0] ?? '0-0' });
    events.on('error', (err) => rt.logger.warn({ err: { message: err.message } }, 'round-ended events: redis error'));
    await events.waitUntilReady();
    return new QueuedDelivery(redis, queue, events, rt.config.CASINO_TIMEOUT_MS + WAIT_MARGIN_MS, rt.logger, rt);
  }

  async deliverAll(notices: RoundEndedNotice[]): Promise<Delivery[]> {
    const requestId = currentContext()?.requestId;
    const producers = notices.map((notice) => {
      const jobId = randomUUID();
      return { jobId, span: startProducerSpan(jobId, { 'relay.provider_id': notice.providerId }) };
    });
    const jobs = notices.map((notice, i) => ({
      name: ROUND_ENDED_JOB,
      data: { ...notice, ...(requestId ? { requestId } : {}), trace: producers[i].span.carrier },
      opts: { jobId: producers[i].jobId },
    }));
    const started = performance.now();
    // Listening before the jobs exist: no result can arrive before its listener.
    const waits = jobs.map((job) => this.waitFor(job.opts.jobId));
    try {
      await this.queue.addBulk(jobs);
      for (const p of producers) p.span.end();
    } catch (err) {
      for (const p of producers) p.span.end(err as Error);
      for (const w of waits) w.settle({ state: 'unfinished' });
      this.logger.error({ err: { message: (err as Error).message } }, 'round-ended jobs could not be queued');
      throw new AppError('SERVICE_UNAVAILABLE', 'Round-ended notifications could not be queued; repeat the call');
    }
    const finished = await Promise.all(waits.map((w) => w.promise));
    const seconds = (performance.now() - started) / 1000;
    return finished.map((f, i) => {
      const delivery = this.toDelivery(notices[i].providerId, f);
      const outcome = delivery.ok ? 'ok' : delivery.code;
      this.outcomes.inc({ outcome });
      this.latency.observe({ outcome }, seconds);
      return delivery;
    });
  }

  readinessChecks(): Record<string, ReadinessCheck> {
    return {
      queue: async () => {
        await this.redis.ping();
      },
      queue_events: async () => {
        if ((await this.events.client).status !== 'ready') throw new Error('queue events not connected');
      },
    };
  }

  /** Requests still waiting get their answer now (408); then the connections close. */
  async close(): Promise<void> {
    for (const w of [...this.waiters]) w.settle({ state: 'unfinished' });
    await this.events.close();
    await this.queue.close();
    await closeRedis(this.redis);
  }

  private toDelivery(providerId: string, finished: Finished): Delivery {
    switch (finished.state) {
      case 'completed':
        return { providerId, ok: true };
      case 'failed':
        return { providerId, ok: false, ...readFailureReason(finished.reason) };
      case 'unfinished':
        return {
          providerId,
          ok: false,
          code: 'INTEGRATION_TIMED_OUT',
          message: `No delivery result within ${this.waitMs} ms; the casino may or may not have been notified`,
        };
    }
  }

  private waitFor(jobId: string): Waiter {
    // QueueEvents emits `completed:<id>` / `failed:<id>` per job; the typed API knows only the plain names.
    const emitter = this.events as unknown as EventEmitter;
    const completed = `completed:${jobId}`;
    const failed = `failed:${jobId}`;
    let resolve!: (f: Finished) => void;
    const waiter: Waiter = {
      promise: new Promise<Finished>((r) => (resolve = r)),
      settle: (finished) => {
        clearTimeout(timer);
        emitter.off(completed, onCompleted);
        emitter.off(failed, onFailed);
        this.waiters.delete(waiter);
        resolve(finished);
      },
    };
    const onCompleted = () => waiter.settle({ state: 'completed' });
    const onFailed = (args: { failedReason?: string }) => waiter.settle({ state: 'failed', reason: args.failedReason });
    const timer = setTimeout(() => waiter.settle({ state: 'unfinished' }), this.waitMs);
    emitter.on(completed, onCompleted);
    emitter.on(failed, onFailed);
    this.waiters.add(waiter);
    return waiter;
  }
}

/** Queue depth and live workers, read from Redis when /metrics is scraped. */
function registerQueueGauges(rt: Runtime, queue: Queue<RoundEndedJob, RoundEndedReceipt, string>, logger: Logger): void {
  new Gauge({
    name: 'notifier_queue_jobs',
    help: 'Round-ended jobs in the queue by state',
    labelNames: ['state'],
    registers: [rt.metrics.registry],
    async collect() {
      try {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      } catch (err) {
        logger.debug({ err: { message: (err as Error).message } }, 'queue depth unavailable');
      }
    },
  });
  new Gauge({
    name: 'notifier_workers',
    help: 'Workers connected to the round-ended queue (0 means every delivery will time out)',
    registers: [rt.metrics.registry],
    async collect() {
      try {
        this.set(await queue.getWorkersCount());
      } catch (err) {
        logger.debug({ err: { message: (err as Error).message } }, 'worker count unavailable');
      }
    },
  });
}
