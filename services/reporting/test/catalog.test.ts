import { startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminPut, provisionWorld, type HttpResult, type World } from '../../../test/provision';
import { get } from './fixtures';

function ok(res: HttpResult): HttpResult {
  if (res.status !== 200) throw new Error(`admin call answered ${res.status}: ${res.text}`);
  return res;
}

describe('GET /api/v1/provider-catalog and /api/v1/providers/ids', () => {
  let p: TestPlatform;
  let world: World;
  let other: World;
  let g1: number;
  let g2: number;
  let g3: number;
  let casinoA: string;
  let casinoB: string;
  let casinoC: string;
  let casinoD: string;
  const secrets: string[] = [];

  const createCasino = async (providerId: string) => {
    const res = ok(await adminPut(p, `casinos/${providerId}`, { name: `Casino ${providerId}`, walletUrl: 'http://127.0.0.1:9/wallet' }));
    secrets.push(res.body.data.walletSecret, res.body.data.launchKey);
  };
  const catalog = async (query = '', token = world.providerToken) => {
    const res = await get(p, `/api/v1/provider-catalog${query ? `?${query}` : ''}`, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: 'Provider catalog fetched successfully' });
    expect(res.body).not.toHaveProperty('meta');
    return res;
  };
  const casinoIds = (res: HttpResult) => res.body.data.map((c: { providerId: string }) => c.providerId);

  beforeAll(async () => {
    p = await startPlatform();
    world = await provisionWorld(p);
    other = await provisionWorld(p);
    secrets.push(world.walletSecret, world.launchKey, world.providerToken, other.walletSecret, other.launchKey, other.providerToken);
    casinoA = world.providerId;
    g1 = world.gameId;
    [g2, g3] = [uniqueGameId(), uniqueGameId()];
    for (const gameId of [g2, g3]) {
      ok(await adminPut(p, `games/${gameId}`, { name: `Game ${gameId}`, groupId: world.groupId, frontendUrl: 'https://g.example/play', status: gameId === g3 ? 'INACTIVE' : 'ACTIVE' }));
    }
    for (const prefix of ['casB', 'casC', 'casD']) {
      const id = uniqueId(prefix);
      await createCasino(id);
      if (prefix === 'casB') casinoB = id;
      if (prefix === 'casC') casinoC = id;
      if (prefix === 'casD') casinoD = id;
    }
    ok(await adminPut(p, `games/${g1}/config-template`, {
      properties: [
        { name: 'theme', type: 'DROPDOWN', values: ['dark', 'light'], required: true, default: 'dark' },
        { name: 'maxPlayers', type: 'NUMBER', required: false, default: 10 },
        { name: 'label', type: 'STRING', required: false },
        { name: 'sound', type: 'BOOLEAN', required: false, default: true },
      ],
    }));
    ok(await adminPut(p, `games/${g2}/config-template`, { properties: [{ name: 'speed', type: 'NUMBER', required: true }] }));
    ok(await adminPut(p, `casinos/${casinoA}/games/${g1}/config`, { values: { label: 'VIP', theme: 'light' } }));
    ok(await adminPut(p, `casinos/${casinoA}/games/${g1}/currencies/USD`, {
      minBet: 0.1, maxBet: 100, defaultBet: 1, betSuggestions: [0.5, 1, 2.5], maxWin: 10000.55,
      minAutoCashout: 1.01, maxAutoCashout: 100, defaultAutoCashout: 2, isRoundable: true, isDefault: true,
    }));
    ok(await adminPut(p, `casinos/${casinoA}/games/${g1}/currencies/EUR`, {
      minBet: 1, maxBet: 50, defaultBet: 2, betSuggestions: [], maxWin: 5000, isRoundable: false, isDefault: false,
    }));
    ok(await adminPut(p, `casinos/${casinoB}/games/${g2}/config`, { values: { speed: 3 } }));
    // A currency alone (no settings) is enough for the casino to appear for that game.
    ok(await adminPut(p, `casinos/${casinoB}/games/${g3}/currencies/GBP`, {
      minBet: 0, maxBet: 10, defaultBet: 0, betSuggestions: [0, 10], maxWin: 10, isRoundable: false, isDefault: true,
    }));
    // Casino D configured only the other game provider's game.
    ok(await adminPut(p, `casinos/${casinoD}/games/${other.gameId}/currencies/EUR`, {
      minBet: 1, maxBet: 2, defaultBet: 1, betSuggestions: [1], maxWin: 3, isRoundable: false, isDefault: false,
    }));
    // Registration dates drive the order; set them so the expected order does not depend on timing.
    const day = 86_400_000;
    const created: [string, number][] = [[casinoA, 3], [casinoB, 2], [casinoD, 1], [casinoC, 10]];
    for (const [providerId, daysAgo] of created) {
      await p.db.primary('casinos').where({ provider_id: providerId }).update({ created_at: new Date(Date.now() - daysAgo * day) });
    }
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('When the catalog is asked, then only casinos that configured a game of the caller come, newest first, with resolved configs', async () => {
    const res = await catalog();
    expect(casinoIds(res)).toEqual([casinoB, casinoA]);
    const [b, a] = res.body.data;
    expect(Object.keys(a).sort()).toEqual(['createdAt', 'games', 'name', 'providerId']);
    expect(a.name).toBe(`Casino ${casinoA}`);
    expect(a.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(a.games).toHaveLength(1);
    expect(a.games[0]).toMatchObject({
      gameId: g1,
      name: `Game ${g1}`,
      status: 'ACTIVE',
      gameConfig: { values: { theme: 'light', maxPlayers: 10, label: 'VIP', sound: true }, overrides: ['theme', 'label'] },
    });
    const currencies = a.games[0].currencyConfigs;
    expect(currencies.map((c: { currency: string }) => c.currency)).toEqual(['EUR', 'USD']);
    expect(currencies[1]).toEqual({
      id: expect.any(String),
      providerId: casinoA,
      gameId: g1,
      currency: 'USD',
      minBet: 0.1,
      maxBet: 100,
      defaultBet: 1,
      betSuggestions: [0.5, 1, 2.5],
      maxWin: 10000.55,
      minAutoCashout: 1.01,
      maxAutoCashout: 100,
      defaultAutoCashout: 2,
      isRoundable: true,
      isDefault: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(currencies[0]).toMatchObject({ currency: 'EUR', minBet: 1, maxBet: 50, betSuggestions: [], isDefault: false });

    const bGames = [...b.games].sort((x: { gameId: number }, y: { gameId: number }) => x.gameId - y.gameId);
    expect(b.games).toEqual(bGames); // games come in gameId order
    const byId = Object.fromEntries(b.games.map((g: { gameId: number }) => [g.gameId, g]));
    expect(byId[g2]).toEqual({ gameId: g2, name: `Game ${g2}`, status: 'ACTIVE', gameConfig: { values: { speed: 3 }, overrides: ['speed'] }, currencyConfigs: [] });
    expect(byId[g3]).toMatchObject({ gameId: g3, status: 'INACTIVE', gameConfig: null, currencyConfigs: [expect.objectContaining({ currency: 'GBP', betSuggestions: [0, 10] })] });
  });

  it('When narrowed by gameId or providerId, then only matching entries come; another provider\'s game gives nothing', async () => {
    expect(casinoIds(await catalog(`gameId=${g1}`))).toEqual([casinoA]);
    expect((await catalog(`gameId=${g3}`)).body.data).toEqual([expect.objectContaining({ providerId: casinoB, games: [expect.objectContaining({ gameId: g3 })] })]);
    expect((await catalog(`gameId=${other.gameId}`)).body.data).toEqual([]);
    expect((await catalog(`gameId=${uniqueGameId()}`)).body.data).toEqual([]);
    expect(casinoIds(await catalog(`providerId=${casinoB}`))).toEqual([casinoB]);
    expect((await catalog(`providerId=${casinoC}`)).body.data).toEqual([]);
    expect((await catalog(`providerId=${casinoD}`)).body.data).toEqual([]);
    expect((await catalog(`providerId=${casinoB}&gameId=${g1}`)).body.data).toEqual([]);
  });

  it('When another game provider asks, then it sees only casinos that configured its own games', async () => {
    const res = await catalog('', other.providerToken);
    expect(casinoIds(res)).toEqual([casinoD]);
    expect(res.body.data[0].games.map((g: { gameId: number }) => g.gameId)).toEqual([other.gameId]);
  });

  it.each(['gameId=x', 'gameId=1.5', 'gameId=', 'providerId=', 'gameId=1&gameId=2', 'days=1', 'other=1'])(
    'When the catalog query has %s, then it is a 400 Bad Request',
    async (query) => {
      const res = await get(p, `/api/v1/provider-catalog?${query}`, world.providerToken);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null, details: expect.any(Array) });
    },
  );

  it('When casino ids are asked, then every registered casino comes newest first with providerId and createdAt only', async () => {
    const res = await get(p, '/api/v1/providers/ids', world.providerToken);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: 'Provider ids fetched successfully' });
    expect(res.body).not.toHaveProperty('meta');
    const entries: { providerId: string; createdAt: string }[] = res.body.data;
    for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(['createdAt', 'providerId']);
    const times = entries.map((e) => Date.parse(e.createdAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const mine = entries.map((e) => e.providerId).filter((id) => [casinoA, casinoB, casinoC, casinoD, other.providerId].includes(id));
    expect(mine).toEqual([other.providerId, casinoD, casinoB, casinoA, casinoC]);
  });

  it('When casino ids are narrowed by days, then only casinos registered in the last N days come', async () => {
    const within = async (days: number) => {
      const res = await get(p, `/api/v1/providers/ids?days=${days}`, world.providerToken);
      expect(res.status).toBe(200);
      return res.body.data.map((e: { providerId: string }) => e.providerId);
    };
    const oneDay = await within(1);
    expect(oneDay).toContain(other.providerId);
    expect(oneDay).not.toContain(casinoD);
    const fiveDays = await within(5);
    expect(fiveDays).toEqual(expect.arrayContaining([casinoA, casinoB, casinoD]));
    expect(fiveDays).not.toContain(casinoC);
    expect(await within(30)).toContain(casinoC);
  });

  it.each(['days=0', 'days=31', 'days=x', 'days=1.5', 'days=', 'days=-1', 'days=1&days=2', 'gameId=1'])(
    'When casino ids are asked with %s, then it is a 400 Bad Request',
    async (query) => {
      const res = await get(p, `/api/v1/providers/ids?${query}`, world.providerToken);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
    },
  );

  it('When anything is answered, then no casino secret, wallet address or provider token is in it', async () => {
    const bodies = [
      (await catalog()).text,
      (await catalog('', other.providerToken)).text,
      (await get(p, '/api/v1/providers/ids', world.providerToken)).text,
    ];
    for (const text of bodies) {
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).not.toContain('127.0.0.1:9');
      expect(text).not.toMatch(/wallet|launchKey|secret/i);
    }
  });
});
