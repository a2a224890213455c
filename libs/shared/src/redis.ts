import { Redis, type RedisOptions } from 'ioredis';

export { Redis } from 'ioredis';

/**
 * Two kinds of connection (bullmq, going to production): request-path clients fail fast when
 * Redis is down instead of queueing commands forever; blocking workers wait and retry forever.
 */
export function createRedis(url: string, role: 'client' | 'worker' | 'subscriber' = 'client', extra: RedisOptions = {}): Redis {
  const options: RedisOptions =
    role === 'client'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, lazyConnect: false }
      : { maxRetriesPerRequest: null, enableOfflineQueue: true };
  const client = new Redis(url, {
    ...options,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...extra,
  });
  // An unhandled 'error' event would crash the process; connection errors are reported by readyz.
  client.on('error', () => undefined);
  return client;
}

export async function closeRedis(client: Redis): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
