import { randomBytes, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import knexFactory, { type Knex } from 'knex';
import { dropDatabase, type OperatorScope } from '@relay/shared';
import { countTriggersSql, migrateReporting } from '@relay/ledger';
import { DIMENSIONS, reportRows, reportStream, type Dimension, type ReportFilter } from '../src/data/reports';
import { countedSource, searchTotals } from '../src/data/search';
import type { LedgerFilter, LedgerTable } from '../src/data/ledger';
import { withCurrency } from '../src/domain/reports';

/**
 * Reports and search totals from the reporting database's counts (data/reports and data/search
 * over @relay/ledger counts.ts, the counts' triggers) against the plain SQL aggregate over
 * the ledger (written out here), on random data over eight days: several casinos, studios, games,
 * currencies, players, transactions SUCCESS, FAILED and PENDING, rounds OPEN and SETTLED, rows on
 * the very edges of days. Then the ledger changes every way it changes: PENDING answered, OPEN
 * rounds settled, FAILED records taken over (game, amount and player rewritten), rows deleted, new
 * rows today. After each step, random groupings, periods, scopes and filters give the same groups,
 * in the same order, with the same figures to the cent, the same count of groups and the same
 * totals per currency; search totals (count and sums per currency) of random filters, counted or
 * not, over any time range (whole days or any millisecond), equal count(*) and sum() of the rows;
 * and the counts equal a recount from scratch (ledger_counts_rebuild). Distinct players are
 * distinct (casino, player id) (the same ids play at every casino).
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_ledger_counts_${Date.now()}_${randomBytes(3).toString('hex')}`;
let db: Knex;

const GROUPS = ['g1', 'g2', 'g3'];
const CASINOS = ['c1', 'c2', 'c3'];
const GAMES = [1, 2, 3];
const CURRENCIES = ['EUR', 'USD'];
const DAY_MS = 86_400_000;
const DAYS = 8;
const startOfToday = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const dayText = (daysAgo: number) => new Date(startOfToday - daysAgo * DAY_MS).toISOString().slice(0, 10);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)];

/**
 * Random rows from fromDaysAgo to toDaysAgo, some on the first and last microsecond of a day; or,
 * with within, anywhere in that span of ms. By
 * 12 players of each casino named `${players}0`... (the same ids at every casino: different players).
 */
async function fill(rows: number, fromDaysAgo: number, toDaysAgo: number, within?: [number, number], players = 'p'): Promise<void> {
  const tx: Record<string, unknown>[] = [];
  const rounds: Record<string, unknown>[] = [];
  for (let i = 0; i < rows; i++) {
    const dayStart = startOfToday - (fromDaysAgo - Math.floor(Math.random() * (fromDaysAgo - toDaysAgo + 1))) * DAY_MS;
    const edge = within ? 1 : Math.random();
    const at = within
      ? new Date(within[0] + Math.floor(Math.random() * (within[1] - within[0])))
      : new Date(edge < 0.05 ? dayStart : edge < 0.1 ? dayStart + DAY_MS - 1 : dayStart + Math.floor(Math.random() * DAY_MS));
    if (at.getTime() > Date.now() - (within ? 1 : 1000)) continue;
    const created = edge >= 0.05 && edge < 0.1 ? `${at.toISOString().slice(0, 23)}999Z` : at.toISOString(); // 23:59:59.999999
    const common = {
      provider_id: pick(CASINOS), group_id: pick(GROUPS), game_id: pick(GAMES), currency: pick(CURRENCIES), player_id: `${players}${Math.floor(Math.random() * 12)}`,
      session_id: 's', language: 'en', created_at: created,
    };
    const r = Math.random();
    tx.push({
      ...common, id: randomUUID(), transaction_id: `t-${randomUUID()}`, round_id: `r${i}`, category: pick(['CASH_OUT', 'CASH_OUT', 'CASH_IN']),
      status: r < 0.12 ? 'PENDING' : r < 0.27 ? 'FAILED' : 'SUCCESS', amount: (Math.floor(Math.random() * 100000) / 100).toFixed(2),
      request_fingerprint: 'x', claimed_at: created,
    });
    if (Math.random() < 0.6) {
      const settled = Math.random() < 0.75;
      rounds.push({
        ...common, id: randomUUID(), round_id: `r-${randomUUID()}`, status: settled ? 'SETTLED' : 'OPEN', bet_amount: (Math.floor(Math.random() * 10000) / 100).toFixed(2),
        payout_amount: settled ? (Math.floor(Math.random() * 10000) / 100).toFixed(2) : null, bet_transaction_id: 'b', opened_at: created,
      });
    }
  }
  await db.batchInsert('transactions', tx, 500);
  await db.batchInsert('rounds', rounds, 500);
}

let newcomers = 0;

/** The ways the ledger changes: answers, settlements, takeovers that rewrite a record, deletions, new rows today. */
async function change(): Promise<void> {
  await db.raw(`UPDATE transactions SET status = 'SUCCESS', completed_at = now() WHERE id IN (SELECT id FROM transactions WHERE status = 'PENDING' ORDER BY random() LIMIT 40)`);
  await db.raw(`UPDATE transactions SET status = 'FAILED', completed_at = now() WHERE id IN (SELECT id FROM transactions WHERE status = 'PENDING' ORDER BY random() LIMIT 10)`);
  await db.raw(`UPDATE rounds SET status = 'SETTLED', payout_amount = 3.33, settled_at = now() WHERE id IN (SELECT id FROM rounds WHERE status = 'OPEN' ORDER BY random() LIMIT 30)`);
  // A takeover rewrites FAILED records (game, amount, player: what a repeat may change), then the repeat succeeds.
  await db.raw(`UPDATE transactions t SET status = 'PENDING', completed_at = NULL, game_id = 1 + (t.game_id % 3), amount = t.amount + 7.77, player_id = 'p-taken', attempt = attempt + 1
                 WHERE t.id IN (SELECT id FROM transactions WHERE status = 'FAILED' ORDER BY random() LIMIT 5)`);
  await db.raw(`UPDATE transactions SET status = 'SUCCESS', completed_at = now() WHERE player_id = 'p-taken' AND status = 'PENDING'`);
  // Bookkeeping that changes no counted column (the UPDATE trigger's WHEN skips it).
  await db.raw(`UPDATE transactions SET updated_at = now(), balance = 1 WHERE id IN (SELECT id FROM transactions ORDER BY random() LIMIT 20)`);
  // Rows deleted (a replicated DELETE), among them successful cash-outs whose players leave a day.
  await db.raw(`DELETE FROM transactions WHERE id IN (SELECT id FROM transactions WHERE category = 'CASH_OUT' AND status = 'SUCCESS' ORDER BY random() LIMIT 15)`);
  await db.raw(`DELETE FROM rounds WHERE id IN (SELECT id FROM rounds ORDER BY random() LIMIT 10)`);
  await fill(150, 0, 0, [startOfToday, Date.now()]);
  await fill(40, 0, 0, [startOfToday, Date.now()], `new${++newcomers}-`);
}

/** The counts as the triggers kept them, without the empty keys a recount does not write. */
async function counts(): Promise<unknown[]> {
  return Promise.all(['ledger_counts_transactions', 'ledger_counts_rounds', 'ledger_counts_players'].map(async (t) =>
    (await db.raw(`SELECT * FROM ${t} WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5, 6${t === 'ledger_counts_transactions' ? ', 7' : ''}`)).rows));
}

/** The report as plain SQL over the ledger, nothing else. */
async function plainReport(scope: OperatorScope, f: ReportFilter, dims: Dimension[]): Promise<Record<string, unknown>[]> {
  const col: Record<Dimension, string> = {
    day: `to_char((x.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`, casino: 'x.provider_id', studio: 'x.group_id', game: 'x.game_id', currency: 'x.currency',
  };
  const where: string[] = [`x.created_at >= ?::date::timestamp AT TIME ZONE 'UTC'`, `x.created_at < (?::date + 1)::timestamp AT TIME ZONE 'UTC'`];
  const bind: (string | number)[] = [f.fromDay, f.toDay];
  const equal = (column: string, value: string | number | undefined) => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    bind.push(value);
  };
  equal('x.provider_id', scope.type === 'casino' ? scope.providerId : undefined);
  equal('x.group_id', scope.type === 'studio' ? scope.groupId : undefined);
  equal('x.provider_id', f.providerId);
  equal('x.group_id', f.groupId);
  equal('x.game_id', f.gameId);
  equal('x.currency', f.currency);
  const cols = dims.map((d) => `${col[d]} AS ${d}`).join(', ');
  const by = dims.map((_, i) => i + 1).join(', ');
  const list = dims.join(', ');
  const { rows } = await db.raw(
    `WITH tx AS (SELECT ${cols}, count(*) FILTER (WHERE x.category = 'CASH_OUT') AS bets,
                        coalesce(sum(x.amount) FILTER (WHERE x.category = 'CASH_OUT'), 0) AS bet_sum,
                        coalesce(sum(x.amount) FILTER (WHERE x.category = 'CASH_IN'), 0) AS payout_sum,
                        count(DISTINCT (x.provider_id, x.player_id)) FILTER (WHERE x.category = 'CASH_OUT') AS players
                   FROM transactions x WHERE x.status = 'SUCCESS' AND ${where.join(' AND ')} GROUP BY ${by}),
          rd AS (SELECT ${cols}, count(*) FILTER (WHERE x.status = 'SETTLED') AS rounds_settled, count(*) FILTER (WHERE x.status = 'OPEN') AS rounds_open
                   FROM rounds x WHERE ${where.join(' AND ')} GROUP BY ${by})
     SELECT ${list}, coalesce(tx.bets, 0)::bigint AS bets, coalesce(tx.bet_sum, 0)::text AS bet_sum, coalesce(tx.payout_sum, 0)::text AS payout_sum,
            coalesce(tx.players, 0)::bigint AS players, coalesce(rd.rounds_settled, 0)::bigint AS rounds_settled, coalesce(rd.rounds_open, 0)::bigint AS rounds_open
       FROM tx FULL OUTER JOIN rd USING (${list}) ORDER BY ${list}`,
    [...bind, ...bind],
  );
  return rows as Record<string, unknown>[];
}

