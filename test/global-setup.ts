import { randomBytes } from 'node:crypto';
import { migrateToLatest } from '../libs/shared/src/db';

/**
 * A fresh database per test run, migrated with the same code `npm start` runs. Workers inherit
 * the environment set here; each test file then makes its own ids so files never collide.
 */
export default async function globalSetup(): Promise<void> {
  const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const name = `relay_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  process.env.DATABASE_URL = `${base}/${name}`;
  process.env.REDIS_KEY_PREFIX = `test_${name}`;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.NODE_ENV = 'test';
  await migrateToLatest(process.env.DATABASE_URL);
}
