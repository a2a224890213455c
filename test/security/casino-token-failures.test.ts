import { randomBytes } from 'node:crypto';
import { closeRuntime, createRuntime, loadConfig } from '@relay/shared';
import { startGateway } from '../../services/gateway/src';
import { burst, countBy } from '../abuse/support';
import { bo } from '../backoffice';
import { startGameWorld, type GameWorld } from '../game';
import { ALL_SERVICES, http, startPlatform, type TestPlatform } from '../platform';

/**
 * Issue 36, finding 8: unknown casino API tokens (`cat_...`) had no failure limit, so every junk
 * token cost a database lookup. They are now limited per address as game provider tokens are
 * (GATEWAY_AUTH_FAILURES_PER_MINUTE), and a token the gateway knows still passes from that address.
 */
const LIMIT = 30;
let p: TestPlatform;
let a: GameWorld;

beforeAll(async () => {
  p = await startPlatform({ env: { GATEWAY_AUTH_FAILURES_PER_MINUTE: String(LIMIT) } });
  a = await startGameWorld(p);
}, 60_000);
afterAll(async () => {
  await p?.stop();
  await a?.sandbox.close();
});

describe('When an address presents many unknown casino API tokens', () => {
  it('then the database is asked only until the address is cut off with 429, and a known casino token still passes from it', async () => {
    const issued = await http('POST', bo(p, `casinos/${a.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'limit test' } });
    expect(issued.status).toBe(201);
    const token: string = issued.body.data.token;

    // A gateway of its own, so this address's lock-out does not touch other tests.
    const env = { ...process.env, GATEWAY_AUTH_FAILURES_PER_MINUTE: String(LIMIT), REDIS_KEY_PREFIX: p.config.REDIS_KEY_PREFIX } as Record<string, string>;
    for (const name of ALL_SERVICES) env[`${name.toUpperCase()}_URL`] = p.services[name]!.url;
    const rt = await createRuntime('gateway', loadConfig(env));
    const gw = await startGateway(rt, 0);
    const known = () => fetch(`${gw.server.url}/backoffice/v1/session`, { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 100 && !rt.bus.healthy; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await known()).status).toBe(200);
    let lookups = 0;
    rt.db.primary.on('query', (q: { sql: string }) => {
      if (q.sql.includes('casino_api_tokens')) lookups++;
    });
    try {
      const answers = await burst(400, 10, () => fetch(`${gw.server.url}/backoffice/v1/session`, { headers: { authorization: `Bearer cat_${randomBytes(32).toString('base64url')}` } }));
      const by = countBy(answers, (x) => x.status);
      expect((by['403'] ?? 0) + (by['429'] ?? 0)).toBe(400);
      expect(by['429']).toBeGreaterThan(400 - LIMIT - 10);
      expect(answers.filter((x) => x.status === 429).every((x) => Number(x.retryAfter) >= 1)).toBe(true);
      // The limit, plus the lookups already in flight when it was reached.
      expect(lookups).toBeGreaterThanOrEqual(LIMIT);
      expect(lookups).toBeLessThanOrEqual(LIMIT + 10);
      expect((await known()).status).toBe(200);
    } finally {
      await gw.server.close(1000);
      await closeRuntime(rt);
    }
  }, 120_000);
});
