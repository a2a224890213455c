import { startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { get, insertRound, insertTransaction, micro, type Row } from './fixtures';

describe('GET /api/v1/rounds', () => {
  let p: TestPlatform;
  let world: World;
  let other: World;
  let casinoA: string;
  let casinoB: string;
  const r: Row[] = [];
  let ids: Record<string, string>;

  const list = async (query = '') => {
    const res = await get(p, `/api/v1/rounds${query ? `?${query}` : ''}`, world.providerToken);
    expect(res.status).toBe(200);
    return res;
  };
  const roundIds = async (query = '') => (await list(query)).body.data.map((x: { roundId: string }) => x.roundId);
  const names = (...indexes: number[]) => indexes.map((i) => ids[`r${i}`]);

  beforeAll(async () => {
    p = await startPlatform();
    world = await provisionWorld(p);
    other = await provisionWorld(p);
    casinoA = world.providerId;
    casinoB = uniqueId('casB');
    const g = world.groupId;
    const day = '2025-03-14T10:00:0';
    // openedAt runs against createdAt so the two sorts give different orders.
    r[1] = await insertRound(p.db.primary, { groupId: g, providerId: casinoA, gameId: 11, playerId: 'p1', currency: 'EUR', betAmount: '10.00', payoutAmount: '20.50', createdAt: `${day}1.000Z`, openedAt: '2025-03-14T09:00:05Z', settledAt: '2025-03-14T11:00:03Z', gameData: { z: 1, a: { nested: [1, 'two', null] }, m: 1.5 }, settlementData: { crash: 2.05, seed: 'abc' } });
    r[2] = await insertRound(p.db.primary, { groupId: g, providerId: casinoA, gameId: 12, playerId: 'p2', currency: 'USD', status: 'OPEN', betAmount: '5.25', createdAt: `${day}2.000Z`, openedAt: '2025-03-14T09:00:04Z' });
    r[3] = await insertRound(p.db.primary, { groupId: g, providerId: casinoB, gameId: 11, playerId: 'p1', currency: 'EUR', betAmount: '100.10', payoutAmount: '0.00', createdAt: `${day}3.000Z`, openedAt: '2025-03-14T09:00:03Z', settledAt: '2025-03-14T11:00:01Z' });
    r[4] = await insertRound(p.db.primary, { groupId: g, providerId: casinoB, gameId: 12, playerId: 'p3', currency: 'EUR', status: 'OPEN', betAmount: '0.01', createdAt: `${day}4.000Z`, openedAt: '2025-03-14T09:00:02Z' });
    r[5] = await insertRound(p.db.primary, { groupId: g, providerId: casinoA, gameId: 11, playerId: 'p1', currency: 'EUR', betAmount: '7.00', payoutAmount: '1000000.99', createdAt: micro(`${day}5.123Z`, 456), openedAt: '2025-03-14T09:00:01Z', settledAt: '2025-03-14T11:00:02Z' });
    ids = Object.fromEntries(r.map((row, i) => [`r${i}`, row?.round_id as string]).filter(([, v]) => v));

    // The same casino and round id under another game provider: never visible to this one.
    await insertRound(p.db.primary, { groupId: other.groupId, providerId: casinoA, roundId: uniqueId('other'), createdAt: `${day}3.500Z` });
    // A round's transactions: its own two, plus look-alikes of another casino and another group.
    await insertTransaction(p.db.primary, { groupId: g, providerId: casinoA, roundId: ids.r1, transactionId: r[1].bet_transaction_id as string, category: 'CASH_OUT', createdAt: `${day}1.000Z` });
    await insertTransaction(p.db.primary, { groupId: g, providerId: casinoA, roundId: ids.r1, transactionId: r[1].settle_transaction_id as string, category: 'CASH_IN', amount: '20.50', createdAt: `${day}1.500Z` });
    await insertTransaction(p.db.primary, { groupId: g, providerId: casinoB, roundId: ids.r1, createdAt: `${day}1.600Z` });
    await insertTransaction(p.db.primary, { groupId: other.groupId, providerId: casinoA, roundId: ids.r1, createdAt: `${day}1.700Z` });
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('When listed without parameters, then every round of the game provider comes newest first with meta', async () => {
    const res = await list();
    expect(res.body).toMatchObject({ statusCode: 200, message: 'Rounds fetched successfully' });
    expect(res.body.data.map((x: { roundId: string }) => x.roundId)).toEqual(names(5, 4, 3, 2, 1));
    expect(res.body.meta).toEqual({ total: 5, page: 1, limit: 20, totalPages: 1 });
  });

  it('When a round is listed, then it carries the spec fields with money as JSON numbers and gameData as stored', async () => {
    const [settled] = (await list(`roundId=${ids.r1}`)).body.data;
    expect(settled).toEqual({
      id: r[1].id,
      roundId: ids.r1,
      gameId: 11,
      groupId: world.groupId,
      providerId: casinoA,
      playerId: 'p1',
      sessionId: r[1].session_id,
      currency: 'EUR',
      language: 'en',
      status: 'SETTLED',
      betAmount: 10,
      betTransactionId: r[1].bet_transaction_id,
      payoutAmount: 20.5,
      appliedMultiplier: 2.05,
      settleTransactionId: r[1].settle_transaction_id,
      settleReason: 'NORMAL_WIN',
      outcome: 'win',
      gameData: { z: 1, a: { nested: [1, 'two', null] }, m: 1.5 },
      settlementData: { crash: 2.05, seed: 'abc' },
      openedAt: '2025-03-14T09:00:05.000Z',
      settledAt: '2025-03-14T11:00:03.000Z',
      createdAt: '2025-03-14T10:00:01.000Z',
      updatedAt: '2025-03-14T10:00:01.000Z',
    });
    // Key order of the stored game data is kept, not re-sorted.
    expect(Object.keys(settled.gameData)).toEqual(['z', 'a', 'm']);
    const [open] = (await list(`roundId=${ids.r2}`)).body.data;
    expect(open.status).toBe('OPEN');
    for (const absent of ['payoutAmount', 'settledAt', 'settleTransactionId', 'settleReason', 'outcome', 'settlementData', 'appliedMultiplier']) {
      expect(open).not.toHaveProperty(absent);
    }
    const [big] = (await list(`roundId=${ids.r5}`)).body.data;
    expect(big.payoutAmount).toBe(1000000.99);
    expect(big.createdAt).toBe('2025-03-14T10:00:05.123Z');
  });

  it.each([
    ['gameId=11', [5, 3, 1]],
    ['providerId=CASINO_B', [4, 3]],
    ['playerId=p1', [5, 3, 1]],
    ['currency=USD', [2]],
    ['status=OPEN', [4, 2]],
    ['status=SETTLED', [5, 3, 1]],
    ['providerId=CASINO_A&status=SETTLED&gameId=11', [5, 1]],
    ['gameId=99', []],
    ['currency=eur', []],
  ])('When filtered by %s, then only exact matches come back', async (query, expected) => {
    const res = await list(query.replace('CASINO_A', casinoA).replace('CASINO_B', casinoB));
    expect(res.body.data.map((x: { roundId: string }) => x.roundId)).toEqual(names(...expected));
    expect(res.body.meta.total).toBe(expected.length);
  });

  it('When filtered by roundId, then that round comes back', async () => {
    expect(await roundIds(`roundId=${ids.r3}`)).toEqual([ids.r3]);
  });

  it.each([
    ['sortBy=createdAt&sortOrder=asc', [1, 2, 3, 4, 5]],
    ['sortBy=openedAt', [1, 2, 3, 4, 5]],
    ['sortBy=openedAt&sortOrder=asc', [5, 4, 3, 2, 1]],
    ['sortBy=betAmount&sortOrder=asc', [4, 2, 5, 1, 3]],
    ['sortBy=betAmount', [3, 1, 5, 2, 4]],
    // Rounds without a settlement have no payout or settledAt; they come last either way.
    ['sortBy=payoutAmount', [5, 1, 3]],
    ['sortBy=payoutAmount&sortOrder=asc', [3, 1, 5]],
    ['sortBy=settledAt', [1, 5, 3]],
    ['sortBy=settledAt&sortOrder=asc', [3, 5, 1]],
  ])('When sorted by %s, then the order follows that field', async (query, expected) => {
    const got = await roundIds(query);
    expect(got.slice(0, expected.length)).toEqual(names(...expected));
    expect(got).toHaveLength(5);
  });

  it('When paged, then pages partition the result and meta describes it', async () => {
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const res = await list(`limit=2&page=${page}`);
      expect(res.body.meta).toEqual({ total: 5, page, limit: 2, totalPages: 3 });
      pages.push(res.body.data.map((x: { roundId: string }) => x.roundId));
    }
    expect(pages).toEqual([names(5, 4), names(3, 2), names(1), []]);
    expect((await list('limit=100')).body.meta).toEqual({ total: 5, page: 1, limit: 100, totalPages: 1 });
  });

  it('When many rounds share one createdAt, then paging still shows each exactly once', async () => {
    const casinoC = uniqueId('casC');
    const same = '2025-02-01T00:00:00.000Z';
    const created = [];
    for (let i = 0; i < 7; i += 1) created.push((await insertRound(p.db.primary, { groupId: world.groupId, providerId: casinoC, createdAt: same })).round_id);
    for (const order of ['desc', 'asc']) {
      const seen = [];
      for (const page of [1, 2, 3]) seen.push(...(await roundIds(`providerId=${casinoC}&limit=3&page=${page}&sortOrder=${order}`)));
      expect(seen).toHaveLength(7);
      expect(new Set(seen)).toEqual(new Set(created));
    }
  });

  it('When a createdAt read from a response is sent back as from or to, then that round is included', async () => {
    const [newest] = (await list('limit=1')).body.data;
    expect(newest.roundId).toBe(ids.r5); // stored with microseconds: 10:00:05.123456
    const at = encodeURIComponent(newest.createdAt);
    expect(await roundIds(`from=${at}&to=${at}`)).toEqual(names(5));
    expect(await roundIds(`to=${at}&providerId=${casinoA}`)).toEqual(names(5, 2, 1));
    expect(await roundIds(`from=${at}`)).toEqual(names(5));
    const [r3] = (await list(`roundId=${ids.r3}`)).body.data;
    const r3At = encodeURIComponent(r3.createdAt);
    expect(await roundIds(`from=${encodeURIComponent('2025-03-14T10:00:02.000Z')}&to=${r3At}`)).toEqual(names(3, 2));
    expect(await roundIds(`from=${r3At}&to=${encodeURIComponent('2025-03-14T10:00:04.999Z')}`)).toEqual(names(4, 3));
    // Same instant written with an offset.
    expect(await roundIds(`from=${encodeURIComponent('2025-03-14T11:00:03+01:00')}&to=${encodeURIComponent('2025-03-14T11:00:03.000+01:00')}`)).toEqual(names(3));
    // A bare date covers that whole UTC day.
    expect((await list('from=2025-03-14&to=2025-03-14')).body.meta.total).toBe(5);
    expect((await list('from=2025-03-13&to=2025-03-13')).body.meta.total).toBe(0);
  });

  it.each([
    'limit=0', 'limit=101', 'limit=-1', 'limit=1.5', 'limit=abc', 'limit=', 'page=0', 'page=-2', 'page=2.5', 'page=x',
    'limit=1&limit=2', 'sortBy=playerId', 'sortBy=amount', 'sortOrder=up', 'sortOrder=DESC', 'status=CLOSED', 'status=open',
    'gameId=x', 'gameId=1.5', 'gameId=99999999999', 'from=yesterday', 'to=2025-02-30', 'from=2025-03-14T25:00:00Z',
    'from=2025-03-15&to=2025-03-14', 'transactionId=abc', 'unknown=1', 'providerId=',
  ])('When the query has %s, then it is a 400 Bad Request in the envelope', async (query) => {
    const res = await get(p, `/api/v1/rounds?${query}`, world.providerToken);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
    expect(typeof res.body.message).toBe('string');
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.any(String), message: expect.any(String) })]));
  });

  it('When a filter carries a NUL character, then it is a 400 Bad Request, never a database error', async () => {
    const res = await get(p, '/api/v1/rounds?playerId=%00', world.providerToken);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
  });

  it('When the query is wrong in several ways, then the 400 names each parameter and why', async () => {
    const res = await get(p, '/api/v1/rounds?limit=1&limit=2&page=0&colour=red', world.providerToken);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: 'page', message: 'must be at least 1' },
      { path: 'limit', message: 'must be given once, as text' },
      { path: 'colour', message: 'is not a parameter of this route' },
    ]);
  });

  it('When a round is fetched by casino and round id, then it comes with its own transactions only', async () => {
    const res = await get(p, `/api/v1/rounds/${casinoA}/${ids.r1}`, world.providerToken);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: 'Round fetched successfully' });
    expect(res.body).not.toHaveProperty('meta');
    expect(res.body.data).toMatchObject({ roundId: ids.r1, providerId: casinoA, betAmount: 10, payoutAmount: 20.5 });
    const txs = res.body.data.transactions;
    expect(txs.map((t: { transactionId: string }) => t.transactionId)).toEqual([r[1].bet_transaction_id, r[1].settle_transaction_id]);
    expect(txs[1]).toMatchObject({ category: 'CASH_IN', amount: 20.5, roundId: ids.r1, providerId: casinoA, groupId: world.groupId });
  });

  it('When a round does not exist, belongs to another casino id or to another game provider, then 404 ROUND_NOT_FOUND', async () => {
    const misses = [`${casinoA}/nope`, `${casinoB}/${ids.r1}`, `${casinoA}/%00`];
    for (const path of misses) {
      const res = await get(p, `/api/v1/rounds/${path}`, world.providerToken);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'ROUND_NOT_FOUND', data: null });
    }
    const foreign = await get(p, `/api/v1/rounds/${casinoA}/${ids.r1}`, other.providerToken);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('ROUND_NOT_FOUND');
    expect(foreign.text).not.toContain(world.groupId);
  });
});
