import { startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { get, insertTransaction, micro, type Row } from './fixtures';

describe('GET /api/v1/transactions', () => {
  let p: TestPlatform;
  let world: World;
  let other: World;
  let casinoA: string;
  let casinoB: string;
  let roundOne: string;
  let roundTwo: string;
  const t: Row[] = [];
  let ids: Record<string, string>;

  const list = async (query = '') => {
    const res = await get(p, `/api/v1/transactions${query ? `?${query}` : ''}`, world.providerToken);
    expect(res.status).toBe(200);
    return res;
  };
  const txIds = async (query = '') => (await list(query)).body.data.map((x: { transactionId: string }) => x.transactionId);
  const names = (...indexes: number[]) => indexes.map((i) => ids[`t${i}`]);

  beforeAll(async () => {
    p = await startPlatform();
    world = await provisionWorld(p);
    other = await provisionWorld(p);
    casinoA = world.providerId;
    casinoB = uniqueId('casB');
    roundOne = uniqueId('round');
    roundTwo = uniqueId('round');
    const g = world.groupId;
    const at = (s: string) => `2025-05-20T08:00:0${s}Z`;
    const db = p.db.primary;
    t[1] = await insertTransaction(db, { groupId: g, providerId: casinoA, roundId: roundOne, gameId: 11, playerId: 'p1', category: 'CASH_OUT', status: 'SUCCESS', amount: '10.00', balance: '990.10', createdAt: at('1.000'), completedAt: at('9.000') });
    t[2] = await insertTransaction(db, { groupId: g, providerId: casinoA, roundId: roundOne, gameId: 11, playerId: 'p1', category: 'CASH_IN', status: 'FAILED', amount: '30.00', previousTransactionId: t[1].transaction_id as string, createdAt: at('2.000'), completedAt: at('2.500') });
    t[3] = await insertTransaction(db, { groupId: g, providerId: casinoA, roundId: roundOne, gameId: 11, playerId: 'p1', category: 'CASH_IN', status: 'SUCCESS', amount: '25.50', balance: '1015.60', isRetry: true, createdAt: at('3.000'), completedAt: at('3.100') });
    t[4] = await insertTransaction(db, { groupId: g, providerId: casinoB, roundId: roundTwo, gameId: 12, playerId: 'p2', currency: 'USD', category: 'CASH_OUT', status: 'PENDING', amount: '0.01', createdAt: micro('2025-05-20T08:00:04.789Z', 123) });
    t[5] = await insertTransaction(db, { groupId: g, providerId: casinoB, roundId: roundTwo, gameId: 12, playerId: 'p2', currency: 'USD', category: 'CASH_IN', status: 'SUCCESS', amount: '1234567.89', balance: '0.00', createdAt: at('5.000'), completedAt: at('5.900') });
    ids = Object.fromEntries(t.map((row, i) => [`t${i}`, row?.transaction_id as string]).filter(([, v]) => v));
    // Same casino and transaction id under another game provider: never visible here.
    await insertTransaction(db, { groupId: other.groupId, providerId: casinoA, transactionId: uniqueId('foreign'), roundId: roundOne, createdAt: at('3.500') });
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('When listed without parameters, then every transaction of the game provider comes newest first with meta', async () => {
    const res = await list();
    expect(res.body).toMatchObject({ statusCode: 200, message: 'Transactions fetched successfully' });
    expect(res.body.data.map((x: { transactionId: string }) => x.transactionId)).toEqual(names(5, 4, 3, 2, 1));
    expect(res.body.meta).toEqual({ total: 5, page: 1, limit: 20, totalPages: 1 });
  });

  it('When a transaction is listed, then it carries the spec fields with money as JSON numbers and nothing internal', async () => {
    const res = await list(`transactionId=${ids.t1}`);
    expect(res.body.data).toEqual([{
      id: t[1].id,
      transactionId: ids.t1,
      category: 'CASH_OUT',
      status: 'SUCCESS',
      groupId: world.groupId,
      gameId: 11,
      providerId: casinoA,
      playerId: 'p1',
      sessionId: t[1].session_id,
      roundId: roundOne,
      amount: 10,
      currency: 'EUR',
      language: 'en',
      isRetry: false,
      balance: 990.1,
      completedAt: '2025-05-20T08:00:09.000Z',
      createdAt: '2025-05-20T08:00:01.000Z',
      updatedAt: '2025-05-20T08:00:01.000Z',
    }]);
    const all = await list();
    expect(all.text).not.toContain('Secret Username');
    expect(all.text).not.toContain('fingerprint');
    const byId = Object.fromEntries(all.body.data.map((x: { transactionId: string }) => [x.transactionId, x]));
    expect(byId[ids.t2]).toMatchObject({ status: 'FAILED', errorCode: 'PROVIDER_API_FAILURE', errorMessage: 'Casino answered 500', previousTransactionId: ids.t1, reason: 'NORMAL_WIN', appliedMultiplier: 2.5, betAmount: 4, amount: 30 });
    expect(byId[ids.t2]).not.toHaveProperty('balance');
    expect(byId[ids.t3]).toMatchObject({ isRetry: true, balance: 1015.6, amount: 25.5 });
    expect(byId[ids.t4]).toMatchObject({ status: 'PENDING', amount: 0.01, createdAt: '2025-05-20T08:00:04.789Z' });
    expect(byId[ids.t4]).not.toHaveProperty('completedAt');
    expect(byId[ids.t5]).toMatchObject({ amount: 1234567.89, balance: 0 });
  });

  it.each([
    ['transactionId=T3', [3]],
    ['category=CASH_IN', [5, 3, 2]],
    ['category=CASH_OUT', [4, 1]],
    ['status=FAILED', [2]],
    ['status=PENDING', [4]],
    ['status=SUCCESS', [5, 3, 1]],
    ['category=CASH_IN&status=FAILED', [2]],
    ['roundId=ROUND_ONE', [3, 2, 1]],
    ['providerId=CASINO_B', [5, 4]],
    ['providerId=CASINO_A&category=CASH_IN', [3, 2]],
    ['gameId=12', [5, 4]],
    ['playerId=p1', [3, 2, 1]],
    ['currency=USD', [5, 4]],
    ['currency=GBP', []],
  ])('When filtered by %s, then only exact matches come back', async (query, expected) => {
    const q = query.replace('T3', ids.t3).replace('ROUND_ONE', roundOne).replace('CASINO_A', casinoA).replace('CASINO_B', casinoB);
    const res = await list(q);
    expect(res.body.data.map((x: { transactionId: string }) => x.transactionId)).toEqual(names(...expected));
    expect(res.body.meta.total).toBe(expected.length);
  });

  it.each([
    ['sortBy=createdAt&sortOrder=asc', [1, 2, 3, 4, 5]],
    // A pending transaction has no completedAt: it comes last either way.
    ['sortBy=completedAt', [1, 5, 3, 2, 4]],
    ['sortBy=completedAt&sortOrder=asc', [2, 3, 5, 1, 4]],
    ['sortBy=amount', [5, 2, 3, 1, 4]],
    ['sortBy=amount&sortOrder=asc', [4, 1, 3, 2, 5]],
  ])('When sorted by %s, then the order follows that field', async (query, expected) => {
    expect(await txIds(query)).toEqual(names(...expected));
  });

  it('When paged, then pages partition the result and meta describes it', async () => {
    const seen = [];
    for (const page of [1, 2, 3]) {
      const res = await list(`limit=2&page=${page}&sortOrder=asc`);
      expect(res.body.meta).toEqual({ total: 5, page, limit: 2, totalPages: 3 });
      seen.push(res.body.data.map((x: { transactionId: string }) => x.transactionId));
    }
    expect(seen).toEqual([names(1, 2), names(3, 4), names(5)]);
    const beyond = await list('limit=2&page=9');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta).toEqual({ total: 5, page: 9, limit: 2, totalPages: 3 });
  });

  it('When a createdAt read from a response is sent back as from or to, then that transaction is included', async () => {
    const [pending] = (await list('status=PENDING')).body.data;
    const stamp = encodeURIComponent(pending.createdAt); // stored as 08:00:04.789123
    expect(await txIds(`from=${stamp}&to=${stamp}`)).toEqual(names(4));
    expect(await txIds(`to=${stamp}`)).toEqual(names(4, 3, 2, 1));
    expect(await txIds(`from=${stamp}`)).toEqual(names(5, 4));
    // Reconciliation: pending attempts older than a given instant.
    expect(await txIds(`status=PENDING&to=${encodeURIComponent('2025-05-20T08:00:04.788Z')}`)).toEqual([]);
  });

  it.each(['limit=0', 'limit=101', 'page=0', 'page=1.5', 'limit=2.0', 'sortBy=betAmount', 'sortBy=settledAt', 'category=BET', 'status=OPEN', 'from=2025-13-01', 'to=nope', 'page=1&page=2'])(
    'When the query has %s, then it is a 400 Bad Request in the envelope',
    async (query) => {
      const res = await get(p, `/api/v1/transactions?${query}`, world.providerToken);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null, details: expect.any(Array) });
    },
  );

  it('When a transaction is fetched by casino and transaction id, then it comes back alone', async () => {
    const res = await get(p, `/api/v1/transactions/${casinoB}/${ids.t5}`, world.providerToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      statusCode: 200,
      message: 'Transaction fetched successfully',
      data: expect.objectContaining({ transactionId: ids.t5, providerId: casinoB, amount: 1234567.89, balance: 0, completedAt: '2025-05-20T08:00:05.900Z' }),
    });
  });

  it('When a transaction does not exist, belongs to another casino id or to another game provider, then 404 TRANSACTION_NOT_FOUND', async () => {
    for (const path of [`${casinoA}/nope`, `${casinoA}/${ids.t5}`, `${casinoB}/%00`]) {
      const res = await get(p, `/api/v1/transactions/${path}`, world.providerToken);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'TRANSACTION_NOT_FOUND', data: null });
    }
    const foreign = await get(p, `/api/v1/transactions/${casinoB}/${ids.t5}`, other.providerToken);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('TRANSACTION_NOT_FOUND');
  });
});
