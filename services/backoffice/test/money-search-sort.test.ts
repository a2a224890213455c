import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { Knex, OperatorScope } from '@relay/shared';
import { replicated, uniqueId } from '../../../test/platform';
import { searchPageQuery, SORTS, type SortOrder } from '../src/data/search';
import type { LedgerTable } from '../src/data/ledger';
import { betBody } from '../../wallet/test/money-support';
import { ledgerMonthsBack, playRound, startMoneyWorld, type MoneyWorld } from './money-support';

/**
 * The search's sorts over real rows: a few rounds played through the gateway (an open one among
 * them, so empty settlement times and payouts) and a few thousand rows written straight into the
 * ledger for one fresh studio across two casinos and three months, with many ties on every sort
 * key. Every sort, both ways, walked page by page with the cursor, must be exactly the SQL
 * ORDER BY over the same rows; the export in the same sort too.
 */
let w: MoneyWorld;
const groupId = uniqueId('grp-sort');
/** Casino B of the world (so a casino account can sign in for it) and one that only has rows. */
let casinos: string[];
const months: string[] = [];

beforeAll(async () => {
  w = await startMoneyWorld();
  casinos = [w.b.providerId, uniqueId('cas-s2')];
  const pa = await w.a.launchPlayer({ balance: 1000 });
  await playRound(w.a, pa, 5, 12.5);
  await playRound(w.a, pa, 5, 0);
  await playRound(w.a, pa, 7.25, 7.25);
  // An open round: a bet without its settling credit.
  expect((await w.a.call('POST', '/api/balance/cash-out', betBody(w.a, pa, { amount: 5 }))).status).toBe(200);
  const pb = await w.b.launchPlayer({ balance: 1000 });
  await playRound(w.b, pb, 9, 0);
  await seedLedger();
}, 120000);
afterAll(async () => {
  await w?.stop();
});

/** ~3000 transactions and ~1300 rounds of one studio, in the months before this one, with ties everywhere. */
async function seedLedger() {
  const db = w.p.db.primary;
  months.push(...(await ledgerMonthsBack(w.p.db, [1, 2])));
  // Few distinct instants and amounts: most sort keys are shared by several rows.
  const instants = months.flatMap((m) => [3, 9, 17, 25].flatMap((d) => [`${m}-${String(d).padStart(2, '0')}T10:00:00.000001Z`, `${m}-${String(d).padStart(2, '0')}T10:00:00.123456Z`, `${m}-${String(d).padStart(2, '0')}T23:59:59.999999Z`]));
  const amounts = ['0.00', '1.00', '2.50', '2.50', '10.00', '99.99', '1000.01'];
  const pick = <T>(xs: T[], i: number, salt: number) => xs[(i * 7919 + salt * 104729) % xs.length];
  const tx: Record<string, unknown>[] = [];
  const rounds: Record<string, unknown>[] = [];
  for (let i = 0; i < 1400; i++) {
    const providerId = casinos[i % 2];
    const at = pick(instants, i, 1);
    const base = { provider_id: providerId, group_id: groupId, game_id: 77, player_id: `pl${i % 13}`, session_id: 's', round_id: `r${i}`, currency: i % 5 ? 'EUR' : 'USD', language: 'en', request_fingerprint: 'x', created_at: at, claimed_at: at };
    const bet = pick(amounts, i, 2);
    const pending = i % 11 === 0;
    tx.push({ ...base, id: randomUUID(), transaction_id: `b${i}`, category: 'CASH_OUT', status: pending ? 'PENDING' : 'SUCCESS', amount: bet, completed_at: pending ? null : pick(instants, i, 3) });
    const open = pending || i % 4 === 0;
    if (!open) tx.push({ ...base, id: randomUUID(), transaction_id: `w${i}`, category: 'CASH_IN', status: 'SUCCESS', amount: pick(amounts, i, 4), previous_transaction_id: `b${i}`, reason: 'NORMAL_WIN', completed_at: pick(instants, i, 5) });
    if (i % 3 === 0) tx.push({ ...base, id: randomUUID(), transaction_id: `f${i}`, category: 'CASH_IN', status: 'FAILED', amount: pick(amounts, i, 6), previous_transaction_id: `b${i}`, reason: 'NORMAL_WIN', completed_at: pick(instants, i, 7) });
    rounds.push({
      id: randomUUID(), provider_id: providerId, round_id: `r${i}`, group_id: groupId, game_id: 77, player_id: `pl${i % 13}`, session_id: 's', currency: base.currency, language: 'en',
      status: open ? 'OPEN' : 'SETTLED', bet_amount: bet, bet_transaction_id: `b${i}`, payout_amount: open ? null : pick(amounts, i, 4), settled_at: open ? null : pick(instants, i, 8), opened_at: at, created_at: at,
    });
  }
  await db.batchInsert('transactions', tx, 500);
  await db.batchInsert('rounds', rounds, 500);
  await db.raw('ANALYZE transactions, rounds');
  // The searches run on the reporting database: its copy of the rows gets its own statistics.
  await replicated();
  await w.p.db.reporting.raw('ANALYZE transactions, rounds');
}

