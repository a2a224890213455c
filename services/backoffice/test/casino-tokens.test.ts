import { http, startPlatform, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { eventually } from '../../../test/faults/support/money';
import { bo } from '../../../test/backoffice';

/** Casino API tokens: issued by a platform admin, shown once, stored as a hash, used, revoked everywhere. */
// A revocation reaches every gateway over the change bus in milliseconds. The tests poll for it with a
// deadline that only bounds a worker stalled by a loaded machine: far under the gateways' 30 s cache
// lifetime, so a revocation the bus never carried still fails.
const PROPAGATION_DEADLINE_MS = 10_000;
let p: TestPlatform;
let a: World;
let b: World;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin', 'backoffice'] });
  [a, b] = [await provisionWorld(p), await provisionWorld(p)];
}, 30000);
afterAll(async () => {
  await p?.stop();
});

describe('When a platform admin issues a casino API token', () => {
  it('then it is shown once, stored only as its hash, reads its own casino only, and is refused once revoked', async () => {
    const issued = await http('POST', bo(p, `casinos/${a.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'nightly reconciliation' } });
    expect(issued.status).toBe(201);
    const { token, tokenId } = issued.body.data;
    expect(token).toMatch(/^cat_[\w-]{43}$/);
    const stored = await p.db.primary('casino_api_tokens').where({ token_id: tokenId }).first();
    expect(JSON.stringify(stored)).not.toContain(token);

    const listed = await http('GET', bo(p, `casinos/${a.providerId}/api-tokens`), { token: p.adminToken });
    expect(listed.body.data.map((t: any) => t.tokenId)).toContain(tokenId);
    expect(listed.text).not.toContain(token);

    const me = await http('GET', bo(p, 'session'), { token });
    expect(me.body.data).toMatchObject({ actorType: 'casino-token', role: 'support', scope: { type: 'casino', providerId: a.providerId } });
    const casinos = await http('GET', bo(p, 'casinos'), { token });
    expect(casinos.body.data.map((c: any) => c.providerId)).toEqual([a.providerId]);
    // No use on another casino's tokens, the accounts or the admin API.
    expect((await http('GET', bo(p, `casinos/${b.providerId}/api-tokens`), { token })).status).toBe(403);
    expect((await http('GET', `${p.baseUrl}/admin/v1/casinos`, { token })).status).toBe(403);

    expect((await http('DELETE', bo(p, `casinos/${a.providerId}/api-tokens/${tokenId}`), { token: p.adminToken })).status).toBe(200);
    await eventually(async () => (await http('GET', bo(p, 'casinos'), { token })).status === 403, PROPAGATION_DEADLINE_MS, 'the revoked token to be refused');
    const refused = await http('GET', bo(p, 'casinos'), { token });
    expect(refused.body.error).toBe('AUTHENTICATION_FAILED');
    // Revoking twice, or a token of another casino, names what is missing.
    expect((await http('DELETE', bo(p, `casinos/${a.providerId}/api-tokens/${tokenId}`), { token: p.adminToken })).body.error).toBe('TOKEN_NOT_FOUND');
  });

  it('then a token for a casino that does not exist is refused with PROVIDER_NOT_FOUND, and a bad body with 400', async () => {
    const missing = await http('POST', bo(p, 'casinos/no-such-casino/api-tokens'), { token: p.adminToken, body: { name: 'x' } });
    expect([missing.status, missing.body.error]).toEqual([404, 'PROVIDER_NOT_FOUND']);
    const bad = await http('POST', bo(p, `casinos/${a.providerId}/api-tokens`), { token: p.adminToken, body: { name: '' } });
    expect([bad.status, bad.body.error]).toEqual([400, 'Bad Request']);
  });

  it('then a revocation seen by a second gateway (another process) is refused there too', async () => {
    const second = await startPlatform({ services: [], env: { REDIS_KEY_PREFIX: p.config.REDIS_KEY_PREFIX, BACKOFFICE_URL: p.services.backoffice!.url } });
    try {
      const issued = await http('POST', bo(p, `casinos/${a.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'second gateway' } });
      const { token, tokenId } = issued.body.data;
      expect((await http('GET', `${second.baseUrl}/backoffice/v1/casinos`, { token })).status).toBe(200);
      await http('DELETE', bo(p, `casinos/${a.providerId}/api-tokens/${tokenId}`), { token: p.adminToken });
      await eventually(async () => (await http('GET', `${second.baseUrl}/backoffice/v1/casinos`, { token })).status === 403, PROPAGATION_DEADLINE_MS, 'the second gateway to refuse');
    } finally {
      await second.stop();
    }
  });
});

describe('When the casino of a token is deleted', () => {
  it('then its API tokens are refused', async () => {
    const world = await provisionWorld(p);
    const issued = await http('POST', bo(p, `casinos/${world.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'doomed' } });
    const token: string = issued.body.data.token;
    expect((await http('GET', bo(p, 'casinos'), { token })).status).toBe(200);
    expect((await http('DELETE', `${p.baseUrl}/admin/v1/casinos/${world.providerId}`, { token: p.adminToken })).status).toBe(200);
    await eventually(async () => (await http('GET', bo(p, 'casinos'), { token })).status === 403, PROPAGATION_DEADLINE_MS, 'the token of a deleted casino to be refused');
  });
});
