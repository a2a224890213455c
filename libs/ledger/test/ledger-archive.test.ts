import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { createLogger, dropDatabase, ensureDatabaseExists, loadConfig, ServiceMetrics } from '@relay/shared';
import { migrateToLatest } from '../src';
import { startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { applied, betBody, winBody } from '../../../services/wallet/test/money-support';
import { monthRange, sqlFacts, TABLE_SPECS, type Manifest, type TableFacts } from '../src/jobs/archive';
import { ensurePartitions, partitionHealth, registerPartitionMetrics } from '../src/jobs/partitions';
import { pruneKeys, runRetention, type RetentionStep } from '../src/jobs/retention';
import { main as cliMain } from '../src/jobs/cli';
import { ledgerJobs } from '../src/jobs';
import { restoreMonth } from '../src/jobs/restore';
import { LedgerScheduler, runJobOnce, jobLockSql } from '../src/jobs/scheduler';
import { archiveStore } from '../src/jobs/store';
import { verifyChain } from '../src/jobs/verify';

/**
 * The ledger's lifecycle against real PostgreSQL, in a database of this file's own (it drops
 * partitions, which other files sharing the run's database must not see).
 *
 * Getting records into an old month: they are written through the wallet's real money routes
 * (now), then moved, test-only, into a month two or three months back by shifting every timestamp
 * that places them (transactions.created_at, the attempts' transaction_created_at, the keys'
 * created_at, rounds.created_at) by whole days inside one transaction. PostgreSQL moves the rows
 * into the old month's partitions; the records look exactly as if the calls had been made then
 * (within the idempotency window of 120 days), which is what the archive job and the wallet see.
 */
const logger = createLogger({ service: 'ledger-test', level: 'silent' });
const STEPS: RetentionStep[] = ['registered', 'exported-table', 'manifest-written', 'exported', 'locked', 'keys-copied', 'dropped'];

describe('ledger lifecycle: partitions, archives, restore', () => {
  const url = `${process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432'}/relay_ledger_${process.pid}_${Date.now()}`;
  const restoreUrl = `${url}_restore`;
  let p: TestPlatform;
  let g: GameWorld;
  let client: pg.Client;
  let dir: string;
  let store: ReturnType<typeof archiveStore>;
  const monthsBack = (n: number) => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1)).toISOString().slice(0, 10);
  };
  const older = monthsBack(3); // archived first
  const old = monthsBack(2);

  beforeAll(async () => {
    await ensureDatabaseExists(url);
    await migrateToLatest(url);
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'], env: { DATABASE_URL: url } });
    g = await startGameWorld(p);
    client = new pg.Client({ connectionString: url });
    await client.connect();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'relay-ledger-archive-'));
    store = archiveStore({ LEDGER_ARCHIVE_DIR: dir, LEDGER_ARCHIVE_S3_REGION: 'us-east-1', LEDGER_ARCHIVE_S3_PREFIX: '' });
  }, 60000);

  // DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
  afterAll(async () => {
    await client?.end();
    await p?.stop();
    await g?.sandbox.close();
    await dropDatabase(url).catch(() => undefined);
    await dropDatabase(restoreUrl).catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  }, 120_000);

  /** Test-only: moves one provider's records of this test (by transaction and round ids) into `month`, keeping day and time offsets. */
  async function moveIntoMonth(month: string, transactionIds: string[], roundIds: string[]): Promise<void> {
    for (const spec of TABLE_SPECS) await client.query('SELECT ledger_create_partition($1, $2::date)', [spec.table, month]);
    const shift = `(date_trunc('month', now() AT TIME ZONE 'UTC')::date - $2::date) * interval '1 day'`;
    await client.query('BEGIN');
    await client.query(
      `UPDATE transaction_attempts a SET transaction_created_at = a.transaction_created_at - ${shift}
         FROM transactions t WHERE t.id = a.transaction_pk AND t.provider_id = $1 AND t.transaction_id = ANY($3)`,
      [g.providerId, month, transactionIds],
    );
    await client.query(`UPDATE transaction_keys SET created_at = created_at - ${shift} WHERE provider_id = $1 AND transaction_id = ANY($3)`, [
      g.providerId,
      month,
      transactionIds,
    ]);
    await client.query(
      `UPDATE transactions SET created_at = created_at - ${shift}, settled_by_at = settled_by_at - ${shift} WHERE provider_id = $1 AND transaction_id = ANY($3)`,
      [g.providerId, month, transactionIds],
    );
    await client.query(`UPDATE round_keys SET created_at = created_at - ${shift} WHERE provider_id = $1 AND round_id = ANY($3)`, [g.providerId, month, roundIds]);
    await client.query(`UPDATE rounds SET created_at = created_at - ${shift} WHERE provider_id = $1 AND round_id = ANY($3)`, [g.providerId, month, roundIds]);
    await client.query('COMMIT');
  }

  async function monthFacts(month: string): Promise<Record<string, TableFacts>> {
    const facts: Record<string, TableFacts> = {};
    for (const spec of TABLE_SPECS) facts[spec.table] = await sqlFacts(client, spec, month);
    return facts;
  }

  /** `npm run ledger -- ...` in this process: its exit code, with this file's database and archive directory. */
  async function cli(args: string[]): Promise<number> {
    const saved = { ...process.env };
    Object.assign(process.env, { DATABASE_URL: url, LEDGER_ARCHIVE_DIR: dir, LOG_LEVEL: 'silent' });
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      return await cliMain(args);
    } finally {
      write.mockRestore();
      process.env = saved;
    }
  }

  const retention = (step?: (name: RetentionStep, month: string) => void | Promise<unknown>) =>
    runRetention(client, { retentionMonths: 1, idempotencyDays: 120, store, logger, step: step as (name: RetentionStep, month: string) => Promise<void> });

  describe('partitions ahead of time', () => {
    it('When months_ahead is raised and the job runs, then every money table has partitions that far ahead and the gauge says so', async () => {
      const query = (sql: string) => client.query(sql);
      expect((await partitionHealth(query)).monthsAhead).toEqual({ transactions: 3, transaction_attempts: 3, rounds: 3 });
      // The admin service's job, as configured by LEDGER_PARTITIONS_AHEAD_MONTHS.
      const config = loadConfig({ ...process.env, DATABASE_URL: url, LEDGER_PARTITIONS_AHEAD_MONTHS: '5' });
      const job = ledgerJobs(config, logger).find((j) => j.name === 'partitions')!;
      expect(await runJobOnce(url, job, logger)).toBe(true);
      const health = await partitionHealth(query);
      expect(health.monthsAhead).toEqual({ transactions: 5, transaction_attempts: 5, rounds: 5 });
      const { rows } = await client.query(`SELECT parent_table FROM ledger_partitions WHERE month = (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '5 months')::date`);
      expect(rows.map((r) => r.parent_table).sort()).toEqual(['rounds', 'transaction_attempts', 'transactions']);
    });

    it('When a row is written for a month with no partition, then it lands in the default partition and moves into its month when the job creates it', async () => {
      const query = (sql: string) => client.query(sql);
      const when = `(date_trunc('month', now() AT TIME ZONE 'UTC') + interval '8 months 3 days')`;
      await client.query(
        `INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language, status, bet_amount, bet_transaction_id, opened_at, created_at)
         VALUES (gen_random_uuid(), 'future-casino', 'future-round', 'g', 1, 'p', 's', 'EUR', 'en', 'OPEN', 1.00, 'b', now(), ${when})`,
      );
      expect((await partitionHealth(query)).defaultRows.rounds).toBe(1);
      await ensurePartitions(client, 8);
      expect((await partitionHealth(query)).defaultRows.rounds).toBe(0);
      const { rows } = await client.query(`SELECT tableoid::regclass::text AS part FROM rounds WHERE round_id = 'future-round'`);
      expect(rows[0].part).toMatch(/^rounds_p\d{4}_\d{2}$/);
      await client.query(`DELETE FROM rounds WHERE round_id = 'future-round'`);
    });

    it('When /metrics is scraped, then the months ahead and the default partitions\' rows of every money table are there', async () => {
      const metrics = new ServiceMetrics('admin');
      registerPartitionMetrics(metrics, (sql) => client.query(sql));
      const text = await metrics.registry.metrics();
      const ahead = (await partitionHealth((sql) => client.query(sql))).monthsAhead.rounds;
      expect(ahead).toBeGreaterThanOrEqual(3);
      for (const table of ['transactions', 'transaction_attempts', 'rounds']) {
        expect(text).toContain(`relay_ledger_partition_months_ahead{table="${table}",service="admin"} ${ahead}`);
        expect(text).toContain(`relay_ledger_default_partition_rows{table="${table}",service="admin"} 0`);
      }
    });

    it('When another process holds a job lock, then the job is skipped, not run twice', async () => {
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      try {
        await other.query(jobLockSql, ['partitions']);
        let ran = false;
        expect(await runJobOnce(url, { name: 'partitions', intervalMs: 1000, run: async () => void (ran = true) }, logger)).toBe(false);
        expect(ran).toBe(false);
      } finally {
        await other.end();
      }
      expect(await runJobOnce(url, { name: 'partitions', intervalMs: 1000, run: async () => undefined }, logger)).toBe(true);
    });
  });

  describe('keys past the idempotency window', () => {
    it('When keys are older than IDEMPOTENCY_RETENTION_DAYS, then the job deletes them in batches and keeps the younger ones', async () => {
      const provider = `prune-${process.pid}`;
      await client.query(
        `INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at)
         SELECT $1, 't' || i, gen_random_uuid(), now() - make_interval(days => CASE WHEN i <= 5 THEN 121 ELSE 119 END) FROM generate_series(1, 8) i`,
        [provider],
      );
      await client.query(
        `INSERT INTO round_keys (provider_id, round_id, id, created_at)
         SELECT $1, 'r' || i, gen_random_uuid(), now() - make_interval(days => CASE WHEN i <= 3 THEN 200 ELSE 1 END) FROM generate_series(1, 4) i`,
        [provider],
      );
      expect(await pruneKeys(client, 120, 2)).toBe(8);
      const left = await client.query(
        `SELECT (SELECT array_agg(transaction_id ORDER BY transaction_id) FROM transaction_keys WHERE provider_id = $1) AS t,
                (SELECT array_agg(round_id) FROM round_keys WHERE provider_id = $1) AS r`,
        [provider],
      );
      expect(left.rows[0]).toEqual({ t: ['t6', 't7', 't8'], r: ['r4'] });
    });
  });

  describe('the scheduler', () => {
    it('When two replicas schedule the same job, then its runs never overlap, and after stop no run starts', async () => {
      let running = 0;
      let most = 0;
      let runs = 0;
      const job = {
        name: `overlap-${process.pid}`,
        intervalMs: 20,
        run: async () => {
          running += 1;
          runs += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 60));
          running -= 1;
        },
      };
      const replicas = [new LedgerScheduler(url, logger, [job]), new LedgerScheduler(url, logger, [job])];
      replicas.forEach((r) => r.start());
      // Several runs, however slowly a loaded machine gets them going (each takes 60 ms).
      for (const until = Date.now() + 10_000; runs < 3 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 20));
      await Promise.all(replicas.map((r) => r.stop()));
      expect(runs).toBeGreaterThanOrEqual(3);
      expect(most).toBe(1);
      const after = runs;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(runs).toBe(after);
    });
  });

  describe('retention with verifiable archives', () => {
    const paid = { body: undefined as unknown, bet: undefined as unknown as ReturnType<typeof betBody> };
    const failed = { bet: undefined as unknown as ReturnType<typeof betBody>, playerId: '' };
    const before: Record<string, Record<string, TableFacts>> = {};

    beforeAll(async () => {
      // Older month: a paid bet settled by a win, and a bet the casino refused.
      const pl = await g.launchPlayer({ balance: 100 });
      paid.bet = betBody(g, pl, { amount: 12.34 });
      const res = await g.call('POST', '/api/balance/cash-out', paid.bet);
      expect(res.status).toBe(200);
      paid.body = res.body;
      const win = winBody(g, pl, paid.bet, { amount: 20.5 });
      expect((await g.call('POST', '/api/balance/cash-in', win)).status).toBe(200);
      const poor = await g.launchPlayer({ balance: 5 });
      failed.bet = betBody(g, poor, { amount: 10 });
      failed.playerId = poor.playerId;
      expect((await g.call('POST', '/api/balance/cash-out', failed.bet)).status).toBe(400);
      await moveIntoMonth(older, [paid.bet.transactionId, win.transactionId, failed.bet.transactionId], [paid.bet.roundId, failed.bet.roundId]);

      // Old month: two more bets.
      const ids: string[] = [];
      const rounds: string[] = [];
      for (const amount of [3.33, 7.01]) {
        const bet = betBody(g, pl, { amount });
        expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
        ids.push(bet.transactionId);
        rounds.push(bet.roundId);
      }
      await moveIntoMonth(old, ids, rounds);
      before[older] = await monthFacts(older);
      before[old] = await monthFacts(old);
      expect(before[older].transactions.rows).toBe(3);
      expect(before[old].transactions.rows).toBe(2);
    }, 60000);

    it('When the retention job is killed at each step in turn, then nothing is lost and the next run finishes', async () => {
      for (const step of STEPS) {
        await expect(
          retention((name) => {
            if (name === step) throw new Error(`killed at ${step}`);
          }),
        ).rejects.toThrow(`killed at ${step}`);
        // Killed before the drop committed: the month is whole in the database.
        expect(await monthFacts(older)).toEqual(before[older]);
        const { rows } = await client.query(`SELECT state FROM ledger_archives WHERE month = $1`, [older]);
        expect(rows[0].state).not.toBe('archived');
      }
      // A row of the month changed after its export (a late outcome) is caught under the lock: the month is exported again.
      let exports = 0;
      const result = await retention((name, month) => {
        if (name !== 'exported' || month !== older.slice(0, 7)) return;
        exports += 1;
        if (exports === 1) {
          return client.query(`UPDATE transactions SET error_message = 'changed after the export' WHERE provider_id = $1 AND transaction_id = $2`, [
            g.providerId,
            failed.bet.transactionId,
          ]);
        }
      });
      expect(exports).toBe(2);
      expect(gunzipSync(await fs.readFile(path.join(dir, older.slice(0, 7), 'transactions.csv.gz'))).toString()).toContain('changed after the export');
      expect(result.archived).toEqual([older.slice(0, 7), old.slice(0, 7)]);
      const { rows } = await client.query(`SELECT to_char(month, 'YYYY-MM-DD') AS month, state FROM ledger_archives ORDER BY month`);
      expect(rows).toEqual([
        { month: older, state: 'archived' },
        { month: old, state: 'archived' },
      ]);
      const parts = await client.query(`SELECT partition FROM ledger_partitions WHERE month IN ($1::date, $2::date)`, [older, old]);
      expect(parts.rows).toEqual([]);
      // The manifest's counts and sums are the database's before the drop.
      for (const month of [older, old]) {
        const manifest = JSON.parse(await fs.readFile(path.join(dir, month.slice(0, 7), 'manifest.json'), 'utf8')) as Manifest;
        for (const spec of TABLE_SPECS) {
          expect({ rows: manifest.tables[spec.table].rows, sums: manifest.tables[spec.table].sums }).toEqual(before[month][spec.table]);
        }
      }
      // Nothing left to do: a rerun archives nothing.
      expect((await retention()).archived).toEqual([]);
    }, 60000);

    it('When a SUCCESS transactionId of an archived month is repeated within the window, then the stored answer is replayed and the casino is not called', async () => {
      const calls = g.sandbox.countCalls({ providerId: g.providerId, transactionId: paid.bet.transactionId });
      const again = await g.call('POST', '/api/balance/cash-out', { ...paid.bet, amount: 99 });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(paid.body);
      expect(g.sandbox.countCalls({ providerId: g.providerId, transactionId: paid.bet.transactionId })).toBe(calls);
      expect(applied(g, paid.bet.transactionId)).toBe(1);
    });

    it('When a FAILED transactionId of an archived month is repeated, then it is revived into the current month and succeeds once at the casino', async () => {
      g.sandbox.setBalance(g.providerId, failed.playerId, 50);
      const retry = await g.call('POST', '/api/balance/cash-out', failed.bet);
      expect(retry.status).toBe(200);
      expect(retry.body.balance).toBe(40);
      const again = await g.call('POST', '/api/balance/cash-out', failed.bet);
      expect(again.body).toEqual(retry.body);
      expect(applied(g, failed.bet.transactionId)).toBe(1);
      const { rows } = await client.query(
        `SELECT status, attempt, created_at >= date_trunc('month', now()) AS current_month FROM transactions WHERE provider_id = $1 AND transaction_id = $2`,
        [g.providerId, failed.bet.transactionId],
      );
      expect(rows).toEqual([{ status: 'SUCCESS', attempt: 2, current_month: true }]);
    });

    it('When the chain is intact it verifies; a removed month or an edited file is reported', async () => {
      expect(await verifyChain(client, store, { deep: true })).toEqual({ months: [older.slice(0, 7), old.slice(0, 7)], problems: [] });

      const olderDir = path.join(dir, older.slice(0, 7));
      await fs.rename(olderDir, `${olderDir}.gone`);
      const removed = await verifyChain(client, store);
      expect(removed.problems.join('\n')).toMatch(/manifest missing/);
      expect(await cli(['verify'])).toBe(1);
      await fs.rename(`${olderDir}.gone`, olderDir);

      const file = path.join(dir, old.slice(0, 7), 'transactions.csv.gz');
      const original = await fs.readFile(file);
      await fs.writeFile(file, Buffer.concat([original, Buffer.from([0])]));
      const edited = await verifyChain(client, store);
      expect(edited.problems.join('\n')).toMatch(/transactions: sha256 .* differs/);
      await fs.writeFile(file, original);

      // A manifest rewritten to hide an edit breaks the registry's hash and the next month's link.
      const manifestFile = path.join(olderDir, 'manifest.json');
      const manifestText = await fs.readFile(manifestFile, 'utf8');
      await fs.writeFile(manifestFile, manifestText.replace('"rows": 3', '"rows": 2'));
      expect((await verifyChain(client, store)).problems.join('\n')).toMatch(/manifest sha256 .* differs from the registry/);
      await fs.writeFile(manifestFile, manifestText);
      expect((await verifyChain(client, store)).problems).toEqual([]);
      expect(await cli(['verify', '--deep'])).toBe(0);
    });

    it('When a long query holds a money table, then the drop gives up after its short lock wait (money calls are held up no longer), the month stays whole, and a later run finishes', async () => {
      const last = monthsBack(1);
      const pl = await g.launchPlayer({ balance: 100 });
      const bet = betBody(g, pl, { amount: 1.11 });
      expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
      // And a bet the casino refused, repeated (taken over) before the month's export: see below.
      const poor = await g.launchPlayer({ balance: 1 });
      const refused = betBody(g, poor, { amount: 2.22 });
      expect((await g.call('POST', '/api/balance/cash-out', refused)).status).toBe(400);
      await moveIntoMonth(last, [bet.transactionId, refused.transactionId], [bet.roundId]);
      const facts = await monthFacts(last);
      const reader = new pg.Client({ connectionString: url });
      await reader.connect();
      try {
        await reader.query('BEGIN');
        await reader.query('SELECT count(*) FROM rounds');
        const job = runRetention(client, { retentionMonths: 0, idempotencyDays: 120, store, logger, parentLockTimeoutMs: 200 });
        const outcome = job.then(() => 'finished', (err: Error) => err.message);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const started = Date.now();
        const other = await g.call('POST', '/api/balance/cash-out', betBody(g, pl, { amount: 1 }));
        expect(other.status).toBe(200);
        // Held up at most by the drop's 200 ms lock wait, not by the 5 s one of the other steps: a sanity
        // bound with room for a loaded machine, not a speed check.
        expect(Date.now() - started).toBeLessThan(3000);
        expect(await outcome).toMatch(/lock timeout/);
      } finally {
        await reader.query('ROLLBACK').catch(() => undefined);
        await reader.end();
      }
      expect(await monthFacts(last)).toEqual(facts);
      // The refused bet repeated: taken over and paid before the month's export.
      g.sandbox.setBalance(g.providerId, poor.playerId, 50);
      expect((await g.call('POST', '/api/balance/cash-out', refused)).status).toBe(200);
      const day = `(created_at AT TIME ZONE 'UTC')::date`;
      // The month's rows as they are archived, by the counts' key.
      const { lo, hi } = monthRange(last);
      const rowsAsRollups = (from: string) =>
        client.query(
          `SELECT ${day} AS day, group_id, provider_id, game_id, currency, category, status, count(*)::int AS n, sum(amount)::text AS amount
             FROM ${from} WHERE created_at >= $1 AND created_at < $2 GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
          [lo, hi],
        );
      const archived = (await rowsAsRollups('transactions')).rows;
      expect(archived.map((r) => r.status)).toEqual(expect.arrayContaining(['SUCCESS']));
      expect(archived.map((r) => r.status)).not.toContain('FAILED');

      expect((await runRetention(client, { retentionMonths: 0, idempotencyDays: 120, store, logger })).archived).toEqual([last.slice(0, 7)]);
      // The month left the money database whole (its rows as above are in the archive: the deep verification below).
      expect((await rowsAsRollups('transactions')).rows).toEqual([]);
      expect(await verifyChain(client, store, { deep: true })).toEqual({ months: [older, old, last].map((m) => m.slice(0, 7)), problems: [] });
    }, 60000);

    it('When a month is restored into another database, then its counts and sums equal the manifest and the pre-archive SQL; a second restore is refused', async () => {
      const report = await restoreMonth(store, older.slice(0, 7), restoreUrl);
      expect(report.tables).toEqual(before[older]);
      const target = new pg.Client({ connectionString: restoreUrl });
      await target.connect();
      try {
        for (const spec of TABLE_SPECS) expect(await sqlFacts(target, spec, older)).toEqual(before[older][spec.table]);
        const { rows } = await target.query(`SELECT status, amount::text FROM transactions WHERE transaction_id = $1`, [paid.bet.transactionId]);
        expect(rows).toEqual([{ status: 'SUCCESS', amount: '12.34' }]);
      } finally {
        await target.end();
      }
      await expect(restoreMonth(store, older.slice(0, 7), restoreUrl)).rejects.toThrow(/refusing to overwrite/);
    });
  });
});