type Call = (method: string, path: string) => Promise<{ status: number; body: any; text: string }>;

/** Every page of a search, following meta.nextCursor; the ids in the order shown. */
async function walk(call: Call, table: LedgerTable, query: string, limit: number): Promise<{ ids: string[]; pages: number; count: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let count = -1;
  do {
    const res = await call('GET', `money/${table}?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect([query, res.status]).toEqual([query, 200]);
    ids.push(...res.body.data.map((r: { id: string }) => r.id));
    count = res.body.meta.totals.count;
    cursor = res.body.meta.nextCursor;
    pages += 1;
  } while (cursor);
  return { ids, pages, count };
}

/** The reference: the same rows ordered in SQL, empty keys last, ties by id against the direction. */
async function sqlOrder(table: LedgerTable, column: string, order: SortOrder, where: Record<string, string>, range?: [string, string]): Promise<string[]> {
  const q = w.p.db.primary(table).where(where).select('id')
    .orderByRaw(`${column} ${order} NULLS LAST, id ${order === 'asc' ? 'desc' : 'asc'}`);
  if (range) q.where('created_at', '>=', range[0]).where('created_at', '<=', range[1]);
  return (await q).map((r: { id: string }) => r.id);
}

const CASES = (Object.keys(SORTS) as LedgerTable[]).flatMap((table) =>
  Object.entries(SORTS[table]).flatMap(([by, column]) => (['desc', 'asc'] as const).map((order) => [table, by, column.column, order] as const)));

describe('When a search is sorted and walked with its cursor', () => {
  it.each(CASES)('then %s by %s (%s) %s is exactly the SQL order of the same rows, ties and empty values included', async (table, by, column, order) => {
    const platform = await w.as('support', { type: 'platform' });
    const expected = await sqlOrder(table, column, order, { group_id: groupId });
    expect(expected.length).toBeGreaterThan(1000);
    const got = await walk(platform, table, `groupId=${groupId}&sortBy=${by}&sortOrder=${order}`, 97);
    expect(got.count).toBe(expected.length);
    expect(got.ids).toEqual(expected);
    expect(got.pages).toBe(Math.ceil(expected.length / 97));
  });

  it('then a casino account walks only its casino, a studio account only its studio, in every sort', async () => {
    const casino = await w.as('finance', { type: 'casino', providerId: casinos[0] });
    const studio = await w.as('support', { type: 'studio', groupId: w.a.groupId });
    for (const [table, by, column, order] of CASES.filter((_c, i) => i % 2 === 0)) {
      const mine = await walk(casino, table, `sortBy=${by}&sortOrder=${order}`, 250);
      expect([table, by, mine.ids]).toEqual([table, by, await sqlOrder(table, column, order, { provider_id: casinos[0] })]);
      const other = await casino('GET', `money/${table}?sortBy=${by}&providerId=${casinos[1]}`);
      expect([other.status, other.body.data, other.body.meta.totals.count]).toEqual([200, [], 0]);
      const own = await walk(studio, table, `sortBy=${by}&sortOrder=${order}`, 3);
      expect([table, by, own.ids]).toEqual([table, by, await sqlOrder(table, column, order, { group_id: w.a.groupId })]);
    }
  });

  it('then a time range and a casino narrow every sort to the same rows the SQL finds', async () => {
    const platform = await w.as('support', { type: 'platform' });
    const range: [string, string] = [`${months[0]}-09T00:00:00.000Z`, `${months[0]}-25T10:00:00.123Z`];
    for (const [table, by, column, order] of CASES) {
      const got = await walk(platform, table, `providerId=${casinos[1]}&from=${range[0]}&to=${range[1]}&sortBy=${by}&sortOrder=${order}`, 50);
      // "to" includes its whole millisecond: 10:00:00.123456 is in.
      const expected = await sqlOrder(table, column, order, { provider_id: casinos[1] }, [range[0], `${months[0]}-25T10:00:00.123999Z`]);
      expect(expected.length).toBeGreaterThan(50);
      expect([table, by, order, got.ids]).toEqual([table, by, order, expected]);
    }
  });

  it('then the rounds played through the gateway sort by settlement, the open round last both ways', async () => {
    const casinoA = await w.as('support', { type: 'casino', providerId: w.a.providerId });
    for (const order of ['desc', 'asc'] as const) {
      const res = await casinoA('GET', `money/rounds?sortBy=settledAt&sortOrder=${order}`);
      const settled = res.body.data.map((r: { settledAt: string | null }) => r.settledAt);
      expect(settled).toHaveLength(4);
      expect(settled[3]).toBeNull();
      const times = settled.slice(0, 3).map((s: string) => Date.parse(s));
      expect(times).toEqual([...times].sort((x, y) => (order === 'asc' ? x - y : y - x)));
      const payouts = await casinoA('GET', `money/rounds?sortBy=payoutAmount&sortOrder=${order}`);
      expect(payouts.body.data.map((r: { payoutAmount: number | null }) => r.payoutAmount)).toEqual(order === 'desc' ? [12.5, 7.25, 0, null] : [0, 7.25, 12.5, null]);
    }
  });

  it('then the CSV export in the same sort holds the same rows in the same order, and names the sort', async () => {
    const finance = await w.as('finance', { type: 'platform' });
    for (const [table, by, column, order] of [['transactions', 'amount', 'amount', 'desc'], ['rounds', 'settledAt', 'settled_at', 'asc']] as const) {
      const res = await finance('GET', `money/${table}.csv?groupId=${groupId}&sortBy=${by}&sortOrder=${order}`);
      expect(res.status).toBe(200);
      expect(res.text.split('\n')[0]).toBe(`# scope: platform; filters: groupId=${groupId}, sortBy=${by}, sortOrder=${order}`);
      const rows: Record<string, string>[] = parse(res.text, { comment: '#', columns: true });
      const byPk = new Map((await w.p.db.primary(table).where({ group_id: groupId }).select('id', table === 'rounds' ? 'round_id as key' : 'transaction_id as key')).map((r: any) => [r.id, r.key]));
      const expected = (await sqlOrder(table, column, order, { group_id: groupId })).map((id) => byPk.get(id));
      expect(rows.map((r) => (table === 'rounds' ? r.roundId : r.transactionId))).toEqual(expected);
    }
  });
});

