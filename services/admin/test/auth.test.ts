import { http, startPlatform, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';

/** Every admin route refuses anyone but the platform admin, before looking at the request. */
let p: TestPlatform;
let world: World;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
  world = await provisionWorld(p);
});
afterAll(async () => {
  await p.stop();
});

const routes = (): [string, string][] => [
  ['PUT', `casinos/${world.providerId}`],
  ['GET', 'casinos'],
  ['GET', `casinos/${world.providerId}`],
  ['DELETE', `casinos/${world.providerId}`],
  ['PUT', `game-providers/${world.groupId}`],
  ['GET', 'game-providers'],
  ['GET', `game-providers/${world.groupId}`],
  ['POST', `game-providers/${world.groupId}/tokens`],
  ['DELETE', `game-providers/${world.groupId}/tokens/${world.tokenId}`],
  ['PUT', `game-providers/${world.groupId}/launch-encryption-key`],
  ['DELETE', `game-providers/${world.groupId}/launch-encryption-key`],
  ['PUT', `games/${world.gameId}`],
  ['GET', 'games'],
  ['GET', `games/${world.gameId}`],
  ['PUT', `games/${world.gameId}/config-template`],
  ['GET', `games/${world.gameId}/config-template`],
  ['PUT', `casinos/${world.providerId}/games/${world.gameId}/config`],
  ['GET', `casinos/${world.providerId}/games/${world.gameId}/config`],
  ['GET', `casinos/${world.providerId}/games/${world.gameId}/currencies`],
  ['PUT', `casinos/${world.providerId}/games/${world.gameId}/currencies/USD`],
  ['DELETE', `casinos/${world.providerId}/games/${world.gameId}/currencies/USD`],
  ['GET', 'no-such-route'],
];

const callers: [string, () => string | undefined][] = [
  ['no token', () => undefined],
  ['a wrong token', () => 'not-the-admin-token-0000000000'],
  ['a game provider token', () => world.providerToken],
];

describe.each(callers)('When a request to /admin/v1 carries %s', (_who, callerToken) => {
  test('then every route answers 403 AUTHENTICATION_FAILED in the envelope style and changes nothing', async () => {
    for (const [method, path] of routes()) {
      const res = await http(method, `${p.baseUrl}/admin/v1/${path}`, { token: callerToken(), body: method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' } });
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 403,
        body: { statusCode: 403, message: expect.any(String), error: 'AUTHENTICATION_FAILED', data: null },
      });
    }
    const casino = await p.db.primary('casinos').where({ provider_id: world.providerId }).first();
    expect(casino).toBeDefined();
    const token = await p.db.primary('provider_tokens').where({ token_id: world.tokenId }).first();
    expect(token.revoked_at).toBeNull();
  });
});

describe('When the admin service is called directly, bypassing the gateway', () => {
  test('then a request without a gateway identity, or with a non-admin one, is refused', async () => {
    const url = `${p.services.admin!.url}/admin/v1/casinos`;
    const none = await http('GET', url, { token: p.adminToken });
    expect(none.status).toBe(403);
    expect(none.body.error).toBe('AUTHENTICATION_FAILED');
    for (const identity of [{ kind: 'provider' as const, groupId: world.groupId }, { kind: 'public' as const }]) {
      const res = await http('GET', url, { headers: await p.identityHeader(identity) });
      expect(res.status).toBe(403);
    }
    const admin = await http('GET', url, { headers: await p.identityHeader({ kind: 'admin' }) });
    expect(admin.status).toBe(200);
  });

  test('then health routes answer without identity', async () => {
    const res = await http('GET', `${p.services.admin!.url}/healthz`);
    expect(res.status).toBe(200);
    expect((await http('GET', `${p.services.admin!.url}/readyz`)).body.status).toBe('ready');
  });
});

describe('When the admin calls a route that does not exist', () => {
  test('then 404 NOT_FOUND in the envelope style', async () => {
    const res = await http('GET', `${p.baseUrl}/admin/v1/no-such-route`, { token: p.adminToken });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND', data: null });
  });
});
