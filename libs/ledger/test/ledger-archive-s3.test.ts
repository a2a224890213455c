import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import S3rver from 's3rver';
import { createLogger, dropDatabase, ensureDatabaseExists } from '@relay/shared';
import { migrateToLatest } from '../src';
import { MANIFEST, TABLE_SPECS, type Manifest } from '../src/jobs/archive';
import { main as cliMain } from '../src/jobs/cli';
import { restoreMonth } from '../src/jobs/restore';
import { runRetention } from '../src/jobs/retention';
import { archiveStore } from '../src/jobs/store';
import { verifyChain } from '../src/jobs/verify';

/**
 * The archive store's S3 path (LEDGER_ARCHIVE_S3_BUCKET with an S3-compatible endpoint), against
 * a real S3 server speaking the protocol over HTTP (s3rver, in this process, files in a
 * temporary directory) with the AWS SDK the store uses: the retention job uploads every month,
 * verify and restore work from the bucket alone (an empty staging directory, as on another
 * host), and the manifest chain shows an object removed or edited in the bucket.
 */
const logger = createLogger({ service: 'ledger-s3-test', level: 'silent' });
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_ledger_s3_${process.pid}_${Date.now()}`;
const restoreUrl = `${url}_restore`;
const BUCKET = 'relay-ledger';
const PREFIX = 'prod/ledger';

const monthsBack = (n: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1)).toISOString().slice(0, 10);
};
const older = monthsBack(3);
const old = monthsBack(2);
const label = (month: string) => month.slice(0, 7);

let server: S3rver;
/** The job's own staging directory: it still holds every file it uploaded. */
let jobDir: string;
let endpoint: string;
let s3: S3Client;
let client: pg.Client;
const dirs: string[] = [];
const env = { ...process.env };

/** A store as the admin service builds it from its configuration, staging in a new, empty directory. */
async function bucketStore() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'relay-ledger-s3-'));
  dirs.push(dir);
  return archiveStore({
    LEDGER_ARCHIVE_DIR: dir,
    LEDGER_ARCHIVE_S3_BUCKET: BUCKET,
    LEDGER_ARCHIVE_S3_ENDPOINT: endpoint,
    LEDGER_ARCHIVE_S3_REGION: 'us-east-1',
    LEDGER_ARCHIVE_S3_PREFIX: PREFIX,
  });
}

const objectKey = (month: string, file: string) => `${PREFIX}/${label(month)}/${file}`;
async function getObject(key: string): Promise<Buffer> {
  const answer = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}
const putObject = (key: string, body: Buffer) => s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));

/** Rounds, their bet and win, attempts and keys, in one month of the partitioned ledger. */
async function fillMonth(month: string, rounds: number, salt: string): Promise<void> {
  for (const spec of TABLE_SPECS) await client.query('SELECT ledger_create_partition($1, $2::date)', [spec.table, month]);
  await client.query(
    `INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language, status,
                         bet_amount, bet_transaction_id, payout_amount, opened_at, settled_at, created_at, updated_at)
     SELECT gen_random_uuid(), 'cas-' || (i % 2), '${salt}r-' || i, 'grp-1', 7, 'p-' || (i % 9), 's', CASE WHEN i % 3 = 0 THEN 'USD' ELSE 'EUR' END, 'en',
            'SETTLED', (i % 97 + 1) / 4.0, '${salt}b-' || i, (i % 89) / 2.0, t, t, t, t
       FROM generate_series(1, $2::int) i, LATERAL (SELECT $1::timestamptz + i * interval '17 minutes' AS t) x`,
    [month, rounds],
  );
  await client.query(
    `INSERT INTO transactions (id, provider_id, transaction_id, previous_transaction_id, category, status, group_id, game_id, player_id,
                               session_id, round_id, amount, currency, language, balance, request_fingerprint, claimed_at, completed_at, created_at, updated_at)
     SELECT gen_random_uuid(), r.provider_id, CASE WHEN c = 'CASH_OUT' THEN r.bet_transaction_id ELSE 'w-' || r.round_id END,
            CASE WHEN c = 'CASH_IN' THEN r.bet_transaction_id END, c, 'SUCCESS', r.group_id, r.game_id, r.player_id, 's', r.round_id,
            CASE WHEN c = 'CASH_OUT' THEN r.bet_amount ELSE r.payout_amount END, r.currency, 'en', 100, 'f', r.created_at, r.created_at, r.created_at, r.created_at
       FROM rounds r CROSS JOIN (VALUES ('CASH_OUT'), ('CASH_IN')) AS cats(c) WHERE r.round_id LIKE '${salt}r-%'`,
  );
  await client.query(`INSERT INTO transaction_attempts (transaction_pk, attempt, transaction_created_at, request, outcome, started_at)
                      SELECT id, 1, created_at, json_build_object('amount', amount), status, created_at FROM transactions WHERE round_id LIKE '${salt}r-%'`);
  await client.query(`INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at)
                      SELECT provider_id, transaction_id, id, created_at FROM transactions WHERE round_id LIKE '${salt}r-%'`);
  await client.query(`INSERT INTO round_keys (provider_id, round_id, id, created_at) SELECT provider_id, round_id, id, created_at FROM rounds WHERE round_id LIKE '${salt}r-%'`);
}

beforeAll(async () => {
  // s3rver's fixed development credentials; the store takes them from the SDK's usual chain.
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'relay-s3rver-'));
  dirs.push(directory);
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true });
  await ensureDatabaseExists(url);
  await migrateToLatest(url);
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await fillMonth(older, 300, 'a');
  await fillMonth(old, 200, 'b');
}, 60000);

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  process.env = env;
  await client?.end();
  s3?.destroy();
  await server?.close();
  await dropDatabase(url).catch(() => undefined);
  await dropDatabase(restoreUrl).catch(() => undefined);
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
}, 120_000);

describe('ledger archives in an S3-compatible bucket', () => {
  it('When the retention job archives two months with a bucket configured, then every file and manifest is in the bucket, byte for byte', async () => {
    const store = await bucketStore();
    jobDir = store.dir;
    const result = await runRetention(client, { retentionMonths: 1, idempotencyDays: 120, store, logger });
    expect(result.archived).toEqual([label(older), label(old)]);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}/` }));
    const files = [...TABLE_SPECS.map((s) => `${s.table}.csv.gz`), MANIFEST].sort();
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([older, old].flatMap((m) => files.map((f) => objectKey(m, f))).sort());
    for (const month of [older, old]) {
      for (const file of files) expect((await getObject(objectKey(month, file))).equals(await fs.readFile(path.join(store.dir, label(month), file)))).toBe(true);
    }
    // The months are gone from the database.
    const left = await client.query(`SELECT count(*)::int AS n FROM ledger_partitions WHERE month IN ($1::date, $2::date)`, [older, old]);
    expect(left.rows[0].n).toBe(0);
  });

  it('When verify and restore run with an empty staging directory, then they read the bucket: the chain is intact and the month comes back exactly', async () => {
    expect(await verifyChain(client, await bucketStore(), { deep: true })).toEqual({ months: [label(older), label(old)], problems: [] });
    const store = await bucketStore();
    const report = await restoreMonth(store, label(older), restoreUrl);
    const manifest = JSON.parse((await getObject(objectKey(older, MANIFEST))).toString('utf8')) as Manifest;
    for (const spec of TABLE_SPECS) {
      expect(report.tables[spec.table].rows).toBe(manifest.tables[spec.table].rows);
      expect(report.tables[spec.table].sums).toEqual(manifest.tables[spec.table].sums);
    }
    expect(manifest.tables.transactions.rows).toBe(600);
    expect(manifest.tables.rounds.rows).toBe(300);
    const target = new pg.Client({ connectionString: restoreUrl });
    await target.connect();
    try {
      const sums = await target.query(`SELECT provider_id, currency, category, sum(amount)::text AS amount FROM transactions GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`);
      expect(sums.rows).toEqual(
        manifest.tables.transactions.sums.map((s) => ({ provider_id: s.provider_id, currency: s.currency, category: s.category, amount: s.amount })),
      );
    } finally {
      await target.end();
    }
  });

  it('When a month is removed from the bucket, then verify reports it missing; put back, the chain is intact again', async () => {
    const key = objectKey(older, MANIFEST);
    const saved = await getObject(key);
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    const removed = await verifyChain(client, await bucketStore());
    expect(removed.problems).toEqual([expect.stringMatching(new RegExp(`^${label(older)}: manifest missing`))]);
    await putObject(key, saved);
    expect((await verifyChain(client, await bucketStore())).problems).toEqual([]);
  });

  it('When an object is edited in the bucket, then `ledger verify` on the archiving host sees it although its staging copy is intact', async () => {
    const cli = async (args: string[]) => {
      const saved = { ...process.env };
      Object.assign(process.env, {
        DATABASE_URL: url, LEDGER_ARCHIVE_DIR: jobDir, LEDGER_ARCHIVE_S3_BUCKET: BUCKET, LEDGER_ARCHIVE_S3_ENDPOINT: endpoint,
        LEDGER_ARCHIVE_S3_PREFIX: PREFIX, LOG_LEVEL: 'silent',
      });
      const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        return await cliMain(args);
      } finally {
        write.mockRestore();
        process.env = saved;
      }
    };
    expect(await cli(['verify', '--deep'])).toBe(0);
    const key = objectKey(older, 'rounds.csv.gz');
    const saved = await getObject(key);
    await putObject(key, Buffer.concat([saved, Buffer.from('x')]));
    expect(await cli(['verify'])).toBe(1);
    await putObject(key, saved);
    expect(await cli(['verify'])).toBe(0);
  });

  it('When a file or a manifest is edited in the bucket, then verify names the edited object', async () => {
    const fileKey = objectKey(old, 'transactions.csv.gz');
    const savedFile = await getObject(fileKey);
    await putObject(fileKey, Buffer.concat([savedFile, Buffer.from([0])]));
    const edited = await verifyChain(client, await bucketStore());
    expect(edited.problems).toEqual([expect.stringMatching(new RegExp(`^${label(old)} transactions: sha256 \\w+ differs from the manifest's`))]);
    await putObject(fileKey, savedFile);

    // A manifest rewritten to match an edited file still breaks the chain: the registry and the next month hold its hash.
    const manifestKey = objectKey(older, MANIFEST);
    const savedManifest = await getObject(manifestKey);
    const manifest = JSON.parse(savedManifest.toString('utf8')) as Manifest;
    manifest.tables.transactions.rows += 1;
    await putObject(manifestKey, Buffer.from(JSON.stringify(manifest, null, 2)));
    const rewritten = await verifyChain(client, await bucketStore());
    expect(rewritten.problems.join('\n')).toMatch(new RegExp(`^${label(older)}: manifest sha256 \\w+ differs from the registry's`));
    await putObject(manifestKey, savedManifest);
    expect((await verifyChain(client, await bucketStore(), { deep: true })).problems).toEqual([]);
  });
});
