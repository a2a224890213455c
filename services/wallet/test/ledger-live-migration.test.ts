import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import pg from 'pg';
import { dropDatabase, ensureDatabaseExists, migrateToLatest, migrationSource, runPrepared, type Knex } from '@relay/shared';
import { migrateLive } from '../../admin/src/ledger/live-migration';
import { partitionHealth } from '../../admin/src/ledger/partitions';
import * as current from '../src/data/transactions';
import * as currentRounds from '../src/data/rounds';
import * as legacy from './legacy-release/transactions';
import * as legacyRounds from './legacy-release/rounds';
import { movementRecord } from './movement-records';
import { fillOldLayout } from './legacy-ledger';

/**
 * `npm run ledger -- migrate-live` (services/admin/src/ledger/live-migration.ts) moves a ledger on
 * the layout before 007 to the partitioned layout while money calls run:
 * - under a stream of money calls (the old release's statements while the old tables are
 *   prepared, the current release's from then on, through the switch), every record, attempt,
 *   round, key and sum is there afterwards, ids claimed before replay and are refused a second
 *   claim, and no money call failed; the longest wait of a money call is printed;
 * - interrupted at every step (a throw, a killed connection, a switch that cannot get its locks)
 *   and run again, nothing is lost;
 * - 007 refuses to copy a large ledger offline, and refuses while a live migration is half-way.
 *
 * LIVE_MIGRATION_ROUNDS (default 3,000) scales the old data: two transactions and attempts per round.
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ROUNDS = Number(process.env.LIVE_MIGRATION_ROUNDS ?? 3000);
const dbUrl = (what: string) => `${base}/relay_live_migration_${what}_${Date.now()}_${randomBytes(3).toString('hex')}`;
const created: string[] = [];

async function legacyDatabase(rounds: number): Promise<{ url: string; db: Knex }> {
  const url = dbUrl(String(created.length));
  created.push(url);
  await ensureDatabaseExists(url);
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 8 } });
  const names = (await migrationSource.getMigrations([])) as string[];
  for (const name of names.filter((n) => n < '007')) await db.migrate.up({ migrationSource, name });
  await fillOldLayout(db, rounds);
  return { url, db };
}

const SUMS = `SELECT provider_id, currency, category, status, count(*)::int AS n, sum(amount)::text AS s FROM transactions GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;
const ROUND_SUMS = `SELECT provider_id, currency, status, count(*)::int AS n, sum(bet_amount)::text AS bets, sum(payout_amount)::text AS payouts FROM rounds GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;

interface Snapshot {
  sums: unknown[];
  rounds: unknown[];
  attempts: number;
}
async function snapshot(db: Knex): Promise<Snapshot> {
  return {
    sums: (await db.raw(SUMS)).rows,
    rounds: (await db.raw(ROUND_SUMS)).rows,
    attempts: Number((await db.raw('SELECT count(*) AS n FROM transaction_attempts')).rows[0].n),
  };
}

/**
 * Games playing against the wallet's statements: per round a bet (claim, then the success that
 * opens the round), a win that settles it, and a replay of an earlier transactionId. `release`
 * says whose statements a round uses; switching waits for the rounds of the old one to finish
 * (as a deploy drains the old instances).
 */
class MoneyStream {
  release: 'legacy' | 'current' = 'legacy';
  waits: { at: number; ms: number; release: string; what: string }[] = [];
  errors: string[] = [];
  /** Bets and wins that completed: transactionId -> amount. */
  journal = new Map<string, string>();
  private running = true;
  private active = { legacy: 0, current: 0 };
  private loops: Promise<void>[] = [];
  private n = 0;

  constructor(private db: Knex, private replayable: string[]) {}

  start(workers: number): void {
    for (let w = 0; w < workers; w += 1) this.loops.push(this.loop(w));
  }