describe('When a sort is not one the search offers', () => {
  it('then it is 400 Bad Request naming the parameter, for the list and the export alike', async () => {
    const platform = await w.as('support', { type: 'platform' });
    for (const bad of ['money/transactions?sortBy=settledAt', 'money/transactions?sortBy=amount%3Bdrop', 'money/rounds?sortBy=amount', 'money/rounds?sortBy=constructor',
      'money/rounds?sortBy=', 'money/rounds?sortOrder=up', 'money/rounds.csv?sortBy=completedAt', 'money/transactions.csv?sortOrder=sideways']) {
      const res = await platform('GET', bad);
      expect([bad, res.status, res.body.error, res.body.details?.[0]?.path]).toEqual([bad, 400, 'Bad Request', bad.includes('sortOrder') ? 'sortOrder' : 'sortBy']);
    }
  });

  it('then a cursor of one sort is refused under another sort or order', async () => {
    const platform = await w.as('support', { type: 'platform' });
    const first = await platform('GET', `money/transactions?groupId=${groupId}&sortBy=amount&sortOrder=desc&limit=5`);
    const cursor = first.body.meta.nextCursor;
    expect(typeof cursor).toBe('string');
    expect((await platform('GET', `money/transactions?groupId=${groupId}&sortBy=amount&sortOrder=desc&limit=5&cursor=${cursor}`)).status).toBe(200);
    for (const other of ['sortBy=amount&sortOrder=asc', 'sortBy=completedAt&sortOrder=desc', 'sortOrder=desc']) {
      const res = await platform('GET', `money/transactions?groupId=${groupId}&${other}&limit=5&cursor=${cursor}`);
      expect([other, res.status, res.body.error]).toEqual([other, 400, 'Bad Request']);
    }
    const rounds = await platform('GET', `money/rounds?groupId=${groupId}&sortBy=payoutAmount&limit=5&cursor=${cursor}`);
    expect(rounds.status).toBe(400);
  });
});

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Actual Rows'?: number; 'Actual Loops'?: number; 'Rows Removed by Filter'?: number; Plans?: PlanNode[] }
const scans = (n: PlanNode): PlanNode[] => [...(n['Relation Name'] ? [n] : []), ...(n.Plans ?? []).flatMap(scans)];

