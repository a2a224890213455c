import { startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminGet, adminPost, adminPut } from '../../../test/provision';

/**
 * The lists the web console's provisioning screens page through: game providers (without their
 * tokens) and games (all, or one game provider's).
 */
let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
});
afterAll(async () => {
  await p.stop();
});

/** Every row of a paged admin list (other test files share the database: their rows are there too). */
async function everyRow(path: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let page = 1; page <= 50; page++) {
    const res = await adminGet(p, `${path}${path.includes('?') ? '&' : '?'}limit=500&page=${page}`);
    expect(res.status).toBe(200);
    rows.push(...res.body.data);
    if (page >= res.body.meta.totalPages) break;
  }
  return rows;
}

describe('GET /admin/v1/game-providers', () => {
  test('When game providers exist, then each is listed with name and status, oldest first, paged, and no token appears', async () => {
    const first = uniqueId('grp');
    const second = uniqueId('grp');
    expect((await adminPut(p, `game-providers/${first}`, { name: 'First Studio' })).status).toBe(200);
    expect((await adminPut(p, `game-providers/${second}`, { name: 'Second Studio', status: 'INACTIVE', rateLimitPerSecond: 50 })).status).toBe(200);
    const issued = await adminPost(p, `game-providers/${first}/tokens`);
    expect(issued.status).toBe(201);

    const one = await adminGet(p, 'game-providers?limit=1');
    expect(one.body.data).toHaveLength(1);
    expect(one.body.meta).toMatchObject({ page: 1, limit: 1 });
    expect(one.body.meta.totalPages).toBe(one.body.meta.total);

    const rows = await everyRow('game-providers');
    const ids = rows.map((r) => r.groupId);
    expect(ids.indexOf(first)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
    expect(rows.find((r) => r.groupId === second)).toMatchObject({ name: 'Second Studio', status: 'INACTIVE', rateLimitPerSecond: 50, launchEncryption: false });
    expect(rows.find((r) => r.groupId === first)).not.toHaveProperty('tokens');
    expect(JSON.stringify(rows)).not.toContain(issued.body.data.token);
  });

  test.each([['limit=0'], ['limit=501'], ['page=0'], ['page=x']])('When the query has %s, then 400 Bad Request naming the field', async (q) => {
    const res = await adminGet(p, `game-providers?${q}`);
    expect([res.status, res.body.error]).toEqual([400, 'Bad Request']);
    expect(res.body.details[0].path).toBe(q.split('=')[0]);
  });
});

describe('GET /admin/v1/games', () => {
  test('When a game provider has games, then groupId lists exactly its games by id, and the whole list holds them too', async () => {
    const groupId = uniqueId('grp');
    const other = uniqueId('grp');
    for (const g of [groupId, other]) expect((await adminPut(p, `game-providers/${g}`, { name: g })).status).toBe(200);
    const [low, high] = [uniqueGameId(), uniqueGameId()].sort((x, y) => x - y);
    const elsewhere = uniqueGameId();
    expect((await adminPut(p, `games/${high}`, { name: 'High', groupId, frontendUrl: 'https://game.example.com/high', status: 'INACTIVE' })).status).toBe(200);
    expect((await adminPut(p, `games/${low}`, { name: 'Low', groupId, frontendUrl: 'https://game.example.com/low' })).status).toBe(200);
    expect((await adminPut(p, `games/${elsewhere}`, { name: 'Elsewhere', groupId: other, frontendUrl: 'https://game.example.com/e' })).status).toBe(200);

    const mine = await adminGet(p, `games?groupId=${groupId}`);
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((g: { gameId: number }) => g.gameId)).toEqual([low, high]);
    expect(mine.body.data[1]).toMatchObject({ gameId: high, name: 'High', groupId, frontendUrl: 'https://game.example.com/high', status: 'INACTIVE' });
    expect(mine.body.meta).toEqual({ total: 2, page: 1, limit: 100, totalPages: 1 });
    const paged = await adminGet(p, `games?groupId=${groupId}&limit=1&page=2`);
    expect(paged.body.data.map((g: { gameId: number }) => g.gameId)).toEqual([high]);

    const all = (await everyRow('games')).map((g) => g.gameId);
    expect(all).toEqual(expect.arrayContaining([low, high, elsewhere]));
    expect((await adminGet(p, `games?groupId=${uniqueId('grp')}`)).body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  test('When groupId is not a valid id, then 400 Bad Request naming groupId', async () => {
    const res = await adminGet(p, 'games?groupId=a:b');
    expect([res.status, res.body.error, res.body.details[0].path]).toEqual([400, 'Bad Request', 'groupId']);
  });
});