  async useCurrentRelease(): Promise<void> {
    this.release = 'current';
    while (this.active.legacy > 0) await new Promise((r) => setTimeout(r, 5));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async timed<T>(what: string, release: string, run: () => Promise<T>): Promise<T> {
    const t0 = process.hrtime.bigint();
    try {
      return await run();
    } finally {
      this.waits.push({ at: Date.now(), ms: Number(process.hrtime.bigint() - t0) / 1e6, release, what });
    }
  }

  private async loop(worker: number): Promise<void> {
    while (this.running) {
      const release = this.release;
      this.active[release] += 1;
      try {
        await this.round(worker, release);
      } catch (err) {
        this.errors.push(`${release}: ${(err as Error).message}`);
      } finally {
        this.active[release] -= 1;
      }
    }
  }

  private async round(worker: number, release: 'legacy' | 'current'): Promise<void> {
    const i = (this.n += 1);
    const owner = { providerId: 'cas-live', groupId: 'grp-0', gameId: 7, playerId: `p-live-${worker}` };
    const roundId = `rl-${i}`;
    const amount = `${(i % 50) + 1}.25`;
    const bet = movementRecord(owner, 'CASH_OUT', `bl-${i}`, roundId, { amount, betAmount: amount });
    const win = movementRecord(owner, 'CASH_IN', `wl-${i}`, roundId, { amount: '2.00', previousTransactionId: bet.transactionId });
    const t = release === 'legacy' ? legacy : current;
    const r = release === 'legacy' ? legacyRounds : currentRounds;
    const facts = { balance: '100.00', username: null, casinoStatus: 200, casinoBody: '{}' };
    const betClaim = await this.timed('claim', release, () => t.claimTransaction(this.db, bet as never, { amount }));
    if (!betClaim) throw new Error(`bet ${bet.transactionId} not claimed`);
    const opened = await this.timed('debit success', release, () =>
      r.recordDebitSuccess(this.db, { ...facts, claim: betClaim as never }, {
        providerId: owner.providerId, roundId, groupId: owner.groupId, gameId: owner.gameId, playerId: owner.playerId,
        sessionId: 's', currency: 'EUR', language: 'en', betAmount: amount, betTransactionId: bet.transactionId, gameData: null,
      }),
    );
    if (opened !== 'OPENED') throw new Error(`round ${roundId}: ${opened}`);
    this.journal.set(bet.transactionId, amount);
    const winClaim = await this.timed('claim', release, () => t.claimTransaction(this.db, win as never, { amount: 2 }));
    if (!winClaim) throw new Error(`win ${win.transactionId} not claimed`);
    const settled = await this.timed('credit success', release, () =>
      r.recordCreditSuccess(this.db, { ...facts, claim: winClaim as never }, {
        providerId: owner.providerId, roundId, groupId: owner.groupId, gameId: owner.gameId, playerId: owner.playerId,
        previousTransactionId: bet.transactionId, payoutAmount: '2.00', appliedMultiplier: '2', settleTransactionId: win.transactionId,
        settleReason: 'NORMAL_WIN', outcome: 'win', settlementData: null,
      }),
    );
    if (settled !== 'SETTLED') throw new Error(`round ${roundId}: ${settled}`);
    this.journal.set(win.transactionId, '2.00');
    // A game repeating an earlier call: an id from before the migration, or one of this stream's.
    const [providerId, transactionId] = i % 2 === 0 ? this.replayable[i % this.replayable.length].split('/') : ['cas-live', `bl-${Math.max(1, i - 7)}`];
    const found = await this.timed('replay', release, () => t.findTransaction(this.db, providerId, transactionId));
    if (providerId !== 'cas-live' || i > 8) {
      if (!found || found.status !== 'SUCCESS') throw new Error(`replay of ${providerId}/${transactionId}: ${found?.status ?? 'not found'}`);
    }
  }
}

/** The ledger after the switch: everything of `before` and of the stream, each record with its key, in its partition. */
async function expectWholeLedger(db: Knex, before: Snapshot, journal: Map<string, string>): Promise<void> {
  const old = (rows: { provider_id: string }[]) => rows.filter((r) => r.provider_id !== 'cas-live');
  const after = await snapshot(db);
  expect(old(after.sums as never)).toEqual(before.sums);
  expect(old(after.rounds as never)).toEqual(before.rounds);
  const stream = (await db.raw(`SELECT count(*)::int AS n, coalesce(sum(amount), 0)::text AS s, count(*) FILTER (WHERE status <> 'SUCCESS')::int AS unfinished
                                  FROM transactions WHERE provider_id = 'cas-live'`)).rows[0];
  const journalSum = [...journal.values()].reduce((s, a) => s + Math.round(Number(a) * 100), 0);
  expect(stream).toEqual({ n: journal.size, s: (journalSum / 100).toFixed(2), unfinished: 0 });
  const streamAttempts = Number((await db.raw(`SELECT count(*) AS n FROM transaction_attempts a JOIN transactions t ON t.id = a.transaction_pk WHERE t.provider_id = 'cas-live'`)).rows[0].n);
  expect(after.attempts).toBe(before.attempts + streamAttempts);
  expect(streamAttempts).toBe(journal.size);

  const keys = (await db.raw(`SELECT
      (SELECT count(*) FROM transaction_keys)::int AS tx_keys, (SELECT count(*) FROM transactions)::int AS txs,
      (SELECT count(*) FROM round_keys)::int AS round_keys, (SELECT count(*) FROM rounds)::int AS rounds,
      (SELECT count(*) FROM transaction_keys k JOIN transactions t ON t.id = k.id AND t.created_at = k.created_at
        AND t.provider_id = k.provider_id AND t.transaction_id = k.transaction_id)::int AS tx_matched,
      (SELECT count(*) FROM round_keys k JOIN rounds r ON r.id = k.id AND r.created_at = k.created_at
        AND r.provider_id = k.provider_id AND r.round_id = k.round_id)::int AS rounds_matched,
      (SELECT count(*) FROM transaction_attempts a JOIN transactions t ON t.id = a.transaction_pk AND t.created_at = a.transaction_created_at)::int AS attempts_matched,
      (SELECT count(*) FROM transaction_attempts)::int AS attempts`)).rows[0];
  expect(keys.tx_keys).toBe(keys.txs);
  expect(keys.tx_matched).toBe(keys.txs);
  expect(keys.round_keys).toBe(keys.rounds);
  expect(keys.rounds_matched).toBe(keys.rounds);
  expect(keys.attempts_matched).toBe(keys.attempts);
  const early = await db.raw(`SELECT b.settled_by_at = c.created_at AS same FROM transactions b JOIN transactions c ON c.id = b.settled_by WHERE b.transaction_id = 'b-100'`);
  expect(early.rows).toEqual([{ same: true }]);

  // The old tables are the first partition of each parent; nothing in the default partitions.
  const layout = await db.raw(`SELECT c.relname, c.relkind::text AS kind, pg_get_expr(c.relpartbound, c.oid) AS bound
                                 FROM pg_class c WHERE c.relname IN ('transactions', 'transactions_legacy', 'transaction_attempts_legacy', 'rounds_legacy') ORDER BY 1`);
  expect(layout.rows.map((r: { relname: string; kind: string }) => `${r.relname}:${r.kind}`)).toEqual([
    'rounds_legacy:r', 'transaction_attempts_legacy:r', 'transactions:p', 'transactions_legacy:r',
  ]);
  for (const row of layout.rows.filter((r: { bound: string | null }) => r.bound)) expect(row.bound).toMatch(/^FOR VALUES FROM \(MINVALUE\) TO \('.+'\)$/);
  for (const t of ['transactions', 'transaction_attempts', 'rounds']) {
    expect((await db.raw(`SELECT count(*)::int AS n FROM ${t}_pdefault`)).rows[0].n).toBe(0);
  }
  // The parents' indexes adopted the old tables' (none was left unattached, none built twice).
  const unattached = await db.raw(`SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
                                    WHERE t.relname LIKE '%\\_legacy' AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.oid)`);
  expect(unattached.rows).toEqual([]);

  // Replays through the current release: ids from before the migration, and the stream's.
  for (const [providerId, transactionId] of [['cas-1', 'b-7'], ['cas-2', 'w-r-8'], ['cas-live', 'bl-1'], ['cas-live', [...journal.keys()].at(-1)!]]) {
    const found = await current.findTransaction(db, providerId, transactionId);
    expect({ id: transactionId, status: found?.status, archived: found?.archived }).toEqual({ id: transactionId, status: 'SUCCESS', archived: false });
  }
  const bet = (await db.raw(`SELECT provider_id, group_id, player_id, round_id FROM transactions WHERE transaction_id = 'b-7'`)).rows[0];
  const again = movementRecord({ providerId: bet.provider_id, groupId: bet.group_id, gameId: 7, playerId: bet.player_id }, 'CASH_OUT', 'b-7', bet.round_id);
  expect((await runPrepared(db, current.claimStatement(again, { amount: 1 }))).rows).toEqual([]);

  // Partitions ahead: the months the old table covers count; the job's function skips them.
  await db.raw('SELECT ledger_ensure_partitions(3)');
  const health = await partitionHealth((sql) => db.raw(sql));
  for (const table of ['transactions', 'transaction_attempts', 'rounds']) expect(health.monthsAhead[table]).toBeGreaterThanOrEqual(3);
}

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  for (const url of created) await dropDatabase(url).catch(() => undefined);
}, 120_000);

