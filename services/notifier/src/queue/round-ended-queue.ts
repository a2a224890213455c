import type { Config } from '@relay/shared';
import type { DefaultJobOptions, RedisOptions } from 'bullmq';

/**
 * What the notifier API (producer) and the notifier worker agree on: the queue, its keys and the
 * job payload. Queue keys live under REDIS_KEY_PREFIX, so parallel environments (and test runs)
 * never share a queue.
 */
export const ROUND_ENDED_QUEUE = 'round-ended';
export const ROUND_ENDED_JOB = 'round-ended';

/** One notification to one casino. Carries no secret: the worker loads the wallet from the registry. */
export interface RoundEndedJob {
  providerId: string;
  groupId: string;
  roundId: string;
  /** The request id of the round-ended call, so the worker's log lines join the request's. */
  requestId?: string;
  /** W3C trace context of the round-ended call (traceparent, tracestate). */
  trace: Record<string, string>;
}

/** What a completed job returns: the casino answered 2xx. */
export interface RoundEndedReceipt {
  casinoStatus: number;
}

/**
 * One attempt: the caller is waiting for the answer and decides on a repeat itself (a blind
 * BullMQ retry would run after the caller got its error). Finished jobs are trimmed; failed ones
 * stay longer for inspection.
 */
export const ROUND_ENDED_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 1,
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 24 * 3600, count: 10_000 },
};

/**
 * The event stream the producer reads job results from. A 50-casino call writes some 200 events;
 * a reader that falls further behind than this loses results (and answers 408), so keep it long.
 */
export const EVENTS_MAX_LEN = 50_000;

export function queuePrefix(config: Config): string {
  return config.REDIS_KEY_PREFIX;
}

/**
 * Connections BullMQ creates and closes itself (bullmq, going to production): the producer fails
 * fast while Redis is down (the request answers 503 instead of hanging); blocking readers
 * (Worker, QueueEvents) wait for Redis forever, hence maxRetriesPerRequest: null.
 */
export function producerConnection(config: Config): RedisOptions {
  return { url: config.REDIS_URL, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 };
}

export function blockingConnection(config: Config): RedisOptions {
  return { url: config.REDIS_URL, maxRetriesPerRequest: null, enableOfflineQueue: true };
}
