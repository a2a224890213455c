import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import knexFactory from 'knex';
import pg from 'pg';
import { createLogger, dropDatabase, type Knex } from '@relay/shared';
import { addFacts, sqlFacts, TABLE_SPECS, type Manifest, type TableFacts } from '../src/ledger/archive';
import { legacyPartitions, type LegacyProgress } from '../src/ledger/legacy-retention';
import { migrateLive } from '../src/ledger/live-migration';
import { partitionHealth } from '../src/ledger/partitions';
import { restoreMonth } from '../src/ledger/restore';
import { countDay, runRollups } from '../src/ledger/rollups';
import { runRetention, type RetentionStep } from '../src/ledger/retention';
import { archiveStore, type ArchiveStore } from '../src/ledger/store';
import { verifyChain } from '../src/ledger/verify';
import * as wallet from '../../wallet/src/data/transactions';
import { recordCreditSuccess } from '../../wallet/src/data/rounds';
import { reportQuery } from '../../backoffice/src/data/reports';
import { oldLayoutDatabase, wholeMonthsSpan } from '../../wallet/test/legacy-ledger';
import { movementRecord } from '../../wallet/test/movement-records';

/**
 * Retention of a ledger migrated live (docs/ledger.md, "Months in the legacy partition"): the old
 * tables are one [MINVALUE, bound) partition per table, holding four old months. Each month leaves
 * in chunks into the same archive format and chain as a monthly partition; the job is killed (a
 * throw, or its connection terminated) at every step and the next run finishes; at every point each
 * month's rows are exactly in the database or in the chunks its registry recorded, never both,
 * never neither. Then the chain verifies, a month restores exactly, its transactionIds still
 * replay within the idempotency window, and once its range is past the retention the emptied
 * legacy partition is dropped.
 */
const logger = createLogger({ service: 'ledger-legacy-test', level: 'silent' });
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
/** LEGACY_RETENTION_ROUNDS scales the old data (two transactions and attempts per round), LEGACY_RETENTION_BATCH the chunks. */
const ROUNDS = Number(process.env.LEGACY_RETENTION_ROUNDS ?? 800);
const BATCH = Number(process.env.LEGACY_RETENTION_BATCH ?? 150);
const APP = `legacy-retention-${process.pid}`;

const monthsBack = (n: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1)).toISOString().slice(0, 10);
};
const MONTHS = [monthsBack(4), monthsBack(3), monthsBack(2), monthsBack(1)];
const label = (month: string) => month.slice(0, 7);

async function monthFacts(c: pg.ClientBase, month: string): Promise<Record<string, TableFacts>> {
  const facts: Record<string, TableFacts> = {};
  for (const spec of TABLE_SPECS) facts[spec.table] = await sqlFacts(c, spec, month);
  return facts;
}

type Step = (name: RetentionStep, month: string) => void | Promise<unknown>;

/** The job on a connection of its own (as the scheduler runs it), so that a test can kill that connection (killJob). */
async function retentionOn(url: string, store: ArchiveStore, step?: Step, retentionMonths = 0, legacyBatch = BATCH) {
  const own = new pg.Client({ connectionString: url, application_name: APP });
  own.on('error', () => undefined);
  await own.connect();
  try {
    return await runRetention(own, { retentionMonths, idempotencyDays: 120, store, logger, legacyBatch, step: step as (name: RetentionStep, month: string) => Promise<void> });
  } finally {
    await own.end().catch(() => undefined);
  }
}

const killJob = (client: pg.Client) => client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [APP]);

