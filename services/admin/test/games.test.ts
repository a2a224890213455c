import { startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminGet, adminPut, provisionWorld } from '../../../test/provision';

let p: TestPlatform;
let groupId: string;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
  groupId = uniqueId('grp');
  await adminPut(p, `game-providers/${groupId}`, { name: 'Games Group' });
});
afterAll(async () => {
  await p.stop();
});

const gameBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Aviator',
  groupId,
  frontendUrl: 'https://game.example.com/play?skin=dark',
  ...overrides,
});

describe('PUT /admin/v1/games/{gameId}', () => {
  test('When a game is registered and then replaced, then the stored object is answered each time', async () => {
    const gameId = uniqueGameId();
    const created = await adminPut(p, `games/${gameId}`, gameBody());
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ gameId, name: 'Aviator', groupId, frontendUrl: 'https://game.example.com/play?skin=dark', status: 'ACTIVE' });
    const replaced = await adminPut(p, `games/${gameId}`, gameBody({ name: 'Aviator 2', status: 'INACTIVE', frontendUrl: 'http://localhost:3000/' }));
    expect(replaced.body.data).toMatchObject({ gameId, name: 'Aviator 2', status: 'INACTIVE', frontendUrl: 'http://localhost:3000/', createdAt: created.body.data.createdAt });
    expect((await adminGet(p, `games/${gameId}`)).body.data).toEqual(replaced.body.data);
  });

  test('When the game provider does not exist, then 404 GROUP_NOT_FOUND and nothing is stored', async () => {
    const gameId = uniqueGameId();
    const res = await adminPut(p, `games/${gameId}`, gameBody({ groupId: uniqueId('missing') }));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'GROUP_NOT_FOUND', data: null });
    expect((await adminGet(p, `games/${gameId}`)).body.error).toBe('GAME_NOT_FOUND');
  });

  test.each([
    ['a relative frontendUrl', gameBody({ frontendUrl: '/play' }), 'frontendUrl'],
    ['a javascript: frontendUrl', gameBody({ frontendUrl: 'javascript:alert(1)' }), 'frontendUrl'],
    ['no groupId', { name: 'x', frontendUrl: 'https://g.example' }, 'groupId'],
    ['an unknown status', gameBody({ status: 'ON' }), 'status'],
  ])('When the body has %s, then 400 Bad Request', async (_what, body, field) => {
    const res = await adminPut(p, `games/${uniqueGameId()}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  test.each(['abc', '0', '-5', '1.5', '99999999999'])('When the gameId is %s, then 400 Bad Request', async (gameId) => {
    const res = await adminPut(p, `games/${gameId}`, gameBody());
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
  });
});

describe('PUT /admin/v1/games/{gameId}/config-template', () => {
  const template = {
    properties: [
      { name: 'theme', type: 'DROPDOWN', values: ['dark', 'light'], required: true, default: 'dark' },
      { name: 'maxPlayers', type: 'NUMBER', required: false, default: 100 },
      { name: 'chatEnabled', type: 'BOOLEAN', required: false },
      { name: 'motd', type: 'STRING', required: false, default: 'Good luck' },
    ],
  };

  test('When a valid template is set, then it is stored with version 1 and bumps the version on change', async () => {
    const { gameId } = await provisionWorld(p);
    const res = await adminPut(p, `games/${gameId}/config-template`, template);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ gameId, properties: template.properties, version: 1 });
    const changed = await adminPut(p, `games/${gameId}/config-template`, { properties: [...template.properties, { name: 'x', type: 'STRING', required: true, default: '' }] });
    expect(changed.body.data.version).toBe(2);
    expect((await adminGet(p, `games/${gameId}/config-template`)).body.data.version).toBe(2);
  });

  test('When the game has no template, then GET is 404 TEMPLATE_NOT_FOUND', async () => {
    const { gameId } = await provisionWorld(p);
    const res = await adminGet(p, `games/${gameId}/config-template`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'TEMPLATE_NOT_FOUND', data: null });
  });

  test.each([
    ['a reserved name', [{ name: 'providerId', type: 'STRING', required: false }]],
    ['the reserved name _id', [{ name: '_id', type: 'STRING', required: false }]],
    ['an unknown type', [{ name: 'a', type: 'INTEGER', required: false }]],
    ['a dropdown without values', [{ name: 'a', type: 'DROPDOWN', required: false }]],
    ['a dropdown with empty values', [{ name: 'a', type: 'DROPDOWN', values: [], required: false }]],
    ['a NUMBER with a string default', [{ name: 'a', type: 'NUMBER', required: false, default: '5' }]],
    ['a BOOLEAN with a number default', [{ name: 'a', type: 'BOOLEAN', required: false, default: 1 }]],
    ['a dropdown default outside its values', [{ name: 'a', type: 'DROPDOWN', values: ['x'], required: false, default: 'y' }]],
    ['a duplicate name', [{ name: 'a', type: 'STRING', required: false }, { name: 'a', type: 'NUMBER', required: false }]],
    ['values on a STRING', [{ name: 'a', type: 'STRING', values: ['x'], required: false }]],
    ['no properties', undefined],
  ])('When the template has %s, then 400 Bad Request', async (_what, properties) => {
    const { gameId } = await provisionWorld(p);
    const res = await adminPut(p, `games/${gameId}/config-template`, { properties });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
    expect(res.body.details.length).toBeGreaterThan(0);
  });

  test('When the game does not exist, then 404 GAME_NOT_FOUND', async () => {
    const res = await adminPut(p, `games/${uniqueGameId()}/config-template`, template);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('GAME_NOT_FOUND');
  });
});

describe('template change rules', () => {
  const base = [
    { name: 'theme', type: 'DROPDOWN', values: ['dark', 'light', 'neon'], required: false, default: 'dark' },
    { name: 'speed', type: 'NUMBER', required: false, default: 1 },
    { name: 'legacy', type: 'STRING', required: false },
  ];

  /** A game with the base template and two casinos: one overriding theme=neon, one with no overrides. */
  async function gameWithConfigs() {
    const world = await provisionWorld(p);
    const other = uniqueId('cas');
    await adminPut(p, `casinos/${other}`, { name: 'Other', walletUrl: 'https://w.example' });
    expect((await adminPut(p, `games/${world.gameId}/config-template`, { properties: base })).status).toBe(200);
    expect((await adminPut(p, `casinos/${world.providerId}/games/${world.gameId}/config`, { values: { theme: 'neon', legacy: 'old' } })).status).toBe(200);
    expect((await adminPut(p, `casinos/${other}/games/${world.gameId}/config`, { values: {} })).status).toBe(200);
    return { gameId: world.gameId, neonCasino: world.providerId, plainCasino: other };
  }

  test('When a property with a default is added, then it is accepted', async () => {
    const { gameId, plainCasino } = await gameWithConfigs();
    const res = await adminPut(p, `games/${gameId}/config-template`, { properties: [...base, { name: 'sound', type: 'BOOLEAN', required: true, default: true }] });
    expect(res.status).toBe(200);
    const config = await adminGet(p, `casinos/${plainCasino}/games/${gameId}/config`);
    expect(config.body.data.values).toEqual({ theme: 'dark', speed: 1, sound: true });
  });

  test('When a required property without default is added, then 409 names every casino with a config', async () => {
    const { gameId, neonCasino, plainCasino } = await gameWithConfigs();
    const res = await adminPut(p, `games/${gameId}/config-template`, { properties: [...base, { name: 'currencySymbol', type: 'STRING', required: true }] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ statusCode: 409, error: 'TEMPLATE_CHANGE_REJECTED' });
    expect(res.body.data.providerIds.sort()).toEqual([neonCasino, plainCasino].sort());
    expect((await adminGet(p, `games/${gameId}/config-template`)).body.data.version).toBe(1);
  });

  test('When a required property without default is added to a game no casino configured, then it is accepted', async () => {
    const { gameId } = await provisionWorld(p);
    const res = await adminPut(p, `games/${gameId}/config-template`, { properties: [{ name: 'currencySymbol', type: 'STRING', required: true }] });
    expect(res.status).toBe(200);
  });

  test('When a dropdown value a casino uses is removed, then 409 names only that casino', async () => {
    const { gameId, neonCasino } = await gameWithConfigs();
    const properties = [{ ...base[0], values: ['dark', 'light'] }, base[1], base[2]];
    const res = await adminPut(p, `games/${gameId}/config-template`, { properties });
    expect(res.status).toBe(409);
    expect(res.body.data.providerIds).toEqual([neonCasino]);
    expect(JSON.stringify(res.body.data.casinos)).toContain('theme');
  });

  test('When a dropdown value no casino uses is removed, then it is accepted', async () => {
    const { gameId } = await gameWithConfigs();
    const res = await adminPut(p, `games/${gameId}/config-template`, { properties: [{ ...base[0], values: ['dark', 'neon'] }, base[1], base[2]] });
    expect(res.status).toBe(200);
  });

  test('When the type of an overridden property changes, then 409; when nobody overrides it, then accepted', async () => {
    const { gameId, neonCasino } = await gameWithConfigs();
    const themeAsNumber = [{ name: 'theme', type: 'NUMBER', required: false, default: 0 }, base[1], base[2]];
    const rejected = await adminPut(p, `games/${gameId}/config-template`, { properties: themeAsNumber });
    expect(rejected.status).toBe(409);
    expect(rejected.body.data.providerIds).toEqual([neonCasino]);
    // Even where the casino's value ('neon') would fit the new type, its meaning changed under it.
    const themeAsString = [{ name: 'theme', type: 'STRING', required: false, default: 'dark' }, base[1], base[2]];
    expect((await adminPut(p, `games/${gameId}/config-template`, { properties: themeAsString })).status).toBe(409);
    const speedAsString = [base[0], { name: 'speed', type: 'STRING', required: false, default: 'fast' }, base[2]];
    expect((await adminPut(p, `games/${gameId}/config-template`, { properties: speedAsString })).status).toBe(200);
  });

  test('When an overridden property is removed, then it is accepted and the override is dropped', async () => {
    const { gameId, neonCasino } = await gameWithConfigs();
    const res = await adminPut(p, `games/${gameId}/config-template`, { properties: [base[0], base[1]] });
    expect(res.status).toBe(200);
    const config = await adminGet(p, `casinos/${neonCasino}/games/${gameId}/config`);
    expect(config.body.data).toMatchObject({ values: { theme: 'neon', speed: 1 }, overrides: ['theme'] });
    // Re-adding it as a required property now needs an answer: the old one is gone.
    const readd = await adminPut(p, `games/${gameId}/config-template`, { properties: [base[0], base[1], { name: 'legacy', type: 'NUMBER', required: true }] });
    expect(readd.status).toBe(409);
  });
});