describe('When a sorted search names a time range or a casino', () => {
  it("then the plan reads only the range's month, never the casino's whole history", async () => {
    await replicated();
    const read = w.p.db.reporting;
    const month = months[0].replace('-', '_');
    const filter = { providerId: casinos[0], from: new Date(`${months[0]}-09T00:00:00Z`), to: new Date(`${months[0]}-17T23:59:59Z`) };
    const scopes: OperatorScope[] = [{ type: 'platform' }, { type: 'casino', providerId: casinos[0] }, { type: 'studio', groupId }];
    const figures: string[] = [];
    for (const scope of scopes) {
      for (const [table, by, , order] of CASES) {
        const { sql, bindings } = searchPageQuery(read, table, scope, filter, 100, { by, order }).toSQL();
        const { rows } = await read.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, bindings as readonly Knex.RawBinding[]);
        const plan = rows[0]['QUERY PLAN'][0];
        const relations = scans(plan.Plan).map((s) => s['Relation Name']);
        expect([scope.type, table, by, order, new Set(relations)]).toEqual([scope.type, table, by, order, new Set([`${table}_p${month}`])]);
        // Rows the scans touched: those they passed on and those their filters dropped.
        const read_ = scans(plan.Plan).reduce((n, s) => n + ((s['Actual Rows'] ?? 0) + (s['Rows Removed by Filter'] ?? 0)) * (s['Actual Loops'] ?? 1), 0);
        const inMonth = Number((await read(`${table}_p${month}`).count({ n: '*' }))[0].n);
        expect(read_).toBeLessThanOrEqual(inMonth);
        figures.push(`${scope.type} ${table} ${by} ${order}: ${read_} rows read of ${inMonth} in the month, ${plan['Execution Time'].toFixed(2)} ms`);
      }
    }
    // The figures the report quotes.
    console.log(figures.join('\n'));
  });
});
