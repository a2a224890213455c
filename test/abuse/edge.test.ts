import { randomBytes } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { closeRuntime, createRuntime, loadConfig } from '@relay/shared';
import { startGateway } from '../../services/gateway/src';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { ALL_SERVICES, http, startPlatform, type TestPlatform } from '../platform';
import { scenarioIt, Tally } from '../faults/support/reliability';
import { burst as rawBurst, countBy, slowBody } from './support';

/**
 * The public edge under abuse (loopback only, bounded): bursts past the upstream pools, one
 * tenant's slow bodies and slow casino, random paths, unknown tokens, a stopped service. The
 * gateway runs with small pools (32 sockets per service, 16 per tenant) so that a few hundred
 * requests overload it as thousands would in production.
 */
const EDGE = {
  GATEWAY_UPSTREAM_MAX_SOCKETS: '32',
  GATEWAY_TENANT_SHARE: '0.5',
  GATEWAY_BODY_TIMEOUT_MS: '2000',
  GATEWAY_AUTH_FAILURES_PER_MINUTE: '30',
};

const tally = new Tally(
  'abuse-edge',
  'Bursts, slow tenants and junk at the public edge',
  'test/abuse/edge.test.ts',
  'An in-process platform whose gateway has 32 upstream sockets per service and 16 per tenant, driven over loopback with bounded loops: 300-request bursts of launches, authenticated reads and balance reads against a casino taking 4 s; 60 sockets dripping a 60 KB body a byte at a time; 20,000 random paths; 2,000 distinct unknown tokens; the admin service stopped. Every request gets an answer (overload: 429 or 503 with Retry-After, never a dropped socket), another tenant is served within 3 s, metric labels stay route templates, unknown tokens stop reaching the database, and the gateway stays ready without the admin service.',
);
const scenario = scenarioIt(tally);
const burst: typeof rawBurst = async (count, concurrency, send) => {
  tally.request(count);
  const answers = await rawBurst(count, concurrency, send);
  const by = countBy(answers, (x) => x.status);
  tally.note(`${count} requests, ${concurrency} at a time: ${Object.entries(by).map(([status, n]) => `${n} x ${status === '0' ? 'dropped' : status}`).join(', ')}; slowest ${Math.max(...answers.map((x) => x.ms))} ms`);
  return answers;
};

let p: TestPlatform;
let a: GameWorld;
let b: GameWorld;
let playerA: Player;
let playerB: Player;

beforeAll(async () => {
  p = await startPlatform({ env: EDGE });
  a = await startGameWorld(p);
  b = await startGameWorld(p, { sandbox: a.sandbox });
  [playerA, playerB] = await Promise.all([a.launchPlayer(), b.launchPlayer()]);
}, 60000);
afterAll(async () => {
  tally.write();
  await p?.stop();
  await a?.sandbox.close();
});

const balanceOf = (world: GameWorld, player: Player) =>
  fetch(`${p.baseUrl}/api/account?sessionId=${player.sessionId}&currency=EUR`, { headers: { authorization: `Bearer ${world.providerToken}` } });

/** Every answer is an answer (no dropped socket); every overload answer says when to come back. */
function expectAnsweredWithRetryAfter(answers: { status: number; retryAfter: string | null }[], allowed: number[]) {
  tally.check('every socket answered', answers.length);
  expect(answers.filter((x) => x.status === 0)).toEqual([]);
  for (const x of answers) expect(allowed).toContain(x.status);
  for (const x of answers.filter((y) => y.status === 429 || y.status === 503)) expect(Number(x.retryAfter)).toBeGreaterThanOrEqual(1);
}

