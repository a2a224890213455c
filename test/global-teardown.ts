import { Redis } from 'ioredis';
import { dropDatabase } from '../libs/shared/src/db';
import { dropSubscription } from '../libs/shared/src/replication';

export default async function globalTeardown(): Promise<void> {
  if (process.env.KEEP_TEST_DATABASE !== '1' && process.env.DATABASE_URL?.includes('/relay_test_') && process.env.REPORTING_DATABASE_URL) {
    await dropSubscription(process.env.DATABASE_URL, process.env.REPORTING_DATABASE_URL);
    await dropDatabase(process.env.REPORTING_DATABASE_URL);
    await dropDatabase(process.env.DATABASE_URL);
  }
  const prefix = process.env.REDIS_KEY_PREFIX;
  if (prefix?.startsWith('test_')) {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0');
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  }
}