/** Sums to the cent as decimal text: the comparison ignores only a sum's trailing zeros. */
const cents = (rows: Record<string, unknown>[]) =>
  rows.map((r) => ({ ...r, bet_sum: new Decimal(String(r.bet_sum)).toFixed(2), payout_sum: new Decimal(String(r.payout_sum)).toFixed(2) }));

const caseArb = fc.record({
  scope: fc.oneof(
    fc.constant<OperatorScope>({ type: 'platform' }),
    fc.constantFrom(...CASINOS).map((providerId): OperatorScope => ({ type: 'casino', providerId })),
    fc.constantFrom(...GROUPS).map((groupId): OperatorScope => ({ type: 'studio', groupId })),
  ),
  groupBy: fc.subarray([...DIMENSIONS]),
  // Days ago, any order of the two (swapped into a period), today included.
  a: fc.integer({ min: 0, max: DAYS }),
  b: fc.integer({ min: 0, max: DAYS }),
  providerId: fc.option(fc.constantFrom(...CASINOS), { nil: undefined }),
  groupId: fc.option(fc.constantFrom(...GROUPS), { nil: undefined }),
  gameId: fc.option(fc.constantFrom(...GAMES), { nil: undefined }),
  currency: fc.option(fc.constantFrom(...CURRENCIES), { nil: undefined }),
  page: fc.record({ limit: fc.integer({ min: 1, max: 40 }), offset: fc.integer({ min: 0, max: 60 }) }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

async function compare(c: Case): Promise<void> {
  const f: ReportFilter = {
    fromDay: dayText(Math.max(c.a, c.b)), toDay: dayText(Math.min(c.a, c.b)),
    providerId: c.providerId, groupId: c.groupId, gameId: c.gameId, currency: c.currency,
  };
  const dims = withCurrency(c.groupBy);
  const expected = cents(await plainReport(c.scope, f, dims));
  const expectedTotals = cents(await plainReport(c.scope, f, ['currency']));
  const whole = await reportRows(db, c.scope, f, dims, { limit: 100_000, offset: 0 });
  expect({ f, dims, rows: cents(whole.rows), total: whole.total, totals: cents(whole.totals) })
    .toEqual({ f, dims, rows: expected, total: expected.length, totals: expectedTotals });
  const page = await reportRows(db, c.scope, f, dims, c.page);
  expect({ f, dims, page: c.page, rows: cents(page.rows), total: page.total })
    .toEqual({ f, dims, page: c.page, rows: expected.slice(c.page.offset, c.page.offset + c.page.limit), total: expected.length });
}

/** Search totals: random filters, counted or not, any time range (whole days or any millisecond). */
const searchArb = fc.record({
  table: fc.constantFrom<LedgerTable>('transactions', 'rounds'),
  scope: caseArb.map((c) => c.scope),
  groupId: fc.option(fc.constantFrom(...GROUPS), { nil: undefined }),
  providerId: fc.option(fc.constantFrom(...CASINOS), { nil: undefined }),
  gameId: fc.option(fc.constantFrom(...GAMES), { nil: undefined }),
  currency: fc.option(fc.constantFrom(...CURRENCIES), { nil: undefined }),
  category: fc.option(fc.constantFrom<'CASH_OUT' | 'CASH_IN'>('CASH_OUT', 'CASH_IN'), { nil: undefined }),
  status: fc.option(fc.constantFrom('SUCCESS', 'FAILED', 'PENDING', 'OPEN', 'SETTLED'), { nil: undefined }),
  // Milliseconds from the first day's start: on a day's edge (whole days) or anywhere.
  from: fc.option(fc.oneof(fc.integer({ min: 0, max: DAYS }).map((d) => d * DAY_MS), fc.integer({ min: 0, max: (DAYS + 1) * DAY_MS })), { nil: undefined }),
  to: fc.option(fc.oneof(fc.integer({ min: 0, max: DAYS + 1 }).map((d) => d * DAY_MS - 1), fc.integer({ min: 0, max: (DAYS + 1) * DAY_MS })), { nil: undefined }),
  // Filters the counts do not keep: counted live.
  playerId: fc.option(fc.constantFrom('p1', 'p7', 'p-taken'), { nil: undefined, freq: 4 }),
  amountMin: fc.option(fc.constantFrom('10.00', '500.50'), { nil: undefined, freq: 4 }),
});

async function compareSearch(c: typeof searchArb extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
  const first = startOfToday - DAYS * DAY_MS;
  const filter: LedgerFilter = {
    groupId: c.groupId, providerId: c.providerId, gameId: c.gameId, currency: c.currency, category: c.category, status: c.status,
    from: c.from === undefined ? undefined : new Date(first + c.from), to: c.to === undefined ? undefined : new Date(first + c.to),
    playerId: c.playerId, amountMin: c.amountMin,
  };
  const t = c.table;
  const q = db(t);
  if (c.scope.type === 'casino') q.where('provider_id', c.scope.providerId);
  if (c.scope.type === 'studio') q.where('group_id', c.scope.groupId);
  for (const [name, column] of [['groupId', 'group_id'], ['providerId', 'provider_id'], ['gameId', 'game_id'], ['currency', 'currency'], ['status', 'status'], ['playerId', 'player_id']] as const) {
    if (filter[name] !== undefined) q.where(column, filter[name] as string | number);
  }
  if (t === 'transactions' && filter.category) q.where('category', filter.category);
  if (filter.amountMin) q.where(t === 'transactions' ? 'amount' : 'bet_amount', '>=', filter.amountMin);
  if (filter.from) q.where('created_at', '>=', filter.from);
  if (filter.to) q.where('created_at', '<', new Date(filter.to.getTime() + 1));
  const sums = t === 'transactions' ? 'sum(amount)::text AS amount' : 'sum(bet_amount)::text AS bet_amount, coalesce(sum(payout_amount), 0)::text AS payout_amount';
  const expected = await q.select('currency', db.raw(`count(*)::text AS count, ${sums}`)).groupBy('currency').orderBy('currency');
  // A player or amount filter counts live; every other filter, unfinished statuses included, from the counts.
  const counted = c.playerId === undefined && c.amountMin === undefined;
  expect(countedSource(db, t, c.scope, filter) !== null).toBe(counted);
  expect({ t, filter, totals: await searchTotals(db, t, c.scope, filter) }).toEqual({ t, filter, totals: expected });
}

async function streamed(scope: OperatorScope, f: ReportFilter, dims: Dimension[]): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for await (const row of reportStream(db, scope, f, dims)) rows.push(row);
  return rows;
}

beforeAll(async () => {
  await migrateReporting(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  await db.raw(`SELECT ledger_create_partition(p, (now() - interval '${DAYS + 1} days')::date) FROM unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
  await fill(4000, DAYS, 0);
}, 60000);
// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
}, 120_000);

describe('When reports and search totals are read from the counts the reporting database keeps', () => {
  const all: Dimension[] = [...DIMENSIONS];
  const everything: ReportFilter = { fromDay: dayText(DAYS), toDay: dayText(0) };
  const check = async () => {
    await fc.assert(fc.asyncProperty(caseArb, compare), { numRuns: 40 });
    await fc.assert(fc.asyncProperty(searchArb, compareSearch), { numRuns: 60 });
    // The export streams the same statement: the whole report, every dimension.
    expect(cents(await streamed({ type: 'platform' }, everything, all))).toEqual(cents(await plainReport({ type: 'platform' }, everything, all)));
    // What the triggers kept is what a recount from the rows gives.
    const kept = await counts();
    await db.raw('SELECT ledger_counts_rebuild()');
    expect(await counts()).toEqual(kept);
  };

  it('then every report grouping, period, scope and filter, and every search total, equals the plain SQL over the ledger to the cent, however the ledger changed', async () => {
    await check();
    await change();
    await check();
    await change();
    await check();
  }, 300000);

  it('then a key whose only row moved away or was deleted is no group and no currency of any answer', async () => {
    const at = new Date(startOfToday - 2 * DAY_MS + 3_600_000).toISOString();
    const id = randomUUID();
    await db('transactions').insert({
      id, provider_id: 'c-phantom', transaction_id: `t-${id}`, round_id: 'r', category: 'CASH_OUT', status: 'SUCCESS', group_id: 'g-phantom', game_id: 2,
      currency: 'SEK', player_id: 'p', session_id: 's', language: 'en', amount: '10.00', request_fingerprint: 'x', claimed_at: at, created_at: at,
    });
    await db('transactions').where({ id }).update({ game_id: 3 });
    await db('transactions').where({ id }).delete();
    const scope: OperatorScope = { type: 'studio', groupId: 'g-phantom' };
    const f: ReportFilter = { fromDay: dayText(DAYS), toDay: dayText(0) };
    expect(await reportRows(db, scope, f, ['game', 'currency'], { limit: 100, offset: 0 })).toEqual({ rows: [], total: 0, totals: [] });
    expect(await searchTotals(db, 'transactions', scope, {})).toEqual([]);
    // The keys are there, at zero.
    expect((await db('ledger_counts_transactions').where({ group_id: 'g-phantom' }).select('n')).map((r) => Number(r.n))).toEqual([0, 0]);
  });

  it('then a rebuild keeps the counts of the days before ledger_retained: their rows are gone, the counts are all the reports have', async () => {
    const since = dayText(3);
    const before = await reportRows(db, { type: 'platform' }, everything, ['day', 'currency'], { limit: 1000, offset: 0 });
    await db('ledger_retained').insert({ ledger: 'transactions', since }).onConflict('ledger').merge();
    await db('ledger_retained').insert({ ledger: 'rounds', since }).onConflict('ledger').merge();
    try {
      // As if retention had dropped those days' rows: the rows leave without their counts.
      await db.raw(countTriggersSql(false));
      const gone = await db.transaction(async (trx) => {
        const tx = await trx('transactions').where('created_at', '<', `${since}T00:00:00Z`).delete().returning('*');
        const rd = await trx('rounds').where('created_at', '<', `${since}T00:00:00Z`).delete().returning('*');
        return { tx, rd };
      });
      await db.raw(countTriggersSql(true));
      await db.raw('SELECT ledger_counts_rebuild()');
      expect(await reportRows(db, { type: 'platform' }, everything, ['day', 'currency'], { limit: 1000, offset: 0 })).toEqual(before);
      await db.raw(countTriggersSql(false));
      await db.batchInsert('transactions', gone.tx, 500);
      await db.batchInsert('rounds', gone.rd, 500);
      await db.raw(countTriggersSql(true));
    } finally {
      await db('ledger_retained').delete();
    }
    await db.raw('SELECT ledger_counts_rebuild()');
    expect(await reportRows(db, { type: 'platform' }, everything, ['day', 'currency'], { limit: 1000, offset: 0 })).toEqual(before);
  });

  it('then a bulk load with the triggers off, then a rebuild, counts what was loaded', async () => {
    await db.raw(countTriggersSql(false));
    try {
      await fill(300, DAYS, 0, undefined, 'bulk-');
    } finally {
      await db.raw(countTriggersSql(true));
    }
    const before = await counts();
    await db.raw('SELECT ledger_counts_rebuild()');
    expect(await counts()).not.toEqual(before);
    await check();
  }, 120000);

  it('then a month past retention counts nothing in the lists, and everything in the reports', async () => {
    const since = dayText(2);
    await db('ledger_retained').insert({ ledger: 'transactions', since }).onConflict('ledger').merge();
    try {
      const filter: LedgerFilter = { from: new Date(startOfToday - DAYS * DAY_MS) };
      const [listed] = await searchTotals(db, 'transactions', { type: 'platform' }, { ...filter, currency: 'EUR' });
      const expected = await db('transactions').where('currency', 'EUR').where('created_at', '>=', `${since}T00:00:00Z`).count<{ n: string }[]>({ n: '*' });
      expect(listed.count).toBe(String(expected[0].n));
      // The reports keep the days before it.
      expect(cents(await streamed({ type: 'platform' }, everything, all))).toEqual(cents(await plainReport({ type: 'platform' }, everything, all)));
    } finally {
      await db('ledger_retained').delete();
    }
  });
});
