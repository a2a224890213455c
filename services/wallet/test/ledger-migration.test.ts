import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { dropDatabase, ensureDatabaseExists, migrateToLatest, migrationSource, runPrepared, type Knex } from '@relay/shared';
import { claimStatement, findStatement } from '../src/data/transactions';
import { fillOldLayout } from './legacy-ledger';
import { movementRecord } from './movement-records';

/**
 * 007_ledger_partitions moves a database full of the old single-heap tables into the partitioned
 * layout: every record, attempt and round arrives in its month's partition with its key, the
 * sums per casino and currency are unchanged, and the moved records keep their idempotency (a
 * repeat replays, a second claim is refused).
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_ledger_migration_${Date.now()}_${randomBytes(3).toString('hex')}`;
let db: Knex;

const ROUNDS = 3000;

const SUMS = `SELECT provider_id, currency, category, count(*)::int AS n, sum(amount)::text AS s FROM transactions GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
const ROUND_SUMS = `SELECT provider_id, currency, status, count(*)::int AS n, sum(bet_amount)::text AS bets, sum(payout_amount)::text AS payouts FROM rounds GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;

let before: { sums: unknown[]; rounds: unknown[]; attempts: number };

beforeAll(async () => {
  await ensureDatabaseExists(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  const names = (await migrationSource.getMigrations([])) as string[];
  for (const name of names.filter((n) => n < '007')) await db.migrate.up({ migrationSource, name });
  // A round an hour from 2026-08-01: four months of old-layout data.
  await fillOldLayout(db, ROUNDS, { start: `timestamptz '2026-08-01 00:00:00+00'`, seconds: ROUNDS * 3600 });
  before = {
    sums: (await db.raw(SUMS)).rows,
    rounds: (await db.raw(ROUND_SUMS)).rows,
    attempts: Number((await db.raw('SELECT count(*) AS n FROM transaction_attempts')).rows[0].n),
  };
  await db.destroy();
  await migrateToLatest(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
}, 120000);

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
}, 120_000);

describe('migrating a database of the old layout (007_ledger_partitions)', () => {
  it('When the old tables held four months of money, then every record, attempt and round is in its month with unchanged sums', async () => {
    expect((await db.raw(SUMS)).rows).toEqual(before.sums);
    expect((await db.raw(ROUND_SUMS)).rows).toEqual(before.rounds);
    expect(Number((await db.raw('SELECT count(*) AS n FROM transaction_attempts')).rows[0].n)).toBe(before.attempts);
    // Each month in its own partition, nothing in the default ones.
    const placed = await db.raw(`SELECT tableoid::regclass::text AS part, to_char(created_at AT TIME ZONE 'UTC', 'YYYY_MM') AS month, count(*)::int AS n
                                   FROM transactions GROUP BY 1, 2 ORDER BY 2`);
    expect(placed.rows.length).toBeGreaterThanOrEqual(4);
    for (const row of placed.rows) expect(row.part).toBe(`transactions_p${row.month}`);
    const attemptsElsewhere = await db.raw(`SELECT count(*)::int AS n FROM transaction_attempts a
      WHERE a.tableoid::regclass::text <> 'transaction_attempts_p' || to_char(a.transaction_created_at AT TIME ZONE 'UTC', 'YYYY_MM')`);
    expect(attemptsElsewhere.rows[0].n).toBe(0);
    for (const t of ['transactions', 'transaction_attempts', 'rounds']) {
      expect((await db.raw(`SELECT count(*)::int AS n FROM ${t}_pdefault`)).rows[0].n).toBe(0);
    }
  });

  it('When the records moved, then each has its key, each attempt its transaction, and an early settlement its credit', async () => {
    const keys = await db.raw(`SELECT
        (SELECT count(*) FROM transaction_keys)::int AS tx_keys, (SELECT count(*) FROM transactions)::int AS txs,
        (SELECT count(*) FROM round_keys)::int AS round_keys, (SELECT count(*) FROM rounds)::int AS rounds,
        (SELECT count(*) FROM transaction_keys k JOIN transactions t ON t.id = k.id AND t.created_at = k.created_at
          AND t.provider_id = k.provider_id AND t.transaction_id = k.transaction_id)::int AS matched,
        (SELECT count(*) FROM transaction_attempts a JOIN transactions t ON t.id = a.transaction_pk AND t.created_at = a.transaction_created_at)::int AS attempts_matched`);
    const k = keys.rows[0];
    expect(k.tx_keys).toBe(k.txs);
    expect(k.round_keys).toBe(k.rounds);
    expect(k.matched).toBe(k.txs);
    expect(k.attempts_matched).toBe(before.attempts);
    const early = await db.raw(`SELECT b.settled_by_at = c.created_at AS same FROM transactions b JOIN transactions c ON c.id = b.settled_by
                                 WHERE b.transaction_id = 'b-100'`);
    expect(early.rows).toEqual([{ same: true }]);
  });

  it('When a moved transactionId is repeated, then the key refuses a second claim and the record answers the replay', async () => {
    const bet = (await db.raw(`SELECT provider_id, group_id, player_id, round_id FROM transactions WHERE transaction_id = 'b-7'`)).rows[0];
    const record = movementRecord({ providerId: bet.provider_id, groupId: bet.group_id, gameId: 7, playerId: bet.player_id }, 'CASH_OUT', 'b-7', bet.round_id);
    expect((await runPrepared(db, claimStatement(record, { amount: 1 }))).rows).toEqual([]);
    const found = (await runPrepared<Record<string, unknown>>(db, findStatement(bet.provider_id, 'b-7'))).rows[0];
    expect({ status: found.status, balance: found.balance, archived: found.archived }).toEqual({ status: 'SUCCESS', balance: '100.00', archived: false });
  });
});
