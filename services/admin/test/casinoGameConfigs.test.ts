import { startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminDelete, adminGet, adminPut, provisionWorld, type World } from '../../../test/provision';

let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
});
afterAll(async () => {
  await p.stop();
});

const properties = [
  { name: 'theme', type: 'DROPDOWN', values: ['dark', 'light'], required: true, default: 'dark' },
  { name: 'maxPlayers', type: 'NUMBER', required: false, default: 100 },
  { name: 'chatEnabled', type: 'BOOLEAN', required: false },
  { name: 'lobbyName', type: 'STRING', required: true },
];

async function worldWithTemplate(): Promise<World> {
  const world = await provisionWorld(p);
  expect((await adminPut(p, `games/${world.gameId}/config-template`, { properties })).status).toBe(200);
  return world;
}

describe('PUT /admin/v1/casinos/{providerId}/games/{gameId}/config', () => {
  test('When valid overrides are set, then the answer holds the complete values and the names overridden', async () => {
    const w = await worldWithTemplate();
    const res = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/config`, { values: { lobbyName: 'Main', theme: 'light' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      providerId: w.providerId,
      gameId: w.gameId,
      values: { theme: 'light', maxPlayers: 100, lobbyName: 'Main' },
      overrides: ['theme', 'lobbyName'],
      templateVersion: 1,
    });
    const stored = await p.db.primary('casino_game_configs').where({ provider_id: w.providerId, game_id: w.gameId }).first();
    expect(stored.overrides).toEqual({ theme: 'light', lobbyName: 'Main' });
    expect((await adminGet(p, `casinos/${w.providerId}/games/${w.gameId}/config`)).body.data).toEqual(res.body.data);
  });

  test.each([
    ['an unknown property', { lobbyName: 'x', colour: 'red' }, 'values.colour'],
    ['a wrong type', { lobbyName: 'x', maxPlayers: '10' }, 'values.maxPlayers'],
    ['a boolean given as a string', { lobbyName: 'x', chatEnabled: 'true' }, 'values.chatEnabled'],
    ['a dropdown value not allowed', { lobbyName: 'x', theme: 'neon' }, 'values.theme'],
    ['a required property without default left unanswered', { theme: 'dark' }, 'values.lobbyName'],
    ['a null value', { lobbyName: null }, 'values.lobbyName'],
    ['an object value', { lobbyName: { a: 1 } }, 'values.lobbyName'],
  ])('When the config has %s, then 400 INVALID_GAME_CONFIG naming it', async (_what, values, path) => {
    const w = await worldWithTemplate();
    const res = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/config`, { values });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'INVALID_GAME_CONFIG', data: null });
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await p.db.primary('casino_game_configs').where({ provider_id: w.providerId }).first()).toBeUndefined();
  });

  test('When the game has no template, then only an empty config is accepted', async () => {
    const w = await provisionWorld(p);
    const refused = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/config`, { values: { anything: 1 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('INVALID_GAME_CONFIG');
    const empty = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/config`, { values: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ values: {}, overrides: [], templateVersion: null });
  });

  test('When the casino has no config for the game yet, then GET is 404 GAME_CONFIG_NOT_FOUND', async () => {
    const w = await worldWithTemplate();
    const res = await adminGet(p, `casinos/${w.providerId}/games/${w.gameId}/config`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'GAME_CONFIG_NOT_FOUND', data: null });
  });

  test('When values is missing or not an object, then 400 Bad Request', async () => {
    const w = await worldWithTemplate();
    for (const body of [{}, { values: [] }, { values: 'x' }]) {
      const res = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/config`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Bad Request');
    }
  });

  test('When the casino or the game does not exist, then 404 names the missing one', async () => {
    const w = await worldWithTemplate();
    const noCasino = await adminPut(p, `casinos/${uniqueId('missing')}/games/${w.gameId}/config`, { values: {} });
    expect(noCasino.status).toBe(404);
    expect(noCasino.body.error).toBe('PROVIDER_NOT_FOUND');
    const noGame = await adminPut(p, `casinos/${w.providerId}/games/${uniqueGameId()}/config`, { values: {} });
    expect(noGame.status).toBe(404);
    expect(noGame.body.error).toBe('GAME_NOT_FOUND');
  });
});

const currencyBody = (overrides: Record<string, unknown> = {}) => ({
  minBet: 0.1,
  maxBet: 100,
  defaultBet: 1,
  betSuggestions: [0.5, 1, 5, 10],
  maxWin: 10000,
  minAutoCashout: 1.01,
  maxAutoCashout: 1000,
  defaultAutoCashout: 2,
  isRoundable: true,
  isDefault: false,
  ...overrides,
});

describe('PUT /admin/v1/casinos/{providerId}/games/{gameId}/currencies/{currency}', () => {
  test('When a currency config is set, then it is stored upper-case and answered with JSON numbers', async () => {
    const w = await provisionWorld(p);
    const res = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/usd`, currencyBody({ currency: 'USD' }));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      providerId: w.providerId,
      gameId: w.gameId,
      currency: 'USD',
      minBet: 0.1,
      maxBet: 100,
      defaultBet: 1,
      betSuggestions: [0.5, 1, 5, 10],
      maxWin: 10000,
      minAutoCashout: 1.01,
      maxAutoCashout: 1000,
      defaultAutoCashout: 2,
      isRoundable: true,
      isDefault: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // A replace keeps the record id.
    const replaced = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/USD`, currencyBody({ maxBet: 50 }));
    expect(replaced.body.data).toMatchObject({ id: res.body.data.id, maxBet: 50 });
  });

  test('When isDefault is set on one currency, then it is cleared on the casino\'s other currencies of that game only', async () => {
    const w = await provisionWorld(p);
    const otherGame = uniqueGameId();
    await adminPut(p, `games/${otherGame}`, { name: 'Other', groupId: w.groupId, frontendUrl: 'https://g.example' });
    await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/EUR`, currencyBody({ isDefault: true }));
    await adminPut(p, `casinos/${w.providerId}/games/${otherGame}/currencies/EUR`, currencyBody({ isDefault: true }));
    await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/USD`, currencyBody({ isDefault: true }));
    const list = await adminGet(p, `casinos/${w.providerId}/games/${w.gameId}/currencies`);
    expect(list.body.data.map((c: { currency: string; isDefault: boolean }) => [c.currency, c.isDefault])).toEqual([
      ['EUR', false],
      ['USD', true],
    ]);
    const other = await adminGet(p, `casinos/${w.providerId}/games/${otherGame}/currencies`);
    expect(other.body.data[0]).toMatchObject({ currency: 'EUR', isDefault: true });
  });

  test('When several currencies are made default at the same moment, then exactly one stays default', async () => {
    const w = await provisionWorld(p);
    const currencies = ['USD', 'EUR', 'GBP', 'JPY', 'CAD', 'AUD'];
    const results = await Promise.all(
      currencies.map((c) => adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/${c}`, currencyBody({ isDefault: true }))),
    );
    expect(results.map((r) => r.status)).toEqual(currencies.map(() => 200));
    const list = await adminGet(p, `casinos/${w.providerId}/games/${w.gameId}/currencies`);
    expect(list.body.data.filter((c: { isDefault: boolean }) => c.isDefault)).toHaveLength(1);
  });

  test('When auto-cashout values are absent, then they are stored as null', async () => {
    const w = await provisionWorld(p);
    const body = { minBet: 0, maxBet: 10, defaultBet: 0, maxWin: 100 };
    const res = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/BTC`, body);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ minBet: 0, betSuggestions: [], minAutoCashout: null, maxAutoCashout: null, defaultAutoCashout: null, isDefault: false, isRoundable: false });
  });

  test.each([
    ['minBet above defaultBet', { minBet: 2, defaultBet: 1 }],
    ['defaultBet above maxBet', { defaultBet: 200 }],
    ['a negative minBet', { minBet: -1 }],
    ['three decimals on minBet', { minBet: 0.105 }],
    ['three decimals on maxWin', { maxWin: 10.001 }],
    ['an amount as a string', { maxBet: '100' }],
    ['a suggestion below minBet', { betSuggestions: [0.05, 1] }],
    ['a suggestion above maxBet', { betSuggestions: [1, 101] }],
    ['a suggestion with three decimals', { betSuggestions: [1.005] }],
    ['minAutoCashout above defaultAutoCashout', { minAutoCashout: 3, defaultAutoCashout: 2 }],
    ['defaultAutoCashout above maxAutoCashout', { defaultAutoCashout: 2000 }],
    ['minAutoCashout above maxAutoCashout with no default', { minAutoCashout: 5, maxAutoCashout: 2, defaultAutoCashout: null }],
    ['a body currency other than the path', { currency: 'EUR' }],
    ['no maxWin', { maxWin: undefined }],
  ])('When the config has %s, then 400 Bad Request and nothing is stored', async (_what, overrides) => {
    const w = await provisionWorld(p);
    const res = await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/USD`, currencyBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
    expect(await p.db.primary('currency_configs').where({ provider_id: w.providerId }).first()).toBeUndefined();
  });

  test('When the currency in the path is malformed, then 400 Bad Request', async () => {
    const w = await provisionWorld(p);
    expect((await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/U$D`, currencyBody())).status).toBe(400);
  });

  test('When the casino or the game does not exist, then 404 names the missing one', async () => {
    const w = await provisionWorld(p);
    expect((await adminPut(p, `casinos/${uniqueId('missing')}/games/${w.gameId}/currencies/USD`, currencyBody())).body.error).toBe('PROVIDER_NOT_FOUND');
    expect((await adminPut(p, `casinos/${w.providerId}/games/${uniqueGameId()}/currencies/USD`, currencyBody())).body.error).toBe('GAME_NOT_FOUND');
  });
});

describe('DELETE /admin/v1/casinos/{providerId}/games/{gameId}/currencies/{currency}', () => {
  test('When a currency config is deleted, then 200 data null, and deleting it again is 404', async () => {
    const w = await provisionWorld(p);
    await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/USD`, currencyBody());
    const res = await adminDelete(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/usd`);
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect((await adminGet(p, `casinos/${w.providerId}/games/${w.gameId}/currencies`)).body.data).toEqual([]);
    const again = await adminDelete(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/USD`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ statusCode: 404, error: 'CURRENCY_CONFIG_NOT_FOUND', data: null });
    expect((await adminDelete(p, `casinos/${uniqueId('missing')}/games/${w.gameId}/currencies/USD`)).body.error).toBe('PROVIDER_NOT_FOUND');
  });

  test('When the casino is deleted, then its game and currency configs go with it', async () => {
    const w = await provisionWorld(p);
    await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/USD`, currencyBody());
    await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/config`, { values: {} });
    expect((await adminDelete(p, `casinos/${w.providerId}`)).status).toBe(200);
    expect(await p.db.primary('currency_configs').where({ provider_id: w.providerId }).first()).toBeUndefined();
    expect(await p.db.primary('casino_game_configs').where({ provider_id: w.providerId }).first()).toBeUndefined();
  });
});
