import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { dropDatabase, migrateToLatest } from '@relay/shared';
import { runRollups } from '../../admin/src/ledger/rollups';
import { reportRows } from '../src/data/reports';

/**
 * What a report request costs the database: the page, the number of groups and the totals per
 * currency come from ONE statement that reads each rollup once (its figures, its distinct players
 * per group and in total all from the same pass), not from a second aggregate for the totals.
 * The figures themselves are checked against plain SQL in report-rollups.test.ts.
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_report_once_${Date.now()}_${randomBytes(3).toString('hex')}`;
let db: Knex;

const DAY_MS = 86_400_000;
const startOfToday = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const dayText = (daysAgo: number) => new Date(startOfToday - daysAgo * DAY_MS).toISOString().slice(0, 10);

/** The relations a plan reads, with how many times each is scanned. */
function scans(plan: Record<string, unknown>, into = new Map<string, number>()): Map<string, number> {
  const relation = plan['Relation Name'];
  if (typeof relation === 'string') into.set(relation, (into.get(relation) ?? 0) + 1);
  for (const child of (plan.Plans as Record<string, unknown>[] | undefined) ?? []) scans(child, into);
  return into;
}

beforeAll(async () => {
  await migrateToLatest(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  await db.raw(`SELECT ledger_create_partition(p, (now() - interval '4 days')::date) FROM unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
  const tx: Record<string, unknown>[] = [];
  const rounds: Record<string, unknown>[] = [];
  for (let i = 0; i < 60; i++) {
    const created = new Date(startOfToday - (1 + (i % 3)) * DAY_MS + 3_600_000 + i * 1000).toISOString();
    const common = {
      provider_id: `c${i % 2}`, group_id: 'g1', game_id: 1 + (i % 2), currency: i % 4 < 2 ? 'EUR' : 'USD', player_id: `p${i % 7}`,
      session_id: 's', language: 'en', created_at: created,
    };
    tx.push({
      ...common, id: randomUUID(), transaction_id: `t-${i}`, round_id: `r${i}`, category: i % 3 ? 'CASH_OUT' : 'CASH_IN',
      status: i % 10 ? 'SUCCESS' : 'PENDING', amount: '1.25', request_fingerprint: 'x', claimed_at: created,
    });
    rounds.push({ ...common, id: randomUUID(), round_id: `r${i}`, status: i % 5 ? 'SETTLED' : 'OPEN', bet_amount: '1.25', payout_amount: i % 5 ? '2.00' : null, bet_transaction_id: 'b', opened_at: created });
  }
  await db.batchInsert('transactions', tx, 100);
  await db.batchInsert('rounds', rounds, 100);
  // Two days counted, the last one still live: every part of every source is in the plan.
  await runRollups(db, { closeMarginMs: 0, maxDays: 2 });
}, 60000);
// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
}, 120_000);

describe('When a page of a report is read with its totals', () => {
  it('then one statement answers, and it reads each rollup once', async () => {
    const sent: { sql: string; bindings?: unknown[] }[] = [];
    const record = (q: { sql: string; bindings?: unknown[] }) => sent.push(q);
    db.on('query', record);
    const found = await reportRows(db, { type: 'platform' }, { fromDay: dayText(3), toDay: dayText(0) }, ['day', 'casino', 'currency'], { limit: 2, offset: 1 });
    db.removeListener('query', record);

    expect(found.rows).toHaveLength(2);
    expect(found.total).toBeGreaterThan(2);
    expect(found.totals.map((t) => t.currency)).toEqual(['EUR', 'USD']);
    // One read: a SELECT, headed by the CTE of the listed transactions to look up (computed once for
    // the sums and the players).
    expect(sent.map((q) => q.sql.trim().split(/\s+/)[0].toUpperCase())).toEqual(['WITH']);
    expect(sent[0].sql).toMatch(/^\s*WITH report_listed AS MATERIALIZED \(/);

    const [{ sql, bindings }] = sent;
    const explained = await db.raw(`EXPLAIN (FORMAT JSON) ${sql.replace(/\$\d+/g, '?')}`, (bindings ?? []) as Knex.RawBinding[]);
    const read = scans(explained.rows[0]['QUERY PLAN'][0].Plan);
    expect({
      transactions: read.get('ledger_rollup_transactions'),
      rounds: read.get('ledger_rollup_rounds'),
      // Days counted before the bitmaps existed (none here, but the plan covers them) and the bitmaps
      // without the game nor the studio (the report names neither).
      players: read.get('ledger_rollup_players'),
      bitmapsByCasino: read.get('ledger_rollup_player_bits_by_casino'),
      bitmaps: read.get('ledger_rollup_player_bits_all_games'),
      bitmapsByGame: read.get('ledger_rollup_player_bits'),
    }).toEqual({ transactions: 1, rounds: 1, players: 1, bitmapsByCasino: 1, bitmaps: undefined, bitmapsByGame: undefined });
  });
});