describe('abuse: bursts and tenants', () => {
  scenario('When 300 unauthenticated launches arrive at once, then each gets an answer (400 or a fast 429/503 with Retry-After) and the gateway keeps serving', async () => {
    const answers = await burst(300, 300, () => fetch(`${p.baseUrl}/launch`));
    expectAnsweredWithRetryAfter(answers, [400, 429, 503]);
    expect((await balanceOf(b, playerB)).status).toBe(200);
  }, 30000);

  // The casino's 4 s leaves room for a loaded machine on both sides: the other provider's read (3 s) and
  // the refusals (told at once) each stay well under it, while anything that waited on the casino does not.
  scenario('When one provider sends 300 balance reads while its casino takes 4 s, then it holds only its share and another provider is answered within 3 s', async () => {
    const fault = a.sandbox.setFault({ providerId: a.providerId, operation: 'balance' }, { kind: 'delay', ms: 4000 });
    try {
      const flood = burst(300, 300, () => balanceOf(a, playerA));
      await new Promise((r) => setTimeout(r, 300)); // the flood holds its share now
      const started = Date.now();
      const other = await balanceOf(b, playerB);
      const otherMs = Date.now() - started;
      const answers = await flood;
      expect(other.status).toBe(200);
      expect(otherMs).toBeLessThan(3000);
      tally.fault('casino balance delayed 4 s');
      tally.note(`balance read of another provider during the flood: ${otherMs} ms`);
      tally.check('other tenant served within 3 s');
      expectAnsweredWithRetryAfter(answers, [200, 429, 503]);
      const by = countBy(answers, (x) => x.status);
      // At most 16 (the tenant's share of 32) waited on the casino; the rest were told at once.
      expect(by['200']).toBeGreaterThanOrEqual(1);
      expect(by['200']).toBeLessThanOrEqual(16 * 3);
      // Refused at once, not after waiting on the casino like the admitted ones.
      const fastestAdmitted = Math.min(...answers.filter((x) => x.status === 200).map((x) => x.ms));
      expect(fastestAdmitted).toBeGreaterThanOrEqual(3900);
      expect(Math.max(...answers.filter((x) => x.status === 429).map((x) => x.ms))).toBeLessThan(fastestAdmitted);
    } finally {
      a.sandbox.removeFault(fault);
    }
  }, 30000);

  scenario('When 300 authenticated reads arrive at once, then each is answered and none is dropped', async () => {
    const answers = await burst(300, 300, () => fetch(`${p.baseUrl}/api/v1/providers/ids`, { headers: { authorization: `Bearer ${a.providerToken}` } }));
    expectAnsweredWithRetryAfter(answers, [200, 429, 503]);
    expect(countBy(answers, (x) => x.status)['200']).toBeGreaterThanOrEqual(16);
  }, 30000);

  scenario('When one provider holds 60 sockets sending a 60 KB body a byte at a time, then another provider is answered within 3 s and the slow ones get 408', async () => {
    const slow = Array.from({ length: 60 }, () => slowBody(p.baseUrl, '/api/balance/cash-out', a.providerToken, { declared: 60_000, everyMs: 200, forMs: 5000 }));
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    const res = await balanceOf(b, playerB);
    expect(res.status).toBe(200);
    const otherMs = Date.now() - started;
    expect(otherMs).toBeLessThan(3000);
    tally.request(60);
    tally.fault('slow request bodies', 60);
    tally.note(`balance read of another provider while 60 bodies drip: ${otherMs} ms`);
    tally.check('other tenant served within 3 s');
    // The money call of the slow provider's own other player is not starved either.
    expect((await balanceOf(a, playerA)).status).toBe(200);
    const firstLines = await Promise.all(slow);
    expect(countBy(firstLines, (line) => line)).toEqual({ 'HTTP/1.1 408 Request Timeout': 60 });
  }, 30000);
});

