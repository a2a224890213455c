import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { dropDatabase } from '@relay/shared';
import { migrateReporting } from '@relay/ledger';
import { reportRows } from '../src/data/reports';

/**
 * What a report request costs the database: the page, the number of groups and the totals per
 * currency come from ONE statement, which reads the counts (libs/ledger/src/schema/counts.ts) and no ledger row (a
 * report covers whole days): the transactions' and rounds' counts once each, the players' twice (the
 * groups', and the totals' by currency: a player may be in several groups). The figures themselves
 * are checked against plain SQL in ledger-counts.test.ts.
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
  await migrateReporting(url);
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
}, 60000);
// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
}, 120_000);

const cases: { groupBy: ('day' | 'casino' | 'studio' | 'currency')[] }[] = [
  { groupBy: ['day', 'casino', 'currency'] },
  { groupBy: ['studio', 'currency'] },
  { groupBy: ['casino', 'currency'] },
];

describe('When a page of a report is read with its totals', () => {
  it.each(cases)('then one statement answers, and it reads the counts, never the ledger (by $groupBy)', async ({ groupBy }) => {
    const sent: { sql: string; bindings?: unknown[] }[] = [];
    const record = (q: { sql: string; bindings?: unknown[] }) => sent.push(q);
    db.on('query', record);
    const found = await reportRows(db, { type: 'platform' }, { fromDay: dayText(3), toDay: dayText(0) }, groupBy, { limit: 2, offset: 1 });
    db.removeListener('query', record);

    // The page after the first group (one studio here: two groups, EUR and USD).
    expect(found.total).toBeGreaterThanOrEqual(2);
    expect(found.rows).toHaveLength(Math.min(2, found.total - 1));
    expect(found.totals.map((t) => t.currency)).toEqual(['EUR', 'USD']);
    // One read: a SELECT, headed by the CTE of the groups (read by the page and the totals).
    expect(sent.map((q) => q.sql.trim().split(/\s+/)[0].toUpperCase())).toEqual(['WITH']);
    expect(sent[0].sql).toMatch(/^\s*WITH report_groups AS MATERIALIZED \(/);

    const [{ sql, bindings }] = sent;
    const explained = await db.raw(`EXPLAIN (FORMAT JSON) ${sql.replace(/\$\d+/g, '?')}`, (bindings ?? []) as Knex.RawBinding[]);
    const read = scans(explained.rows[0]['QUERY PLAN'][0].Plan);
    const ledger = [...read.keys()].filter((name) => /^(transactions|rounds)(_|$)/.test(name));
    expect({ ledger, counts: Object.fromEntries([...read].filter(([name]) => name.startsWith('ledger_counts_'))) }).toEqual({
      ledger: [],
      counts: { ledger_counts_transactions: 1, ledger_counts_rounds: 1, ledger_counts_players: 2 },
    });
  });
});