describe('retention of the legacy partition a live migration left', () => {
  const url = `${base}/relay_legacy_retention_${process.pid}_${Date.now()}`;
  const restoreUrl = `${url}_restore`;
  let db: Knex;
  let client: pg.Client;
  let dir: string;
  let store: ArchiveStore;
  const before: Record<string, Record<string, TableFacts>> = {};
  let rollupsBefore: unknown[] = [];
  /**
   * What the daily rollups say per month, with the rows unfinished when counted (read live, as the
   * reports do): the reports read an archived month from them (its rows that left unfinished are
   * counted in its rollups then).
   */
  const rollupTotals = async () =>
    (
      await client.query(
        `SELECT 'transactions' AS t, to_char(day, 'YYYY-MM') AS month, sum(n)::int AS n, sum(amount)::text AS amount FROM (
           SELECT day, n, amount FROM ledger_rollup_transactions
           UNION ALL
           SELECT u.day, 1, x.amount FROM ledger_rollup_unfinished u JOIN transactions x ON x.id = u.id AND x.created_at = u.created_at WHERE u.parent = 'transactions'
         ) r GROUP BY 2
         UNION ALL
         SELECT 'rounds', to_char(day, 'YYYY-MM'), sum(n)::int, sum(bet_amount)::text FROM (
           SELECT day, n, bet_amount FROM ledger_rollup_rounds
           UNION ALL
           SELECT u.day, 1, x.bet_amount FROM ledger_rollup_unfinished u JOIN rounds x ON x.id = u.id AND x.created_at = u.created_at WHERE u.parent = 'rounds'
         ) r GROUP BY 2 ORDER BY 1, 2`,
      )
    ).rows;

  beforeAll(async () => {
    // Four whole months before the current one, none of it in the current month.
    db = await oldLayoutDatabase(url, ROUNDS, wholeMonthsSpan(4));
    expect((await migrateLive(url, { log: () => undefined })).state).toBe('switched');
    client = new pg.Client({ connectionString: url });
    await client.connect();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'relay-ledger-legacy-'));
    store = archiveStore({ LEDGER_ARCHIVE_DIR: dir, LEDGER_ARCHIVE_S3_REGION: 'us-east-1', LEDGER_ARCHIVE_S3_PREFIX: '' });
    for (const month of MONTHS) before[month] = await monthFacts(client, month);
    // The rollup job has counted every past day, as it would have long before retention.
    await runRollups(db, { maxDays: 400, closeMarginMs: 0 });
    rollupsBefore = await rollupTotals();
    expect(rollupsBefore.length).toBe(2 * MONTHS.length);
  }, 300000);

  // DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
  afterAll(async () => {
    await client?.end();
    await db?.destroy();
    await dropDatabase(url).catch(() => undefined);
    await dropDatabase(restoreUrl).catch(() => undefined);
    if (dir) await fs.rm(dir, { recursive: true, force: true });
    // Each DROP DATABASE waits for a checkpoint: long on a machine busy writing.
  }, 120_000);

  const retention = (step?: Step, retentionMonths = 0) => retentionOn(url, store, step, retentionMonths);

  /**
   * Every row of each month is either still in the database or in a chunk its registry recorded
   * (or, once archived, in its manifest): the sums of both equal the month before retention.
   */
  async function expectEveryRowAccountedFor(): Promise<void> {
    for (const month of MONTHS) {
      const { rows } = await client.query<{ state: string; progress: LegacyProgress | null; manifest: Manifest | null }>(
        `SELECT state, progress, manifest FROM ledger_archives WHERE month = $1`,
        [month],
      );
      const inDb = await monthFacts(client, month);
      for (const spec of TABLE_SPECS) {
        const elsewhere: TableFacts =
          rows[0]?.state === 'archived'
            ? { rows: rows[0].manifest!.tables[spec.table].rows, sums: rows[0].manifest!.tables[spec.table].sums }
            : (rows[0]?.progress?.facts[spec.table] ?? { rows: 0, sums: [] });
        expect({ month, table: spec.table, ...addFacts(spec, inDb[spec.table], elsewhere) }).toEqual({ month, table: spec.table, ...before[month][spec.table] });
      }
    }
  }

  const killConnection = () => killJob(client);

  it('When money calls hold rows of the month being removed, then the job goes around them without making them wait, and takes them, as changed, once released', async () => {
    const month = MONTHS[0];
    // A money call mid-way on a transaction of the month (a takeover: its row locked), and another
    // finishing an attempt of a second one (the attempt locked first, as markFailed does).
    const ids = (await client.query(`SELECT id, transaction_id FROM transactions WHERE created_at >= $1 AND created_at < $2 ORDER BY created_at DESC LIMIT 2 OFFSET 10`, [month, MONTHS[1]])).rows;
    const calls = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    for (const c of calls) await c.connect();
    const chunks: number[] = [];
    // Three months of retention: only the oldest month is due. The calls start as the job starts on the month.
    const job = retention(async (name) => {
      if (name === 'legacy-chunk-committed') chunks.push(Date.now());
      if (name !== 'legacy-registered') return;
      for (const c of calls) await c.query('BEGIN');
      await calls[0].query(`UPDATE transactions SET error_message = 'changed while archiving' WHERE id = $1`, [ids[0].id]);
      await calls[1].query(`UPDATE transaction_attempts SET casino_body = 'finished while archiving' WHERE transaction_pk = $1`, [ids[1].id]);
    }, 3);
    // Chunks commit while both calls still hold their rows (a job waiting for them would commit none).
    let failed: unknown = null;
    job.catch((err) => (failed = err));
    for (let i = 0; i < 600 && !chunks.length && !failed; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ failed, chunks: chunks.length > 0 }).toEqual({ failed: null, chunks: true });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Neither call waited for the job: each can still write and commit at once.
    const started = Date.now();
    await calls[0].query(`UPDATE transactions SET updated_at = now() WHERE id = $1`, [ids[0].id]);
    await calls[1].query(`UPDATE transactions SET error_message = 'finished while archiving' WHERE id = $1`, [ids[1].id]);
    for (const c of calls) await c.query('COMMIT');
    // At most one chunk's transaction (it holds a passed-over transaction until it commits), never the job
    // (which cannot finish the month without these rows) nor its 5 s lock wait. A sanity bound with room
    // for a loaded machine, not a speed check.
    expect(Date.now() - started).toBeLessThan(3000);
    for (const c of calls) await c.end();

    expect((await job).archived).toEqual([label(month)]);
    expect(await monthFacts(client, month)).toEqual({
      transactions: { rows: 0, sums: [] },
      transaction_attempts: { rows: 0, sums: [] },
      rounds: { rows: 0, sums: [] },
    });
    const manifest = JSON.parse(await fs.readFile(path.join(dir, label(month), 'manifest.json'), 'utf8')) as Manifest;
    for (const spec of TABLE_SPECS) expect({ rows: manifest.tables[spec.table].rows, sums: manifest.tables[spec.table].sums }).toEqual(before[month][spec.table]);
    const archived = gunzipSync(await fs.readFile(path.join(dir, label(month), 'transactions.csv.gz'))).toString();
    expect(archived).toContain('changed while archiving');
    expect(gunzipSync(await fs.readFile(path.join(dir, label(month), 'transaction_attempts.csv.gz'))).toString()).toContain('finished while archiving');
    expect(archived.split('\n').filter((line) => line.includes(ids[0].id))).toHaveLength(1);
  }, 120000);

  it('When the job is killed at every step of a legacy month, then no row is lost or duplicated and the next run finishes each month exactly', async () => {
    expect(before[MONTHS[0]].transactions.rows).toBeGreaterThan(2 * BATCH);
    const kills: { at: RetentionStep; nth: number; how: 'throw' | 'connection' }[] = [
      { at: 'legacy-registered', nth: 1, how: 'throw' },
      { at: 'legacy-chunk-written', nth: 1, how: 'throw' },
      { at: 'legacy-chunk-removed', nth: 1, how: 'throw' },
      { at: 'legacy-chunk-committed', nth: 3, how: 'throw' },
      { at: 'legacy-chunk-written', nth: 2, how: 'connection' },
      { at: 'legacy-chunk-removed', nth: 2, how: 'connection' },
      { at: 'legacy-files-assembled', nth: 1, how: 'throw' },
      { at: 'legacy-manifest-written', nth: 1, how: 'throw' },
      { at: 'legacy-archived', nth: 1, how: 'throw' },
      // A later month, half removed, its connection killed between chunks.
      { at: 'legacy-chunk-committed', nth: 2, how: 'connection' },
    ];
    const states = async () =>
      (await client.query<{ month: string; state: string; chunks: number }>(
        `SELECT to_char(month, 'YYYY-MM-DD') AS month, state, (progress->>'chunks')::int AS chunks FROM ledger_archives ORDER BY month`,
      )).rows;
    for (const kill of kills) {
      let seen = 0;
      const run = retention(async (name) => {
        if (name !== kill.at || (seen += 1) !== kill.nth) return;
        if (kill.how === 'throw') throw new Error(`killed at ${kill.at}`);
        await killConnection();
      });
      await expect(run).rejects.toThrow(kill.how === 'throw' ? `killed at ${kill.at}` : /terminat|Connection/i);
      await expectEveryRowAccountedFor();
    }
    // The kills went through more than one month; the last one left a month half removed.
    const half = (await states()).filter((s) => s.state !== 'archived');
    expect(half[0]).toMatchObject({ state: 'removing' });
    expect(half[0].chunks).toBeGreaterThan(0);
    expect(half[0].month > MONTHS[0]).toBe(true);

    // Meanwhile the current month's money calls go on (a claim every 20 ms, into the legacy
    // partition itself: its range still holds this month), and are timed.
    const probe = { running: true, ms: [] as number[] };
    const probing = (async () => {
      for (let i = 0; probe.running; i += 1) {
        const t = Date.now();
        const bet = movementRecord({ providerId: 'cas-probe', groupId: 'grp-0', gameId: 7, playerId: 'p-probe' }, 'CASH_OUT', `probe-${i}`, `probe-r-${i}`);
        expect(await wallet.claimTransaction(db, bet, { amount: 10 })).not.toBeNull();
        probe.ms.push(Date.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const commits: { at: number; month: string }[] = [];
    const t0 = Date.now();
    const result = await retention((name, month) => void (name === 'legacy-chunk-committed' && commits.push({ at: Date.now(), month })));
    const ms = Date.now() - t0;
    probe.running = false;
    await probing;
    // Between two commits of one month: one chunk's transaction, its row locks included.
    const chunkMs = commits.slice(1).flatMap((c, i) => (c.month === commits[i].month ? [c.at - commits[i].at] : [])).sort((a, b) => a - b);
    const calls = [...probe.ms].sort((a, b) => a - b);
    console.log(
      `legacy retention of ${result.archived.length} months (${ROUNDS} old rounds in all): ${commits.length} chunks of at most ${BATCH} rows in ${ms} ms; ` +
        `one chunk's transaction: p50 ${chunkMs[Math.floor(chunkMs.length / 2)]} ms, max ${chunkMs.at(-1)} ms; ` +
        `current-month claims meanwhile: ${calls.length}, p50 ${calls[Math.floor(calls.length / 2)]} ms, max ${calls.at(-1)} ms`,
    );
    // The job never made them wait for it (a wait for the job would be the whole run).
    expect(calls.at(-1)).toBeLessThan(Math.max(2000, ms / 2));
    await client.query(`DELETE FROM transaction_attempts WHERE transaction_pk IN (SELECT id FROM transactions WHERE provider_id = 'cas-probe')`);
    await client.query(`DELETE FROM transactions WHERE provider_id = 'cas-probe'`);
    await client.query(`DELETE FROM transaction_keys WHERE provider_id = 'cas-probe'`);
    expect(result.archived).toEqual(MONTHS.filter((m) => m >= half[0].month).map(label));
    // Its range reaches past the current month: the legacy partition stays (empty of old months).
    expect(result.droppedLegacy).toBe(false);
    await expectEveryRowAccountedFor();
    const { rows } = await client.query(`SELECT to_char(month, 'YYYY-MM-DD') AS month, state FROM ledger_archives ORDER BY month`);
    expect(rows).toEqual(MONTHS.map((month) => ({ month, state: 'archived' })));
    for (const month of MONTHS) {
      const left = await monthFacts(client, month);
      for (const spec of TABLE_SPECS) expect(left[spec.table].rows).toBe(0);
      const manifest = JSON.parse(await fs.readFile(path.join(dir, label(month), 'manifest.json'), 'utf8')) as Manifest;
      for (const spec of TABLE_SPECS) {
        expect({ rows: manifest.tables[spec.table].rows, sums: manifest.tables[spec.table].sums }).toEqual(before[month][spec.table]);
      }
      await expect(fs.stat(path.join(dir, label(month), 'parts'))).rejects.toThrow();
    }
    // Keys: past the window gone with their month, inside it each keeps its record's last state.
    const keys = await client.query(
      `SELECT count(*) FILTER (WHERE created_at < now() - interval '120 days')::int AS past,
              count(*) FILTER (WHERE archived IS NULL)::int AS bare, count(*)::int AS kept
         FROM transaction_keys WHERE created_at < $1`,
      [monthsBack(0)],
    );
    expect(keys.rows[0]).toMatchObject({ past: 0, bare: 0 });
    expect(keys.rows[0].kept).toBeGreaterThan(0);
    expect((await retention()).archived).toEqual([]);
  }, 300000);

  it('When a day of an archived legacy month is marked stale, then the rollup job keeps its counts (reports still cover it) and the lists count it live', async () => {
    const day = `${MONTHS[1].slice(0, 8)}15`;
    await client.query(`INSERT INTO rollup_stale_days (day) VALUES ($1) ON CONFLICT DO NOTHING`, [day]);
    const run = await runRollups(db, { maxDays: 400, closeMarginMs: 0 });
    expect(run!.recounted).not.toContain(day);
    expect(await rollupTotals()).toEqual(rollupsBefore);
    // A count of the day run anyway (by a job that listed it before its month was archived) leaves it as it is too.
    const onClient = async <T,>(text: string, bindings: readonly unknown[] = []) => {
      let n = 0;
      return (await client.query(text.replace(/\?/g, () => `$${(n += 1)}`), [...bindings])).rows as T[];
    };
    expect(await countDay(onClient, day)).toBe(false);
    expect(await rollupTotals()).toEqual(rollupsBefore);
    const usable = async (requirePartition: boolean) =>
      (
        await client.query(`SELECT count(*)::int AS n FROM ledger_rollup_days_usable('transactions', $1::timestamptz, $2::timestamptz, $3)`, [
          `${MONTHS[1]}T00:00:00Z`,
          `${MONTHS[2]}T00:00:00Z`,
          requirePartition,
        ])
      ).rows[0].n;
    // Reports (no partition needed): every day of the month, the stale one too; lists: none (the rows are gone).
    expect(await usable(false)).toBe((Date.parse(MONTHS[2]) - Date.parse(MONTHS[1])) / 86_400_000);
    expect(await usable(true)).toBe(0);
    await client.query(`DELETE FROM rollup_stale_days WHERE day = $1`, [day]);
  });

  it('When the chain of the legacy months is verified, then it is intact, and an edited chunk of it is caught', async () => {
    expect(await verifyChain(client, store, { deep: true })).toEqual({ months: MONTHS.map(label), problems: [] });
    const file = path.join(dir, label(MONTHS[1]), 'rounds.csv.gz');
    const original = await fs.readFile(file);
    await fs.writeFile(file, Buffer.concat([original, Buffer.from([0])]));
    expect((await verifyChain(client, store)).problems.join('\n')).toMatch(/rounds: sha256 .* differs/);
    await fs.writeFile(file, original);
  });

  it('When a legacy month is restored into another database, then its counts and sums are those before retention, row for row', async () => {
    const month = MONTHS[2];
    const report = await restoreMonth(store, label(month), restoreUrl);
    expect(report.tables).toEqual(before[month]);
    const target = new pg.Client({ connectionString: restoreUrl });
    await target.connect();
    try {
      expect(await monthFacts(target, month)).toEqual(before[month]);
      // Row for row: every attempt has its transaction, every transactionId is the month's.
      const orphans = await target.query(`SELECT count(*)::int AS n FROM transaction_attempts a WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = a.transaction_pk)`);
      expect(orphans.rows[0].n).toBe(0);
      const ids = (await target.query(`SELECT transaction_id FROM transactions ORDER BY 1`)).rows.map((r) => r.transaction_id);
      expect(new Set(ids).size).toBe(before[month].transactions.rows);
    } finally {
      await target.end();
    }
  });

  it('When a transactionId of an archived legacy month is repeated within the window, then a SUCCESS replays its stored balance instead of being claimed again', async () => {
    const month = MONTHS[2];
    const { rows } = await client.query(
      `SELECT provider_id, transaction_id, archived->>'status' AS status, archived->>'player_id' AS player_id, archived->>'group_id' AS group_id
         FROM transaction_keys WHERE created_at >= $1 AND created_at < $2 ORDER BY archived->>'status' DESC, transaction_id`,
      [month, MONTHS[3]],
    );
    const success = rows.find((r) => r.status === 'SUCCESS')!;
    const found = await wallet.findTransaction(db, success.provider_id, success.transaction_id);
    expect(found).toMatchObject({ status: 'SUCCESS', archived: true, balance: '100.00' });
    const repeat = movementRecord({ providerId: success.provider_id, groupId: success.group_id, gameId: 7, playerId: success.player_id }, 'CASH_OUT', success.transaction_id, 'r-x');
    const answer = await wallet.claimOrFindTransaction(db, repeat, { amount: 1 });
    expect(answer).toEqual({ existing: expect.objectContaining({ status: 'SUCCESS', archived: true, balance: '100.00' }) });
  });

  it('When the legacy range is past the retention and empty, then the job drops it; a FAILED transactionId of it is then revived into the current month', async () => {
    expect(await legacyPartitions(client)).not.toBeNull();
    // Test-only: time passes. The legacy partitions' bound moves back to the start of this month
    // (they hold nothing from it on), as if the months up to it had gone by; this month gets its own.
    for (const table of ['transactions', 'transaction_attempts', 'rounds']) {
      await client.query(`ALTER TABLE ${table} DETACH PARTITION ${table}_legacy`);
      await client.query(`ALTER TABLE ${table} ATTACH PARTITION ${table}_legacy FOR VALUES FROM (MINVALUE) TO ('${monthsBack(0)}T00:00:00Z')`);
    }
    await client.query('SELECT ledger_ensure_partitions(3)');
    // This month is not due; the whole legacy range (before it) is, and holds nothing.
    const kept = await retention(undefined, 0);
    expect(kept).toMatchObject({ archived: [], droppedLegacy: true });
    expect(await legacyPartitions(client)).toBeNull();
    const left = await client.query(`SELECT count(*)::int AS n FROM pg_class WHERE relname LIKE '%\\_legacy'`);
    expect(left.rows[0].n).toBe(0);
    expect(await verifyChain(client, store, { deep: true })).toEqual({ months: MONTHS.map(label), problems: [] });
    const health = await partitionHealth((sql) => client.query(sql));
    expect(health.monthsAhead).toEqual({ transactions: 3, transaction_attempts: 3, rounds: 3 });

    // A credit the casino refused in an archived legacy month (its round left OPEN), repeated: revived, attempt 2.
    const { rows } = await client.query(
      `SELECT provider_id, transaction_id, archived->>'player_id' AS player_id, archived->>'group_id' AS group_id, (archived->>'attempt')::int AS attempt
         FROM transaction_keys WHERE archived->>'status' = 'FAILED' AND created_at >= $1 AND created_at < $2 LIMIT 1`,
      [MONTHS[2], MONTHS[3]],
    );
    expect(rows[0].attempt).toBe(1);
    const existing = await wallet.findTransaction(db, rows[0].provider_id, rows[0].transaction_id);
    expect(existing).toMatchObject({ status: 'FAILED', archived: true });
    const owner = { providerId: rows[0].provider_id, groupId: rows[0].group_id, gameId: 7, playerId: rows[0].player_id };
    const claim = await wallet.takeOverTransaction(db, existing!, movementRecord(owner, 'CASH_IN', rows[0].transaction_id, 'r-revived'), { amount: 1 }, 30);
    expect(claim).toMatchObject({ attempt: 2 });
    const revived = await client.query(`SELECT tableoid::regclass::text AS part FROM transactions WHERE id = $1`, [claim!.pk]);
    expect(revived.rows[0].part).toBe(`transactions_p${monthsBack(0).slice(0, 4)}_${monthsBack(0).slice(5, 7)}`);
  }, 120000);
});

/**
 * The daily rollups of a legacy month whose rows change while it leaves (docs/ledger.md, "Months in
 * the legacy partition"): a FAILED credit taken over and paid, and an OPEN round settled late, each
 * after other rows of its day already left. Once archived (the job killed on the way), the reports
 * of every day of the month equal the same reports over the month restored from its archive, and a
 * day nobody touched reports what it did before.
 */
describe('the daily rollups of a legacy month whose rows changed while it left', () => {
  const url = `${base}/relay_legacy_rollups_${process.pid}_${Date.now()}`;
  const restoreUrl = `${url}_restore`;
  // Two old months; with a retention of one month only the older is due.
  const month = monthsBack(2);
  /** Small chunks: a day's rows leave over several of them. */
  const batch = 4;
  let db: Knex;
  let restored: Knex | undefined;
  let client: pg.Client;
  let dir: string;
  let store: ArchiveStore;
  let reportBefore: Record<string, unknown>[];

  /** The back office's report of the month, per day and currency (reports.ts), as the platform sees it. */
  const dailyReport = async (read: Knex) =>
    (await reportQuery(read, { type: 'platform' }, { fromDay: month, toDay: new Date(Date.parse(monthsBack(1)) - 86_400_000).toISOString().slice(0, 10) }, ['day', 'currency']))
      .rows as Record<string, unknown>[];

  beforeAll(async () => {
    db = await oldLayoutDatabase(url, ROUNDS, wholeMonthsSpan(2));
    expect((await migrateLive(url, { log: () => undefined })).state).toBe('switched');
    client = new pg.Client({ connectionString: url });
    await client.connect();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'relay-ledger-legacy-rollups-'));
    store = archiveStore({ LEDGER_ARCHIVE_DIR: dir, LEDGER_ARCHIVE_S3_REGION: 'us-east-1', LEDGER_ARCHIVE_S3_PREFIX: '' });
    await runRollups(db, { maxDays: 400, closeMarginMs: 0 });
    reportBefore = await dailyReport(db);
  }, 300000);

  afterAll(async () => {
    await client?.end();
    await db?.destroy();
    await restored?.destroy();
    await dropDatabase(url).catch(() => undefined);
    await dropDatabase(restoreUrl).catch(() => undefined);
    if (dir) await fs.rm(dir, { recursive: true, force: true });
    // Each DROP DATABASE waits for a checkpoint: long on a machine busy writing.
  }, 120000);

  /** Of the month's rows of `table` with `status`, the one with the most rows of its day after it (so some of them leave first); not of `other`'s day nor round. */
  async function target(table: 'transactions' | 'rounds', status: string, other?: { day: string; round_id: string }) {
    const { rows } = await client.query(
      `SELECT x.*, x.created_at::text AS at, to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
              (SELECT count(*)::int FROM ${table} l WHERE l.created_at > x.created_at
                  AND l.created_at < ((x.created_at AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC') AS later
         FROM ${table} x WHERE x.status = $1 AND x.created_at >= $2 AND x.created_at < $3
          AND to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') IS DISTINCT FROM $4 AND x.round_id IS DISTINCT FROM $5
        ORDER BY later DESC, x.created_at LIMIT 1`,
      [status, month, monthsBack(1), other?.day ?? null, other?.round_id ?? null],
    );
    expect(rows[0].later).toBeGreaterThanOrEqual(batch);
    return rows[0];
  }

  /** Whether some rows of the target's day after it have left while the target itself is still there as it was. */
  async function dueFor(table: 'transactions' | 'rounds', row: { id: string; at: string; later: number; status: string }) {
    const { rows } = await client.query(
      `SELECT (SELECT status FROM ${table} WHERE id = $1 AND created_at = $2::timestamptz) AS status,
              (SELECT count(*)::int FROM ${table} l WHERE l.created_at > $2::timestamptz
                  AND l.created_at < (($2::timestamptz AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC') AS later`,
      [row.id, row.at],
    );
    return rows[0].status === row.status && rows[0].later < row.later;
  }

  const paid = (claim: wallet.Claim, amount: string) => ({ claim, balance: '100.00', username: null, casinoStatus: 200, casinoBody: `paid ${amount}` });
  const settlement = (r: { provider_id: string; round_id: string; group_id: string; game_id: number; player_id: string; bet_transaction_id: string }, settleTransactionId: string, payoutAmount: string) => ({
    providerId: r.provider_id,
    roundId: r.round_id,
    groupId: r.group_id,
    gameId: r.game_id,
    playerId: r.player_id,
    previousTransactionId: r.bet_transaction_id,
    payoutAmount,
    appliedMultiplier: '1',
    settleTransactionId,
    settleReason: 'NORMAL_WIN',
    outcome: null,
    settlementData: null,
  });

  it('When a FAILED credit is taken over and an OPEN round settled while their month leaves, then once archived every day reports what its archive holds, and untouched days what they did before', async () => {
    // A credit the casino refused (its round left OPEN): the game repeats it, it is paid, and settles its round.
    const credit = await target('transactions', 'FAILED');
    // Another day's OPEN round, settled by a late credit once some of its day's rounds have left.
    const open = await target('rounds', 'OPEN', credit);
    const acted = { takeover: false, settled: false };
    const takeOver = async () => {
      const existing = await wallet.findTransaction(db, credit.provider_id, credit.transaction_id);
      expect(existing).toMatchObject({ status: 'FAILED', archived: false });
      const owner = { providerId: credit.provider_id, groupId: credit.group_id, gameId: credit.game_id, playerId: credit.player_id };
      const repeat = movementRecord(owner, 'CASH_IN', credit.transaction_id, credit.round_id, { amount: '7.77', currency: credit.currency, previousTransactionId: credit.previous_transaction_id });
      const claim = await wallet.takeOverTransaction(db, existing!, repeat, { amount: 7.77 }, 30);
      expect(claim).toMatchObject({ attempt: 2 });
      const round = (await client.query(`SELECT * FROM rounds WHERE provider_id = $1 AND round_id = $2`, [credit.provider_id, credit.round_id])).rows[0];
      expect(await recordCreditSuccess(db, paid(claim!, '7.77'), settlement(round, credit.transaction_id, '7.77'))).toBe('SETTLED');
      acted.takeover = true;
    };
    const settleLate = async () => {
      const owner = { providerId: open.provider_id, groupId: open.group_id, gameId: open.game_id, playerId: open.player_id };
      const late = movementRecord(owner, 'CASH_IN', `late-${open.round_id}`, open.round_id, { amount: '5.55', currency: open.currency, previousTransactionId: open.bet_transaction_id });
      const claim = await wallet.claimTransaction(db, late, { amount: 5.55 });
      expect(await recordCreditSuccess(db, paid(claim!, '5.55'), settlement(open, late.transactionId, '5.55'))).toBe('SETTLED');
      acted.settled = true;
    };
    // Between chunks (the job holds no row then), as soon as each target's day has begun to leave.
    const actWhenDue = async (name: RetentionStep) => {
      if (name !== 'legacy-chunk-committed') return;
      if (!acted.takeover && (await dueFor('transactions', credit))) await takeOver();
      if (!acted.settled && (await dueFor('rounds', open))) await settleLate();
    };

    // Killed between chunks right after the takeover; then inside a chunk after its rollups were added
    // (rolled back with its rows); then inside the month's last transaction, after its rollups were replaced.
    let chunksAfterTakeover = 0;
    await expect(
      retentionOn(url, store, async (name) => {
        await actWhenDue(name);
        if (acted.takeover && name === 'legacy-chunk-committed' && (chunksAfterTakeover += 1) === 2) await killJob(client);
      }, 1, batch),
    ).rejects.toThrow(/terminat|Connection/i);
    expect(acted).toEqual({ takeover: true, settled: false });
    await expect(
      retentionOn(url, store, (name) => {
        if (name === 'legacy-chunk-removed') throw new Error('killed inside a chunk');
      }, 1, batch),
    ).rejects.toThrow('killed inside a chunk');
    await expect(
      retentionOn(url, store, async (name) => {
        await actWhenDue(name);
        if (name === 'legacy-rollups-replaced') throw new Error('killed while archiving');
      }, 1, batch),
    ).rejects.toThrow('killed while archiving');
    expect(acted).toEqual({ takeover: true, settled: true });
    expect((await retentionOn(url, store, undefined, 1, batch)).archived).toEqual([label(month)]);

    // Nothing of the month is left to read live or to recount.
    const left = await client.query(
      `SELECT (SELECT count(*)::int FROM rollup_stale_days WHERE day >= $1 AND day < $2) AS stale,
              (SELECT count(*)::int FROM ledger_rollup_unfinished WHERE day >= $1 AND day < $2) AS unfinished,
              (SELECT count(*)::int FROM ledger_removed_transactions) + (SELECT count(*)::int FROM ledger_removed_rounds)
                + (SELECT count(*)::int FROM ledger_removed_players) AS removed`,
      [month, monthsBack(1)],
    );
    expect(left.rows[0]).toEqual({ stale: 0, unfinished: 0, removed: 0 });
    await runRollups(db, { maxDays: 400, closeMarginMs: 0 });

    // The archive, restored into a database of its own: reports there read every row live.
    await restoreMonth(store, label(month), restoreUrl);
    restored = knexFactory({ client: 'pg', connection: restoreUrl, pool: { min: 0, max: 2 } });
    const archivedCredit = await restored.raw(`SELECT status, amount::text, attempt FROM transactions WHERE id = ?`, [credit.id]);
    expect(archivedCredit.rows).toEqual([{ status: 'SUCCESS', amount: '7.77', attempt: 2 }]);
    const archivedRound = await restored.raw(`SELECT status, payout_amount::text AS payout FROM rounds WHERE id = ?`, [open.id]);
    expect(archivedRound.rows).toEqual([{ status: 'SETTLED', payout: '5.55' }]);

    const after = await dailyReport(db);
    expect(after).toEqual(await dailyReport(restored));
    const touched = [credit.day, open.day];
    const of = (report: Record<string, unknown>[], days: string[], keep: boolean) => report.filter((r) => days.includes(r.day as string) === keep);
    // The touched days changed (what the rollups counted before the removal would now be wrong)...
    expect(of(after, touched, true)).not.toEqual(of(reportBefore, touched, true));
    // ...and every other day reports exactly what it did before.
    expect(of(after, touched, false)).toEqual(of(reportBefore, touched, false));
    expect(of(after, touched, false).length).toBeGreaterThan(20);
  }, 300000);
});
