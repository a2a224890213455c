import { closeRuntime, createRuntime, type RunningServer, type Runtime } from '@relay/shared';
import { http, startPlatform, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { adminPut } from '../provision';
import { scenarioIt, Tally } from '../faults/support/reliability';
import { eventually, sleep } from '../faults/support/money';

/**
 * Fair share at the gateway: a game provider set to 5 requests per second through the admin API
 * gets 429 with Retry-After beyond it, across every gateway (the budget is in Redis), while another
 * game provider on the platform default is not slowed at all.
 */
const tally = new Tally(
  'rate-limit',
  'Rate limit per game provider at the gateway',
  'test/security/rate-limit.test.ts',
  'Provider A is set to rateLimitPerSecond 5 through the admin API, provider B stays on the platform default. Bursts from A get 429 RATE_LIMITED with Retry-After (wallet style on wallet routes, envelope on /api/v1) and never reach the casino, while B\'s concurrent requests all succeed; the budget is shared by two gateways through Redis; A is served again after Retry-After, and unlimited again once the limit is removed.',
);
const scenario = scenarioIt(tally);
const LIMIT = 5;
/**
 * The budget is a one-second window in Redis, opened by the first request after the last one closed.
 * A burst lasting `elapsedMs` (measured around it) can touch at most one window per started second of
 * it, plus the one it began in: a loaded machine may stretch a burst over several. `straddle` allows
 * one more for a burst that may begin in a window opened just before it.
 */
const windowsTouched = (elapsedMs: number, straddle = 0) => Math.floor((elapsedMs + 100) / 1000) + 1 + straddle;

describe('rate limit per game provider', () => {
  let p: TestPlatform;
  let a: GameWorld;
  let b: GameWorld;
  let pa: Player;
  let pb: Player;
  let second: { rt: Runtime; server: RunningServer; url: string };

  const setLimit = (world: GameWorld, rateLimitPerSecond: number | null) => adminPut(p, `game-providers/${world.groupId}`, { name: `Provider ${world.groupId}`, rateLimitPerSecond });
  const balance = (world: GameWorld, pl: Player, base = p.baseUrl) => http('GET', `${base}/api/account?sessionId=${pl.sessionId}`, { token: world.providerToken });
  const burst = async (n: number, send: () => ReturnType<typeof http>) => {
    tally.request(n);
    return Promise.all(Array.from({ length: n }, send));
  };
  const casinoCalls = (world: GameWorld) => world.sandbox.countCalls({ providerId: world.providerId, operation: 'balance' });

  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'reporting', 'admin'] });
    a = await startGameWorld(p);
    b = await startGameWorld(p, { sandbox: a.sandbox });
    [pa, pb] = await Promise.all([a.launchPlayer(), b.launchPlayer()]);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startGateway } = require('../../services/gateway/src');
    const rt = await createRuntime('gateway', p.config);
    const { server } = (await startGateway(rt, 0)) as { server: RunningServer };
    second = { rt, server, url: `http://127.0.0.1:${server.port}` };
    expect((await setLimit(a, LIMIT)).body.data.rateLimitPerSecond).toBe(LIMIT);
    // docs/api/admin.json: an admin change takes effect once the change bus carries it (milliseconds; the
    // deadline only bounds a stalled worker and stays far under the 30 s cache lifetime).
    await eventually(async () => (await burst(LIMIT + 3, () => balance(a, pa))).some((r) => r.status === 429), 10_000, 'the limit to apply');
    tally.fault('rateLimitPerSecond 5 for A');
  });
  afterAll(async () => {
    tally.write();
    if (second) {
      await second.server.close(1000);
      await closeRuntime(second.rt);
    }
    await p?.stop();
    await a?.sandbox.close();
  });

  scenario('When A bursts far beyond its limit while B works normally, then A gets 429 with Retry-After and never reaches the casino, and every request of B succeeds', async () => {
    await sleep(1100);
    const callsBefore = casinoCalls(a);
    const started = Date.now();
    const [fromA, fromB] = await Promise.all([burst(40, () => balance(a, pa)), burst(40, () => balance(b, pb))]);
    const elapsed = Date.now() - started;
    const limited = fromA.filter((r) => r.status === 429);
    const served = fromA.filter((r) => r.status === 200);
    expect(served.length + limited.length).toBe(40);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(LIMIT * windowsTouched(elapsed, 1));
    for (const r of limited) {
      expect(r.body).toEqual({ error: 'RATE_LIMITED', message: expect.any(String) });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(casinoCalls(a) - callsBefore).toBe(served.length);
    expect(fromB.map((r) => r.status)).toEqual(fromB.map(() => 200));
    tally.check('A limited, B unaffected');
  });

  scenario('When A is limited on an envelope route, then the 429 comes in the envelope', async () => {
    await sleep(1100);
    const started = Date.now();
    const results = await burst(20, () => http('GET', `${p.baseUrl}/api/v1/rounds`, { token: a.providerToken }));
    const elapsed = Date.now() - started;
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(20 - LIMIT * windowsTouched(elapsed, 1));
    for (const r of limited) expect(r.body).toMatchObject({ statusCode: 429, error: 'RATE_LIMITED', data: null });
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  scenario('When A bursts through two gateways at once, then both share one budget in Redis', async () => {
    await sleep(1100); // a fresh one-second window, starting at the first request
    const started = Date.now();
    const results = await burst(30, () => balance(a, pa, second.url));
    const both = [...results, ...(await burst(30, () => balance(a, pa)))];
    const elapsed = Date.now() - started;
    const served = both.filter((r) => r.status === 200).length;
    // One budget for both gateways per window (separate budgets would serve up to twice the limit).
    expect(served).toBeLessThanOrEqual(LIMIT * windowsTouched(elapsed));
    expect(both.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(60 - LIMIT * windowsTouched(elapsed, 1));
    tally.check('budget shared across gateways');
  });

  scenario('When A waits out Retry-After, then it is served again; when its limit is removed, then bursts pass', async () => {
    const limited = (await burst(LIMIT * 3, () => balance(a, pa))).find((r) => r.status === 429)!;
    await sleep(Number(limited.headers.get('retry-after')) * 1000 + 50);
    expect((await balance(a, pa)).status).toBe(200);
    expect((await setLimit(a, null)).body.data.rateLimitPerSecond).toBeNull();
    await eventually(async () => (await burst(LIMIT * 4, () => balance(a, pa))).every((r) => r.status === 200), 10_000, 'the limit to be lifted');
    tally.check('limit lifted by the admin API');
  });
});
