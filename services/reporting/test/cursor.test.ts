import { startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { get, insertRound, insertTransaction, micro } from './fixtures';

/**
 * Walking a whole list with `cursor`: every row exactly once, in the order of the page/limit
 * listing, for every sort and direction, with ties on the sort key (same microsecond, same
 * amount) and empty values (no completedAt, settledAt, payoutAmount) that sort last.
 */
describe('GET /api/v1/rounds and /api/v1/transactions with cursor', () => {
  let p: TestPlatform;
  let world: World;

  const body = async (path: string) => {
    const res = await get(p, path, world.providerToken);
    expect(res.status).toBe(200);
    return res.body as { data: { id: string }[]; meta: Record<string, unknown> };
  };

  /** Follows nextCursor from "start" to the end; checks each page's meta on the way. */
  const walk = async (route: string, query: string, limit: number) => {
    const ids: string[] = [];
    let cursor: string | null = 'start';
    let pages = 0;
    while (cursor !== null) {
      const page = await body(`/api/v1/${route}?${query}&limit=${limit}&cursor=${encodeURIComponent(cursor)}`);
      // The total on the first page only: the later pages of a walk do not count again.
      expect(Object.keys(page.meta).sort()).toEqual(pages === 0 ? ['limit', 'nextCursor', 'total'] : ['limit', 'nextCursor']);
      expect(page.meta.limit).toBe(limit);
      ids.push(...page.data.map((r) => r.id));
      cursor = page.meta.nextCursor as string | null;
      if (cursor !== null) expect(page.data).toHaveLength(limit);
      pages += 1;
      expect(pages).toBeLessThan(100);
    }
    return { ids, pages };
  };

  beforeAll(async () => {
    p = await startPlatform();
    world = await provisionWorld(p);
    const db = p.db.primary;
    const g = world.groupId;
    const casino = world.providerId;
    // 30 of each, three per second, all in the same millisecond of it: two share the microsecond,
    // the third is 500 microseconds earlier. Amounts repeat; a quarter have no outcome yet.
    for (let i = 0; i < 30; i += 1) {
      const second = String(Math.floor(i / 3) + 10).padStart(2, '0');
      const createdAt = micro(`2025-06-01T09:00:${second}.101Z`, i % 3 === 0 ? 0 : 500);
      const amount = ['1.00', '2.50', '2.50', '10.00', '0.01'][i % 5];
      const open = i % 4 === 0;
      await insertRound(db, {
        groupId: g, providerId: casino, roundId: uniqueId('cr'), createdAt, status: open ? 'OPEN' : 'SETTLED', betAmount: amount,
        payoutAmount: open ? undefined : i % 6 === 0 ? null : amount, settledAt: open ? undefined : micro(`2025-06-01T10:00:0${i % 4}.000Z`, 0),
      });
      await insertTransaction(db, {
        groupId: g, providerId: casino, roundId: uniqueId('cr'), createdAt, amount, status: open ? 'PENDING' : 'SUCCESS',
        category: i % 2 ? 'CASH_IN' : 'CASH_OUT', completedAt: open ? undefined : micro(`2025-06-01T11:00:0${i % 3}.000Z`, 0),
      });
    }
  });

  afterAll(async () => {
    await p?.stop();
  });

  const cases: [string, string][] = [
    ...['createdAt', 'openedAt', 'settledAt', 'betAmount', 'payoutAmount'].flatMap((s): [string, string][] => [['rounds', `sortBy=${s}&sortOrder=desc`], ['rounds', `sortBy=${s}&sortOrder=asc`]]),
    ...['createdAt', 'completedAt', 'amount'].flatMap((s): [string, string][] => [['transactions', `sortBy=${s}&sortOrder=desc`], ['transactions', `sortBy=${s}&sortOrder=asc`]]),
    ['rounds', 'status=SETTLED&sortBy=settledAt'],
    ['transactions', 'category=CASH_IN&sortBy=amount&sortOrder=asc'],
    ['transactions', 'from=2025-06-01T09:00:12Z&to=2025-06-01T09:00:16.100500Z&sortBy=createdAt'],
  ];

  it.each(cases)('When %s are walked with %s, then every row comes exactly once in the order of the page listing', async (route, query) => {
    const reference = await body(`/api/v1/${route}?${query}&limit=100`);
    expect(reference.data.length).toBeGreaterThan(3);
    for (const limit of [1, 4, 7]) {
      const { ids, pages } = await walk(route, query, limit);
      expect(ids).toEqual(reference.data.map((r) => r.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(pages).toBe(Math.max(1, Math.ceil(ids.length / limit)));
    }
  });

  it('When a walk starts, then meta carries the exact total of the filter', async () => {
    const first = await body('/api/v1/transactions?status=PENDING&limit=2&cursor=start');
    expect(first.meta.total).toBe(8);
    expect(typeof first.meta.nextCursor).toBe('string');
  });

  it('When a list matches nothing, then the walk ends on its first page', async () => {
    const empty = await body('/api/v1/rounds?currency=GBP&cursor=start');
    expect(empty).toMatchObject({ data: [], meta: { total: 0, limit: 20, nextCursor: null } });
  });

  it('When the cursor is garbage, comes from another sort or filter, or comes with page, then it is a 400 Bad Request', async () => {
    const first = await body('/api/v1/transactions?sortBy=amount&limit=2&cursor=start');
    const cursor = encodeURIComponent(first.meta.nextCursor as string);
    for (const query of [
      'cursor=not-a-cursor',
      `cursor=${Buffer.from('["x","y","amount","desc","z"]').toString('base64url')}`,
      `sortBy=amount&sortOrder=asc&limit=2&cursor=${cursor}`,
      `sortBy=createdAt&limit=2&cursor=${cursor}`,
      `sortBy=amount&status=PENDING&limit=2&cursor=${cursor}`,
      `sortBy=amount&page=1&limit=2&cursor=${cursor}`,
      'page=2&cursor=start',
      'cursor=',
    ]) {
      const res = await get(p, `/api/v1/transactions?${query}`, world.providerToken);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null, details: expect.any(Array) });
    }
    // The same list and sort (parameters in another order) accepts it.
    const again = await get(p, `/api/v1/transactions?limit=2&cursor=${cursor}&sortBy=amount`, world.providerToken);
    expect(again.status).toBe(200);
  });

  it('When a cursor of one game provider is sent by another, then it shows only the other one\'s rows', async () => {
    const other = await provisionWorld(p);
    const first = await body('/api/v1/rounds?limit=2&cursor=start');
    const res = await get(p, `/api/v1/rounds?limit=2&cursor=${encodeURIComponent(first.meta.nextCursor as string)}`, other.providerToken);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({ limit: 2, nextCursor: null });
  });

  it('When paged with page and limit, then meta is exactly as before', async () => {
    const res = await body('/api/v1/rounds?limit=7&page=2');
    expect(res.meta).toEqual({ total: 30, page: 2, limit: 7, totalPages: 5 });
  });
});
