import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import S3rver from 's3rver';
import { createLogger, dropDatabase, type Knex } from '@relay/shared';
import { sqlFacts, TABLE_SPECS, type TableFacts } from '../src/ledger/archive';
import { migrateLive } from '../src/ledger/live-migration';
import { restoreMonth } from '../src/ledger/restore';
import { runRetention } from '../src/ledger/retention';
import { archiveStore } from '../src/ledger/store';
import { verifyChain } from '../src/ledger/verify';
import { oldLayoutDatabase, wholeMonthsSpan } from '../../wallet/test/legacy-ledger';

/**
 * A legacy month's chunks with a bucket configured (s3rver, as in ledger-archive-s3.test.ts): each
 * chunk file is in the bucket before its rows are deleted, so a host that loses its staging
 * directory half-way through a month (a pod restarted without its volume) loses no row: the next
 * run, on an empty directory, assembles the month from the chunks it downloads.
 */
const logger = createLogger({ service: 'ledger-legacy-s3-test', level: 'silent' });
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_legacy_s3_${process.pid}_${Date.now()}`;
const restoreUrl = `${url}_restore`;
const BUCKET = 'relay-ledger';
const PREFIX = 'prod/ledger';
const env = { ...process.env };

const monthsBack = (n: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1)).toISOString().slice(0, 10);
};
const MONTHS = [monthsBack(2), monthsBack(1)];
const label = (month: string) => month.slice(0, 7);

let server: S3rver;
let endpoint: string;
let db: Knex;
let client: pg.Client;
const dirs: string[] = [];
const before: Record<string, Record<string, TableFacts>> = {};

async function bucketStore() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'relay-ledger-legacy-s3-'));
  dirs.push(dir);
  return archiveStore({
    LEDGER_ARCHIVE_DIR: dir,
    LEDGER_ARCHIVE_S3_BUCKET: BUCKET,
    LEDGER_ARCHIVE_S3_ENDPOINT: endpoint,
    LEDGER_ARCHIVE_S3_REGION: 'us-east-1',
    LEDGER_ARCHIVE_S3_PREFIX: PREFIX,
  });
}

async function monthFacts(c: pg.ClientBase, month: string): Promise<Record<string, TableFacts>> {
  const facts: Record<string, TableFacts> = {};
  for (const spec of TABLE_SPECS) facts[spec.table] = await sqlFacts(c, spec, month);
  return facts;
}

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'relay-s3rver-'));
  dirs.push(directory);
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  db = await oldLayoutDatabase(url, 400, wholeMonthsSpan(2));
  expect((await migrateLive(url, { log: () => undefined })).state).toBe('switched');
  client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const month of MONTHS) before[month] = await monthFacts(client, month);
}, 300000);

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  process.env = env;
  await client?.end();
  await db?.destroy();
  await server?.close();
  await dropDatabase(url).catch(() => undefined);
  await dropDatabase(restoreUrl).catch(() => undefined);
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
}, 120_000);

it('When the staging directory is lost half-way through a legacy month, then the next run assembles the month from the chunks in the bucket, exactly', async () => {
  const first = await bucketStore();
  let committed = 0;
  await expect(
    runRetention(client, {
      retentionMonths: 0,
      idempotencyDays: 120,
      store: first,
      logger,
      legacyBatch: 100,
      step: async (name) => {
        if (name === 'legacy-chunk-committed' && (committed += 1) === 3) throw new Error('host lost');
      },
    }),
  ).rejects.toThrow('host lost');
  const half = await monthFacts(client, MONTHS[0]);
  expect(half.transactions.rows).toBeGreaterThan(0);
  expect(half.transactions.rows).toBeLessThan(before[MONTHS[0]].transactions.rows);
  await fs.rm(first.dir, { recursive: true, force: true });

  const s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true });
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}/${label(MONTHS[0])}/parts/` }));
    expect((listed.Contents ?? []).length).toBeGreaterThanOrEqual(3);
  } finally {
    s3.destroy();
  }

  const second = await bucketStore();
  const result = await runRetention(client, { retentionMonths: 0, idempotencyDays: 120, store: second, logger, legacyBatch: 100 });
  expect(result.archived).toEqual(MONTHS.map(label));
  // Verify and restore from the bucket alone (empty staging directories of their own).
  expect(await verifyChain(client, await bucketStore(), { deep: true })).toEqual({ months: MONTHS.map(label), problems: [] });
  const report = await restoreMonth(await bucketStore(), label(MONTHS[0]), restoreUrl);
  expect(report.tables).toEqual(before[MONTHS[0]]);
}, 300000);
