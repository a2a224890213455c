import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropDatabase } from '../libs/shared/src/db';
import { prepareDatabases } from '../libs/ledger/src/migrate';
import { dropSubscription } from '../libs/shared/src/replication';
import { localServer } from '../tools/platform/src/local-postgres';

/**
 * A fresh pair of databases per test run, made with the same code `npm start` runs: the money
 * database and its reporting database, subscribed to it. The server is the machine's when it runs
 * with wal_level=logical, else a cluster of the suite's own (tools/platform/src/local-postgres.ts).
 * Workers inherit the environment set here; each test file then makes its own ids so files never collide.
 */
export default async function globalSetup(): Promise<void> {
  const server = await localServer(process.env.TEST_DATABASE_BASE_URL);
  const name = `relay_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  process.env.TEST_DATABASE_BASE_URL = server.baseUrl;
  if (server.dataDir) process.env.TEST_POSTGRES_DATA_DIR = server.dataDir;
  process.env.DATABASE_URL = `${server.baseUrl}/${name}`;
  process.env.REPORTING_DATABASE_URL = `${server.baseUrl}/${name}_reporting`;
  process.env.REDIS_KEY_PREFIX = `test_${name}`;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.NODE_ENV = 'test';
  await dropAbandonedRuns(server.baseUrl);
  await prepareDatabases(process.env.DATABASE_URL, process.env.REPORTING_DATABASE_URL);
}

/**
 * A run that was killed before its teardown leaves its databases, and its replication slot, which
 * holds WAL and one of the server's slots: those of runs started more than two hours ago are removed.
 */
async function dropAbandonedRuns(baseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${baseUrl}/postgres` });
  await client.connect();
  const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^relay_test_[0-9]+_[0-9a-f]+$'`);
  await client.end();
  for (const { datname } of rows) {
    const started = Number(datname.split('_')[2]);
    if (!(Date.now() - started > 2 * 3_600_000)) continue;
    const money = `${baseUrl}/${datname}`;
    const reporting = `${money}_reporting`;
    await dropSubscription(money, reporting).catch(() => undefined);
    await dropDatabase(reporting).catch(() => undefined);
    await dropDatabase(money).catch(() => undefined);
  }
}
