import { context, SpanKind } from '@opentelemetry/api';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Counter, Histogram } from 'prom-client';
import {
  extractTraceContext,
  inSpan,
  runWithContext,
  tracer,
  type Casino,
  type CasinoAnswer,
  type CasinoResult,
  type CasinoRoundEndedRequest,
  type CasinoWallet,
  type Logger,
  type ServiceMetrics,
} from '@relay/shared';
import { isDeliveryErrorCode, type DeliveryErrorCode } from '../domain/delivery';
import { failureReason, readFailureReason } from '../queue/failure-reason';
import { messagingAttributes } from '../queue/messaging-spans';
import { ROUND_ENDED_QUEUE, type RoundEndedJob, type RoundEndedReceipt } from '../queue/round-ended-queue';

export interface DelivererDeps {
  /** Loads the casino's wallet URL and secret: jobs never carry them. */
  registry: { casino(providerId: string): Promise<Casino | null> };
  casinos: { call(casino: CasinoWallet, operation: 'round-ended', body: object): Promise<CasinoResult<CasinoAnswer>> };
  logger: Logger;
  metrics: ServiceMetrics;
  /** A job older than this is dropped unsent: its caller stopped waiting long ago. */
  maxJobAgeMs: number;
}

export type RoundEndedProcessor = (job: Job<RoundEndedJob, RoundEndedReceipt, string>) => Promise<RoundEndedReceipt>;

const workerTracer = tracer('notifier-worker');

/**
 * The worker's job: one signed round-ended call to one casino (docs/api/casino.json). A failure becomes a
 * failed job whose reason starts with the relay code; it is never retried by BullMQ, because the
 * caller is waiting for this one answer and decides on a repeat itself.
 */
export function roundEndedProcessor(deps: DelivererDeps): RoundEndedProcessor {
  const jobs = deps.metrics.counter('notifier_jobs_total', 'Round-ended jobs processed by this worker, by outcome', ['outcome']) as Counter<'outcome'>;
  const duration = deps.metrics.histogram('notifier_job_duration_seconds', 'Time a worker spent on one round-ended job', ['outcome'], [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
  ]) as Histogram<'outcome'>;
  const queueWait = deps.metrics.histogram('notifier_job_queue_wait_seconds', 'Time a round-ended job waited in the queue before a worker took it', [], [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30,
  ]);

  return async (job) => {
    const { providerId, groupId, roundId, requestId, trace } = job.data;
    const started = Date.now();
    queueWait.observe(Math.max(0, (job.processedOn ?? started) - job.timestamp) / 1000);
    let outcome: DeliveryErrorCode | 'ok' = 'ok';
    try {
      return await runWithContext({ requestId: requestId ?? `job-${job.id}`, groupId, providerId }, () =>
        context.with(extractTraceContext(trace ?? {}), () =>
          inSpan(workerTracer, `process ${ROUND_ENDED_QUEUE}`, { ...messagingAttributes('process', job.id), 'relay.provider_id': providerId, 'relay.round_id': roundId }, () => deliver(deps, job), {
            kind: SpanKind.CONSUMER,
          }),
        ),
      );
    } catch (err) {
      outcome = readFailureReason((err as Error).message).code;
      if (outcome === 'INTERNAL_ERROR') deps.logger.error({ err, jobId: job.id }, 'round-ended delivery failed inside the relay');
      throw err;
    } finally {
      jobs.inc({ outcome });
      duration.observe({ outcome }, (Date.now() - started) / 1000);
    }
  };
}

async function deliver(deps: DelivererDeps, job: Job<RoundEndedJob, RoundEndedReceipt, string>): Promise<RoundEndedReceipt> {
  const { providerId, groupId, roundId } = job.data;
  if (Date.now() - job.timestamp > deps.maxJobAgeMs) {
    fail('INTEGRATION_TIMED_OUT', 'The notification waited in the queue longer than any caller waits; it was dropped unsent');
  }
  // The request checked the casino moments ago; it may have been removed or deactivated since.
  const casino = await deps.registry.casino(providerId);
  if (!casino) fail('PROVIDER_NOT_FOUND', `Casino ${providerId} is not registered`);
  if (casino.status !== 'ACTIVE') fail('PROVIDER_NOT_ACTIVE', `Casino ${providerId} is not active`);

  const body: CasinoRoundEndedRequest = { providerId, groupId, roundId };
  const result = await deps.casinos.call(casino, 'round-ended', body);
  if (!result.ok) fail(deliveryCode(result.error.code), result.error.message);
  deps.logger.info({ jobId: job.id, casinoStatus: result.status, attempt: job.attemptsStarted }, 'round-ended delivered');
  return { casinoStatus: result.status };
}

/** The round-ended column of docs/api/casino.json has three codes; anything else would be a client bug. */
function deliveryCode(code: string): DeliveryErrorCode {
  return isDeliveryErrorCode(code) ? code : 'PROVIDER_API_FAILURE';
}

function fail(code: DeliveryErrorCode, message: string): never {
  throw new UnrecoverableError(failureReason(code, message));
}
