import net from 'node:net';
import { ALL_SERVICES, http, startPlatform, type TestPlatform } from '../../../test/platform';
import { adminDelete, adminPut, provisionWorld, type World } from '../../../test/provision';
import { createRuntime, closeRuntime, loadConfig, IdentitySigner } from '@relay/shared';
import { eventually } from '../../../test/faults/support/money';
import { startGateway } from '../src';

// Admin changes reach every gateway over the change bus in milliseconds; the tests poll for them. The
// deadline only bounds a worker stalled by a loaded machine: far under the 30 s cache lifetime, so a
// change the bus never carried still fails.
const PROPAGATION_DEADLINE_MS = 10_000;

describe('gateway', () => {
  let p: TestPlatform;
  let world: World;

  beforeAll(async () => {
    p = await startPlatform();
    world = await provisionWorld(p);
  });
  afterAll(() => p.stop());

  /** A call that passes authentication reaches the wallet, which then answers about the session. */
  const balance = (token?: string) => http('GET', `${p.baseUrl}/api/account?sessionId=nope`, { token });

  /**
   * Another gateway instance with its own in-process caches, as in a scaled deployment, in front
   * of this platform's services (or of the addresses given instead); closed after `use`.
   */
  async function withSecondGateway(use: (url: string) => Promise<void>, urls: Record<string, string> = {}): Promise<void> {
    const env = { ...process.env, REDIS_KEY_PREFIX: p.config.REDIS_KEY_PREFIX } as Record<string, string>;
    for (const name of ALL_SERVICES) env[`${name.toUpperCase()}_URL`] = p.services[name]!.url;
    const rt = await createRuntime('gateway', loadConfig({ ...env, ...urls }));
    const gw = await startGateway(rt, 0);
    try {
      await use(gw.server.url);
    } finally {
      await gw.server.close(1000);
      await closeRuntime(rt);
    }
  }

  it('When a game calls without a token, then every route family answers 403 AUTHENTICATION_FAILED in its own style', async () => {
    const wallet = await balance();
    expect(wallet.status).toBe(403);
    expect(wallet.body).toMatchObject({ error: 'AUTHENTICATION_FAILED' });
    const envelope = await http('GET', `${p.baseUrl}/api/v1/rounds`);
    expect(envelope.status).toBe(403);
    expect(envelope.body).toMatchObject({ statusCode: 403, error: 'AUTHENTICATION_FAILED', data: null });
    expect(typeof envelope.body.message).toBe('string');
    const notifier = await http('POST', `${p.baseUrl}/api/round-ended`, { body: { roundId: 'r', providerIds: ['x'] } });
    expect(notifier.status).toBe(403);
  });

  it('When the token is unknown, malformed or the admin token, then the game route answers 403 AUTHENTICATION_FAILED', async () => {
    for (const token of ['grp_unknown', 'x'.repeat(600), p.adminToken]) {
      const res = await balance(token);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('AUTHENTICATION_FAILED');
    }
    const basic = await http('GET', `${p.baseUrl}/api/account?sessionId=nope`, { headers: { authorization: `Basic ${world.providerToken}` } });
    expect(basic.status).toBe(403);
  });

  it('When the admin token is being rotated, then a gateway with ADMIN_TOKEN_PREVIOUS takes the old and the new token, and nothing else', async () => {
    const fresh = 'rotated-admin-token-0123456789';
    await withSecondGateway(
      async (url) => {
        for (const token of [fresh, p.adminToken]) {
          expect((await http('GET', `${url}/admin/v1/casinos`, { token })).status).toBe(200);
          expect((await http('GET', `${url}/metrics`, { token })).status).toBe(200);
        }
        expect((await http('GET', `${url}/admin/v1/casinos`, { token: 'some-other-token-0123456789' })).status).toBe(403);
      },
      { ADMIN_TOKEN: fresh, ADMIN_TOKEN_PREVIOUS: p.adminToken },
    );
  });

  it('When the token is valid, then the request reaches the service behind the gateway', async () => {
    const res = await balance(world.providerToken);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('SESSION_EXPIRED'); // answered by the wallet: authentication passed
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  // Issue 36, finding 12: no HSTS or nosniff on API answers.
  it('When anything answers through the gateway, then the answer forbids content sniffing and asks for HTTPS only', async () => {
    const answers = [
      await balance(world.providerToken), // a service behind the gateway
      await balance(), // the gateway's own refusal
      await http('GET', `${p.baseUrl}/no-such-route`),
      await http('GET', `${p.baseUrl}/healthz`),
      await http('GET', `${p.baseUrl}/docs`),
    ];
    for (const res of answers) {
      expect([res.status, res.headers.get('x-content-type-options'), res.headers.get('strict-transport-security')])
        .toEqual([res.status, 'nosniff', 'max-age=63072000; includeSubDomains']);
    }
  });

  // Issue 36, finding 7: the admin token was also Prometheus's scrape credential.
  it('When Prometheus scrapes with the metrics token, then /metrics answers and nothing else opens to that token', async () => {
    const scrape = 'metrics-token-0123456789abcdef';
    await withSecondGateway(
      async (url) => {
        expect((await http('GET', `${url}/metrics`, { token: scrape })).status).toBe(200);
        expect((await http('GET', `${url}/metrics`, { token: p.adminToken })).status).toBe(200);
        expect((await http('GET', `${url}/metrics`, { token: 'another-token-0123456789abcdef' })).status).toBe(403);
        expect((await http('GET', `${url}/metrics`)).status).toBe(403);
        for (const path of ['/admin/v1/casinos', '/backoffice/v1/casinos', '/api/account?sessionId=x&currency=EUR', '/api/v1/rounds']) {
          expect([path, (await http('GET', `${url}${path}`, { token: scrape })).status]).toEqual([path, 403]);
        }
      },
      { METRICS_TOKEN: scrape },
    );
  });

  it('When the gateway is configured without a bind address, then it listens on loopback only', () => {
    expect(loadConfig({}).GATEWAY_HOST).toBe('127.0.0.1');
    expect(loadConfig({ GATEWAY_HOST: '0.0.0.0' }).GATEWAY_HOST).toBe('0.0.0.0');
  });

  it('When a game provider token is used on the admin API, then it is refused', async () => {
    const res = await http('GET', `${p.baseUrl}/admin/v1/casinos`, { token: world.providerToken });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ statusCode: 403, error: 'AUTHENTICATION_FAILED', data: null });
    const none = await http('GET', `${p.baseUrl}/admin/v1/casinos`);
    expect(none.status).toBe(403);
  });

  it('When the game provider is set inactive, then its token answers 403 GROUP_NOT_ACTIVE', async () => {
    const w = await provisionWorld(p);
    expect((await balance(w.providerToken)).body.error).toBe('SESSION_EXPIRED');
    expect((await adminPut(p, `game-providers/${w.groupId}`, { name: 'Paused', status: 'INACTIVE' })).status).toBe(200);
    await eventually(async () => (await balance(w.providerToken)).status === 403, PROPAGATION_DEADLINE_MS, 'the inactive game provider to be refused');
    const res = await balance(w.providerToken);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('GROUP_NOT_ACTIVE');
    const envelope = await http('GET', `${p.baseUrl}/api/v1/providers/ids`, { token: w.providerToken });
    expect(envelope.body).toMatchObject({ statusCode: 403, error: 'GROUP_NOT_ACTIVE' });
  });

  it('When a token is revoked, then every gateway instance refuses it', async () => {
    const w = await provisionWorld(p);
    await withSecondGateway(async (second) => {
      const viaSecond = () => http('GET', `${second}/api/account?sessionId=nope`, { token: w.providerToken });
      // Warm both caches with the valid token.
      expect((await balance(w.providerToken)).body.error).toBe('SESSION_EXPIRED');
      expect((await viaSecond()).body.error).toBe('SESSION_EXPIRED');

      expect((await adminDelete(p, `game-providers/${w.groupId}/tokens/${w.tokenId}`)).status).toBe(200);
      await eventually(async () => (await balance(w.providerToken)).status === 403 && (await viaSecond()).status === 403, PROPAGATION_DEADLINE_MS, 'both gateways to refuse the revoked token');
      expect((await balance(w.providerToken)).body.error).toBe('AUTHENTICATION_FAILED');
      expect((await viaSecond()).body.error).toBe('AUTHENTICATION_FAILED');
    });
  });

  it('When the service behind a route hangs up on every connection, then the gateway answers 503 SERVICE_UNAVAILABLE in the route\'s own style and stays up', async () => {
    // A gateway whose wallet and reporting addresses lead to a listener that hangs up on every
    // connection (kept open for the test, so no other process can take its port meanwhile).
    const dead = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadPort = (dead.address() as net.AddressInfo).port;
    const deadUrl = `http://127.0.0.1:${deadPort}`;
    try {
      await withSecondGateway(
        async (gw) => {
          for (let i = 0; i < 3; i++) {
            const wallet = await http('GET', `${gw}/api/account?sessionId=nope`, { token: world.providerToken });
            expect(wallet.status).toBe(503);
            expect(wallet.body).toEqual({ error: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
            const envelope = await http('GET', `${gw}/api/v1/rounds`, { token: world.providerToken });
            expect(envelope.status).toBe(503);
            expect(envelope.body).toMatchObject({ statusCode: 503, error: 'SERVICE_UNAVAILABLE', data: null });
          }
          // The routes whose service is up still pass through.
          const admin = await http('GET', `${gw}/admin/v1/game-providers/${world.groupId}`, { token: p.adminToken });
          expect(admin.status).toBe(200);
        },
        { WALLET_URL: deadUrl, REPORTING_URL: deadUrl },
      );
    } finally {
      dead.close();
    }
  });

  it('When a request goes straight to a service without the gateway identity, then the service refuses it', async () => {
    for (const name of ALL_SERVICES) {
      const url = p.services[name]!.url;
      const res = await http('GET', `${url}/api/account?sessionId=x`, { token: world.providerToken });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('AUTHENTICATION_FAILED');
    }
    // An identity signed with another secret is no identity.
    const forged = await new IdentitySigner('another-secret-of-at-least-32-characters!').sign({ kind: 'provider', groupId: world.groupId });
    const res = await http('GET', `${p.services.wallet!.url}/api/account?sessionId=x`, { headers: { 'x-relay-identity': forged } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('AUTHENTICATION_FAILED');
    // Health stays open on every service.
    expect((await http('GET', `${p.services.wallet!.url}/healthz`)).body).toEqual({ status: 'ok' });
  });

  it('When a client sends its own X-Relay-Identity through the gateway, then it is replaced, not trusted', async () => {
    const forged = await new IdentitySigner(p.config.INTERNAL_AUTH_SECRET).sign({ kind: 'admin' });
    const res = await http('GET', `${p.baseUrl}/admin/v1/casinos`, { headers: { 'x-relay-identity': forged } });
    expect(res.status).toBe(403);
  });

  it('When the route is unknown, then the answer is 404 NOT_FOUND', async () => {
    const api = await http('GET', `${p.baseUrl}/api/v1/nothing-here`, { token: world.providerToken });
    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND', data: null });
    const accounts = await http('GET', `${p.baseUrl}/api/accounts`, { token: world.providerToken });
    expect(accounts.status).toBe(404);
    expect(accounts.body).toMatchObject({ error: 'NOT_FOUND' });
    expect((await http('GET', `${p.baseUrl}/favicon.ico`)).status).toBe(404);
  });

  it('When a body is larger than 64 KiB or not JSON, then the answer is 413 or 400 without a stack trace', async () => {
    const big = await http('POST', `${p.baseUrl}/api/balance/cash-out`, { token: world.providerToken, raw: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }) });
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('PAYLOAD_TOO_LARGE');
    const bad = await http('POST', `${p.baseUrl}/api/balance/cash-out`, { token: world.providerToken, raw: '{"amount": 1,' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Bad Request');
    expect(bad.text).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('When health is asked, then healthz answers ok and readyz names every dependency', async () => {
    expect((await http('GET', `${p.baseUrl}/healthz`)).body).toEqual({ status: 'ok' });
    const ready = await http('GET', `${p.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(Object.keys(ready.body.checks).sort()).toEqual(['admin', 'backoffice', 'launcher', 'notifier', 'postgres', 'redis', 'reporting', 'wallet']);
    // The public port serves metrics to the admin token only.
    expect((await http('GET', `${p.baseUrl}/metrics`)).status).toBe(403);
    expect((await http('GET', `${p.baseUrl}/metrics`, { token: world.providerToken })).status).toBe(403);
    const metrics = await http('GET', `${p.baseUrl}/metrics`, { token: p.adminToken });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('http_requests_total');
    expect(metrics.text).toContain('http_request_duration_seconds_bucket');
  });
});

describe('gateway rate limit', () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startPlatform({ env: { RATE_LIMIT_PER_SECOND: '5' }, services: ['wallet', 'admin'] });
  });
  afterAll(() => p.stop());

  it('When a game provider exceeds its requests per second, then it gets 429 with Retry-After and others are not affected', async () => {
    const a = await provisionWorld(p);
    const b = await provisionWorld(p);
    const results = await Promise.all(Array.from({ length: 12 }, () => http('GET', `${p.baseUrl}/api/account?sessionId=x`, { token: a.providerToken })));
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].body).toEqual({ error: 'RATE_LIMITED', message: expect.any(String) });
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const other = await http('GET', `${p.baseUrl}/api/account?sessionId=x`, { token: b.providerToken });
    expect(other.body.error).toBe('SESSION_EXPIRED');
  });
});