describe('migrate-live: the live migration of a ledger on the layout before 007', () => {
  it('When money calls run through every step, then every record, sum and key is there, replays work, and no call failed', async () => {
    const { url, db } = await legacyDatabase(ROUNDS);
    let stream: MoneyStream | undefined;
    try {
      const before = await snapshot(db);
      const replayable = (await db.raw(`SELECT provider_id || '/' || transaction_id AS id FROM transactions WHERE status = 'SUCCESS' ORDER BY random() LIMIT 200`)).rows.map((r: { id: string }) => r.id);
      stream = new MoneyStream(db, replayable);
      stream.start(4);
      await new Promise((r) => setTimeout(r, 300));
      const log: string[] = [];
      const t0 = Date.now();
      const prepared = await migrateLive(url, { prepareOnly: true, batchSize: Math.max(500, Math.ceil(ROUNDS / 20)), log: (l) => log.push(l) });
      expect(prepared.state).toBe('ready');
      expect(stream.errors).toEqual([]);
      const legacyDone = Date.now();
      // The new release replaces the old one: it runs on the prepared old tables, then through the switch.
      await stream.useCurrentRelease();
      await new Promise((r) => setTimeout(r, 300));
      const switchStart = Date.now();
      const switched = await migrateLive(url, { log: (l) => log.push(l) });
      const switchEnd = Date.now();
      expect(switched.state).toBe('switched');
      await new Promise((r) => setTimeout(r, 300));
      await stream.stop();
      expect(stream.errors).toEqual([]);

      const max = (list: MoneyStream['waits']) => list.reduce((m, w) => (w.ms > m.ms ? w : m), { ms: 0, what: '-', at: 0, release: '-' });
      const inPrepare = stream.waits.filter((w) => w.at >= t0 && w.at <= legacyDone);
      const inSwitch = stream.waits.filter((w) => w.at >= switchStart && w.at <= switchEnd + 50);
      const calls = stream.waits.filter((w) => w.what !== 'replay');
      const sorted = calls.map((w) => w.ms).sort((a, b) => a - b);
      console.log(
        [
          `live migration of ${ROUNDS} old rounds (${ROUNDS * 2} transactions, ${ROUNDS * 2} attempts): steps ${JSON.stringify({ ...prepared.steps, ...switched.steps })} ms, switch tries ${switched.switchTries}`,
          `money calls during the run: ${stream.waits.length} (${stream.journal.size} records written); p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)].toFixed(1)} ms`,
          `longest wait of a money call while preparing (old release): ${max(inPrepare).ms.toFixed(1)} ms (${max(inPrepare).what})`,
          `longest wait of a money call during the switch (current release): ${max(inSwitch).ms.toFixed(1)} ms (${max(inSwitch).what})`,
          `longest wait of a money call over the whole run: ${max(stream.waits).ms.toFixed(1)} ms`,
          ...log.map((l) => `  ${l}`),
        ].join('\n'),
      );
      expect(inSwitch.length).toBeGreaterThan(0);
      // Catalog work only, even on a shared 2-CPU machine: far from the offline copy's minutes.
      expect(max(stream.waits).ms).toBeLessThan(5000);
      await expectWholeLedger(db, before, stream.journal);
    } finally {
      await stream?.stop();
      await db.destroy();
    }
  }, 600000);

  it('When the command is interrupted at each step and run again, then nothing is lost; 007 refuses a large ledger and a half-done live migration', async () => {
    const { url, db } = await legacyDatabase(1000);
    const env = { ...process.env };
    try {
      // 007 would copy under a long lock: refused above LEDGER_OFFLINE_MIGRATION_MAX_ROWS.
      process.env.LEDGER_OFFLINE_MIGRATION_MAX_ROWS = '100';
      await expect(migrateToLatest(url)).rejects.toThrow(/migrate-live/);
      process.env = { ...env };
      const applied = (await db.raw(`SELECT count(*)::int AS n FROM knex_migrations WHERE name >= '007'`)).rows[0].n;
      expect(applied).toBe(0);

      const before = await snapshot(db);
      const journal = new Map<string, string>();
      let n = 0;
      // Money calls between the runs: the old release's while the old tables are the ledger.
      const play = async () => {
        for (let k = 0; k < 3; k += 1) {
          n += 1;
          const owner = { providerId: 'cas-live', groupId: 'grp-0', gameId: 7, playerId: 'p-live' };
          const bet = movementRecord(owner, 'CASH_OUT', `bl-${n}`, `rl-${n}`);
          const claim = await legacy.claimTransaction(db, bet, { amount: 10 });
          await legacyRounds.recordDebitSuccess(db, { claim: claim!, balance: '90.00', username: null, casinoStatus: 200, casinoBody: '{}' }, {
            providerId: 'cas-live', roundId: `rl-${n}`, groupId: 'grp-0', gameId: 7, playerId: 'p-live', sessionId: 's', currency: 'EUR',
            language: 'en', betAmount: '10.00', betTransactionId: bet.transactionId, gameData: null,
          });
          journal.set(bet.transactionId, '10.00');
          const win = movementRecord(owner, 'CASH_IN', `wl-${n}`, `rl-${n}`, { previousTransactionId: bet.transactionId });
          const winClaim = await legacy.claimTransaction(db, win, { amount: 10 });
          await legacyRounds.recordCreditSuccess(db, { claim: winClaim!, balance: '100.00', username: null, casinoStatus: 200, casinoBody: '{}' }, {
            providerId: 'cas-live', roundId: `rl-${n}`, groupId: 'grp-0', gameId: 7, playerId: 'p-live', previousTransactionId: bet.transactionId,
            payoutAmount: '10.00', appliedMultiplier: '1', settleTransactionId: win.transactionId, settleReason: 'NORMAL_WIN', outcome: 'win', settlementData: null,
          });
          journal.set(win.transactionId, '10.00');
        }
      };

      // Each entry: where the run stops (the nth time it passes there), by a throw or by its connection killed.
      const crashes = [
        'after:prepare',
        'backfill:transactions#2',
        'kill backfill:transactions#2',
        'backfill:rounds',
        'backfill:attempts#2',
        'kill backfill:attempts#1',
        'kill in CREATE INDEX CONCURRENTLY',
        'index:transactions_live_id_created',
        'index:transactions_group_created',
        'after:indexes',
        'validate:transactions',
        'validate:transaction_attempts',
        'after:validate',
      ];
      for (const crash of crashes) {
        if (crash === 'kill in CREATE INDEX CONCURRENTLY') {
          // An open write makes the build wait after it has put its (invalid) index in the catalog;
          // the command is killed there, and the next run must drop that index and build it again.
          const writer = new pg.Client({ connectionString: url });
          await writer.connect();
          let killed = false;
          const run = migrateLive(url, {
            checkpoint: async (where) => {
              if (where !== 'after:backfill') return;
              await writer.query('BEGIN');
              await writer.query(`UPDATE transactions SET updated_at = updated_at WHERE transaction_id = 'b-1'`);
              void (async () => {
                for (let i = 0; i < 200 && !killed; i += 1) {
                  const { rows } = await db.raw(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
                                                  WHERE application_name = 'relay-ledger-migrate-live' AND query LIKE 'CREATE UNIQUE INDEX CONCURRENTLY%' AND wait_event_type = 'Lock'`);
                  killed = rows.length > 0;
                  await new Promise((r) => setTimeout(r, 25));
                }
                await writer.query('ROLLBACK');
                await writer.end();
              })();
            },
          });
          await expect(run).rejects.toThrow(/terminat|Connection/i);
          const left = await db.raw(`SELECT x.indisvalid AS valid FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE i.relname = 'transactions_live_id_created'`);
          expect(left.rows).toEqual([{ valid: false }]);
          await play();
          continue;
        }
        const kill = crash.startsWith('kill ');
        const [point, nth] = crash.replace('kill ', '').split('#');
        let seen = 0;
        await expect(
          migrateLive(url, {
            batchSize: 300,
            checkpoint: async (where) => {
              if (where !== point || (seen += 1) !== Number(nth ?? 1)) return;
              if (!kill) throw new Error(`crash at ${crash}`);
              await db.raw(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'relay-ledger-migrate-live'`);
            },
          }),
        ).rejects.toThrow(kill ? /terminat|Connection/i : `crash at ${crash}`);
        await play();
        if (crash === 'backfill:rounds') {
          // Half-way, the migrations (a new release starting too early) refuse to run 007.
          await expect(migrateToLatest(url)).rejects.toThrow(/live migration of the ledger is at step "backfill"/);
        }
      }

      // The switch cannot get its locks behind a long reader: it gives up, nothing changed.
      const reader = new pg.Client({ connectionString: url });
      await reader.connect();
      await reader.query('BEGIN');
      await reader.query('SELECT 1 FROM rounds LIMIT 1');
      process.env.LEDGER_SWITCH_LOCK_TIMEOUT = '300ms';
      await expect(migrateLive(url, { retries: 2 })).rejects.toThrow(/lock timeout/);
      process.env = { ...env };
      await reader.query('COMMIT');
      await reader.end();
      expect((await db.raw(`SELECT step FROM ledger_live_migration`)).rows[0].step).toBe('ready');
      expect((await db.raw(`SELECT relkind::text AS k FROM pg_class WHERE relname = 'transactions'`)).rows[0].k).toBe('r');
      await play();

      const done = await migrateLive(url);
      expect(done.state).toBe('switched');
      await expectWholeLedger(db, before, journal);
      // Run again: nothing to do.
      expect((await migrateLive(url)).state).toBe('switched');
    } finally {
      process.env = env;
      await db.destroy();
    }
  }, 300000);
});