describe('abuse: cardinality, tokens, readiness', () => {
  scenario('When 20,000 requests go to random paths, then metrics keep one "unmatched" route and stay small', async () => {
    const metrics = async () => (await http('GET', `${p.baseUrl}/metrics`, { token: p.adminToken })).text;
    // The live heap, after a full collection (garbage of the 20,000 answers is not growth).
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const liveHeap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const heapBefore = liveHeap();
    const before = (await metrics()).length;
    const answers = await burst(20_000, 64, () => fetch(`${p.baseUrl}/api/${randomBytes(8).toString('hex')}/${randomBytes(4).toString('hex')}`));
    expect(countBy(answers, (x) => x.status)).toEqual({ '404': 20_000 });
    const text = await metrics();
    const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
    // Route templates only: none of the random segments, and a handful of labels in all.
    expect([...routes].filter((r) => /[0-9a-f]{8}/.test(r))).toEqual([]);
    expect(routes.size).toBeLessThan(30);
    expect(routes.has('unmatched')).toBe(true);
    // The whole test process (every service and the load): bounded, not 236 MB.
    const grown = liveHeap() - heapBefore;
    // A few new series (the 404 of 'unmatched'), not 20,000: well under 64 KiB more text.
    expect(text.length - before).toBeLessThan(64 * 1024);
    tally.note(`after 20,000 random paths: ${routes.size} route labels, /metrics grew ${text.length - before} bytes to ${text.length}, live heap of the test process +${Math.round(grown / 1048576)} MB`);
    tally.check('metric labels bounded');
    expect(grown).toBeLessThan(48 * 1024 * 1024);
  }, 120000);

  scenario('When 2,000 distinct unknown tokens arrive, then the database is asked only until the address is cut off', async () => {
    // A second gateway of its own, so this address's lock-out does not touch the other tests.
    const env = { ...process.env, ...EDGE, REDIS_KEY_PREFIX: p.config.REDIS_KEY_PREFIX } as Record<string, string>;
    for (const name of ALL_SERVICES) env[`${name.toUpperCase()}_URL`] = p.services[name]!.url;
    const rt = await createRuntime('gateway', loadConfig(env));
    const gw = await startGateway(rt, 0);
    const known = () =>
      fetch(`${gw.server.url}/api/account?sessionId=${playerB.sessionId}&currency=EUR`, { headers: { authorization: `Bearer ${b.providerToken}` } });
    // Once its change bus listens (before that, cached entries live half a second), this gateway learns b's token.
    for (let i = 0; i < 100 && !rt.bus.healthy; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await known()).status).toBe(200);
    let lookups = 0;
    rt.db.primary.on('query', (q: { sql: string }) => {
      if (q.sql.includes('provider_tokens')) lookups++;
    });
    try {
      const answers = await burst(2000, 20, () => fetch(`${gw.server.url}/api/account?sessionId=x`, { headers: { authorization: `Bearer grp_${randomBytes(16).toString('hex')}` } }));
      const by = countBy(answers, (x) => x.status);
      expect(by['403'] + by['429']).toBe(2000);
      expect(by['429']).toBeGreaterThan(1900);
      expect(answers.filter((x) => x.status === 429).every((x) => Number(x.retryAfter) >= 1)).toBe(true);
      // 30 failures a minute, plus the lookups already in flight when the limit was reached.
      expect(lookups).toBeGreaterThanOrEqual(30);
      expect(lookups).toBeLessThanOrEqual(30 + 20);
      tally.note(`2,000 distinct unknown tokens: ${lookups} database lookups (limit 30 failures a minute per address)`);
      tally.check('unknown tokens cut off before the database');
      // A token this gateway knows still passes from the same address: it needs no lookup.
      expect((await known()).status).toBe(200);
    } finally {
      await gw.server.close(1000);
      await closeRuntime(rt);
    }
  }, 60000);

  scenario('When /metrics is asked on the public port without the admin token, then it is refused', async () => {
    expect((await http('GET', `${p.baseUrl}/metrics`)).status).toBe(403);
    expect((await http('GET', `${p.baseUrl}/metrics`, { token: a.providerToken })).status).toBe(403);
    expect((await http('GET', `${p.baseUrl}/metrics`, { token: p.adminToken })).status).toBe(200);
  });

  // Last: it stops the admin service of this file's platform.
  scenario('When the admin service is stopped, then the gateway stays ready, admin routes answer 503 and game routes keep working', async () => {
    await p.services.admin!.close(1000);
    const ready = await http('GET', `${p.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ postgres: 'ok', redis: 'ok', admin: 'down', wallet: 'ok' });
    const admin = await http('GET', `${p.baseUrl}/admin/v1/casinos`, { token: p.adminToken });
    expect(admin.status).toBe(503);
    expect(admin.body).toMatchObject({ error: 'SERVICE_UNAVAILABLE' });
    expect(Number(admin.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await balanceOf(b, playerB)).status).toBe(200);
    tally.fault('admin service stopped');
    tally.check('gateway ready without admin');
  });
});
