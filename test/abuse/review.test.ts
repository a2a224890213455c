import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Gauge } from 'prom-client';
import { closeRuntime, createRuntime, loadConfig } from '@relay/shared';
import { createLaunchToken } from '@relay/casino-sandbox';
import { startGateway } from '../../services/gateway/src';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { ALL_SERVICES, http, startPlatform, uniqueId, type TestPlatform } from '../platform';

/**
 * An adversarial review of the edge and launch limits: each case reproduces a way around them
 * found after they landed (loopback only, every loop bounded in count and time).
 */
const EDGE = {
  GATEWAY_UPSTREAM_MAX_SOCKETS: '32',
  GATEWAY_TENANT_SHARE: '0.5',
  GATEWAY_BODY_TIMEOUT_MS: '2000',
  GATEWAY_HEADERS_TIMEOUT_MS: '1000',
};

let p: TestPlatform;
let a: GameWorld;
let b: GameWorld;
let playerB: Player;
const worlds: GameWorld[] = [];

beforeAll(async () => {
  p = await startPlatform({ env: EDGE });
  a = await startGameWorld(p);
  // Its own casino, so that nothing but the gateway is shared with provider a.
  b = await startGameWorld(p);
  playerB = await b.launchPlayer();
}, 60000);
afterAll(async () => {
  await p?.stop();
  await a?.sandbox.close();
  await b?.sandbox.close();
  for (const world of worlds) await world.sandbox.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The gateway's own count of requests it holds open to `upstream` (none: every request it serves). */
async function inFlight(upstream?: string): Promise<number> {
  const name = upstream ? 'gateway_upstream_in_flight' : 'http_requests_in_flight';
  const { values } = await (p.runtimes.gateway!.metrics.registry.getSingleMetric(name) as Gauge<'upstream'>).get();
  return values.find((v) => upstream === undefined || v.labels.upstream === upstream)?.value ?? 0;
}

/**
 * Waits (bounded) until `read` gives `want`; returns the last value read. On a loaded machine the
 * wallet can take seconds to answer what was forwarded, and a slot is held until it has; a leaked
 * slot never comes back.
 */
async function settle(read: () => Promise<number>, want: number, withinMs: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  let value = await read();
  while (value !== want && Date.now() < deadline) {
    await sleep(50);
    value = await read();
  }
  return value;
}

/** Sends one raw request and hangs up after `afterMs` (0: at once), answer or not. */
function sendAndHangUp(request: string, afterMs: number): Promise<void> {
  const url = new URL(p.baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(request);
      if (afterMs === 0) socket.destroy();
      else setTimeout(() => socket.destroy(), afterMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

describe('review: a client that hangs up', () => {
  it('When 200 authenticated reads hang up before the gateway answers, then every upstream slot is given back', async () => {
    const player = await a.launchPlayer();
    const request = `GET /api/account?sessionId=${player.sessionId}&currency=EUR HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.providerToken}\r\n\r\n`;
    for (let wave = 0; wave < 10; wave++) await Promise.all(Array.from({ length: 20 }, () => sendAndHangUp(request, 0)));
    expect(await settle(() => inFlight('wallet'), 0, 15000)).toBe(0);
    // ... and the provider is not locked out of its own share by slots nobody holds.
    const res = await http('GET', `${p.baseUrl}/api/account?sessionId=${player.sessionId}&currency=EUR`, { token: a.providerToken });
    expect(res.status).toBe(200);
  }, 30000);

  it('When a provider hangs up on 48 slow money calls in waves, then it holds no more than its share upstream and another provider is answered at once', async () => {
    // A provider of its own, whatever the case above left behind.
    const a = await startGameWorld(p);
    worlds.push(a);
    const player = await a.launchPlayer({ balance: 1000 });
    const fault = a.sandbox.setFault({ providerId: a.providerId, operation: 'debit' }, { kind: 'delay', ms: 6000 });
    const transactionIds: string[] = [];
    try {
      const cashOut = () => {
        const transactionId = uniqueId('t');
        transactionIds.push(transactionId);
        const body = JSON.stringify({ sessionId: player.sessionId, gameId: a.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId, amount: 1 });
        return `POST /api/balance/cash-out HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.providerToken}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      };
      // Each wave fills the provider's share (16 of 32), then hangs up while the casino thinks.
      for (let wave = 0; wave < 3; wave++) await Promise.all(Array.from({ length: 16 }, () => sendAndHangUp(cashOut(), 300)));
      const started = Date.now();
      const other = await http('GET', `${p.baseUrl}/api/account?sessionId=${playerB.sessionId}&currency=EUR`, { token: b.providerToken });
      const otherMs = Date.now() - started;
      expect(other.status).toBe(200);
      // Not behind the hung-up requests, which hold their sockets until the casino answers (6 s): a
      // sanity bound with room for a loaded machine, not a speed check.
      expect(otherMs).toBeLessThan(3000);
    } finally {
      a.sandbox.removeFault(fault);
    }
    // Whatever reached the wallet completes: no money call is left PENDING by a client that left.
    const deadline = Date.now() + 15000;
    let pending = -1;
    while (pending !== 0 && Date.now() < deadline) {
      const rows = await p.db.primary('transactions').where({ provider_id: a.providerId }).whereIn('transaction_id', transactionIds).select('status');
      pending = rows.filter((r: { status: string }) => r.status === 'PENDING').length;
      if (pending !== 0) await sleep(200);
    }
    expect(pending).toBe(0);
    expect(await settle(() => inFlight('wallet'), 0, 15000)).toBe(0);
  }, 40000);
});

describe('review: launch parameters', () => {
  it('When backtoHome=javascript: follows 1,000 empty parameters, then the launch is refused', async () => {
    const playerId = uniqueId('player');
    a.sandbox.addPlayer({ providerId: a.providerId, playerId, walletToken: uniqueId('wt'), balance: 10 });
    const token = await createLaunchToken({ launchKey: a.launchKey, providerId: a.providerId, playerId, walletToken: uniqueId('wt') });
    const base = new URLSearchParams({ token, providerId: a.providerId, gameId: String(a.gameId), currency: 'EUR', language: 'en' });
    // The query parser stops after 1,000 pieces, empty ones included; the old bound ignored them.
    const res = await http('GET', `${p.baseUrl}/launch?${base}${'&'.repeat(1000)}backtoHome=javascript:alert(1)`);
    expect(res.headers.get('location') ?? '').not.toContain('javascript');
    expect(res.status).toBe(400);
  });
});

describe('review: readiness on the public port', () => {
  it('When 300 anonymous /readyz arrive at once, then the services and their databases are asked a handful of times, not 300', async () => {
    let walletChecks = 0;
    const count = (q: { sql: string }) => {
      if (q.sql === 'select 1') walletChecks++;
    };
    p.runtimes.wallet!.db.primary.on('query', count);
    try {
      const answers = await Promise.all(Array.from({ length: 300 }, () => fetch(`${p.baseUrl}/readyz`).then((r) => r.status)));
      expect(answers.filter((s) => s === 200).length).toBe(300);
    } finally {
      p.runtimes.wallet!.db.primary.off('query', count);
    }
    // Each gateway /readyz asked every service's /readyz, and each of those its database.
    expect(walletChecks).toBeLessThanOrEqual(5);
  }, 30000);
});

describe('review: per-address limits and IPv6', () => {
  it('When unknown tokens come from 300 addresses of one IPv6 /64, then the database is asked only until that /64 is cut off', async () => {
    const env = { ...process.env, ...EDGE, GATEWAY_AUTH_FAILURES_PER_MINUTE: '30', GATEWAY_TRUSTED_PROXY_HOPS: '1', REDIS_KEY_PREFIX: p.config.REDIS_KEY_PREFIX } as Record<string, string>;
    for (const name of ALL_SERVICES) env[`${name.toUpperCase()}_URL`] = p.services[name]!.url;
    const rt = await createRuntime('gateway', loadConfig(env));
    const gw = await startGateway(rt, 0);
    let lookups = 0;
    rt.db.primary.on('query', (q: { sql: string }) => {
      if (q.sql.includes('provider_tokens')) lookups++;
    });
    try {
      const statuses: number[] = [];
      for (let wave = 0; wave < 30; wave++) {
        const sent = Array.from({ length: 10 }, (_, i) =>
          fetch(`${gw.server.url}/api/account?sessionId=x`, {
            // The proxy in front (trusted, one hop) saw a different address of the same /64 each time.
            headers: { authorization: `Bearer grp_${randomBytes(16).toString('hex')}`, 'x-forwarded-for': `2001:db8:1:2::${(wave * 10 + i + 1).toString(16)}` },
          }).then((r) => r.status),
        );
        statuses.push(...(await Promise.all(sent)));
      }
      expect(statuses.filter((s) => s !== 403 && s !== 429)).toEqual([]);
      // 30 failures a minute for the /64, plus what was already in flight.
      expect(lookups).toBeLessThanOrEqual(30 + 10);
    } finally {
      await gw.server.close(1000);
      await closeRuntime(rt);
    }
  }, 30000);
});

describe('review: slow request heads', () => {
  it('When a client sends its request head a line every 200 ms, then it is cut off at the head time-out (1 s here), not after Node\'s 30 s check', async () => {
    const url = new URL(p.baseUrl);
    const started = Date.now();
    const answer = await new Promise<{ first: string; ms: number }>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname);
      let text = '';
      const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
      const deadline = setTimeout(() => socket.destroy(), 10000);
      socket.on('connect', () => socket.write('GET /launch HTTP/1.1\r\nHost: x\r\n'));
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(drip);
        clearTimeout(deadline);
        resolve({ first: text.split('\r\n')[0], ms: Date.now() - started });
      });
    });
    expect(answer.first).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.ms).toBeLessThan(8000); // at the 1 s head time-out, not Node's 30 s check: a sanity bound
  }, 15000);
});

describe('review: unusual request forms', () => {
  /** One raw exchange: the whole answer text, once the server has sent `want` or 5 s passed. */
  function exchange(request: string | ((socket: net.Socket) => void), want: RegExp): Promise<string> {
    const url = new URL(p.baseUrl);
    return new Promise((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname);
      let text = '';
      const done = () => {
        clearTimeout(deadline);
        socket.destroy();
        resolve(text);
      };
      const deadline = setTimeout(done, 5000);
      socket.on('connect', () => (typeof request === 'string' ? socket.write(request) : request(socket)));
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (want.test(text)) done();
      });
      socket.on('error', done);
      socket.on('close', done);
    });
  }

  it('When money calls come with Expect: 100-continue, a chunked body, or as HEAD and OPTIONS, then each is answered and every slot is given back', async () => {
    const player = await b.launchPlayer({ balance: 100 });
    const auth = `Authorization: Bearer ${b.providerToken}\r\nHost: x\r\n`;
    const body = () => JSON.stringify({ sessionId: player.sessionId, gameId: b.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 1 });
    const expectContinue = await exchange((socket) => {
      const payload = body();
      socket.write(`POST /api/balance/cash-out HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${payload.length}\r\nExpect: 100-continue\r\n\r\n`);
      socket.once('data', () => socket.write(payload));
    }, /HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n\{.*\}/);
    expect(expectContinue).toMatch(/^HTTP\/1\.1 100 Continue/);
    expect(expectContinue).toContain('HTTP/1.1 200 OK');
    const payload = body();
    const chunked = await exchange(
      `POST /api/balance/cash-out HTTP/1.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${payload.length.toString(16)}\r\n${payload}\r\n0\r\n\r\n`,
      /\r\n\r\n[\s\S]*\{.*\}/,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 200 OK/);
    const head = await exchange(`HEAD /api/account?sessionId=${player.sessionId}&currency=EUR HTTP/1.1\r\n${auth}\r\n`, /\r\n\r\n/);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    const options = await exchange(`OPTIONS /api/account HTTP/1.1\r\n${auth}\r\n`, /\r\n\r\n/);
    expect(options).toMatch(/^HTTP\/1\.1 [2-4]\d\d /);
    expect(await settle(() => inFlight('wallet'), 0, 15000)).toBe(0);
    const rows = await p.db.primary('transactions').where({ provider_id: b.providerId }).whereIn('status', ['PENDING']).count<{ count: string }[]>('* as count');
    expect(Number(rows[0].count)).toBe(0);
  }, 30000);
});

describe('review: oversized bodies', () => {
  it('When a body is declared larger than 64 KiB, then the answer is 413 and the gateway closes the connection instead of reading the rest', async () => {
    const url = new URL(p.baseUrl);
    const started = Date.now();
    const seen = await new Promise<{ text: string; closedMs: number }>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname);
      let text = '';
      const deadline = setTimeout(() => socket.destroy(), 10000);
      socket.on('connect', () => socket.write(`POST /api/balance/cash-out HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${b.providerToken}\r\nContent-Length: 10000000\r\n\r\n{`));
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(deadline);
        resolve({ text, closedMs: Date.now() - started });
      });
    });
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 /);
    // Not held open to swallow the other 10 MB until the request time-out (4 s here): a sanity bound.
    expect(seen.closedMs).toBeLessThan(3000);
  }, 15000);
});

describe('review: pipelined requests', () => {
  it('When a client pipelines 10 slow reads on one socket and hangs up, then every slot comes back once the casino has answered', async () => {
    const player = await b.launchPlayer();
    const fault = b.sandbox.setFault({ providerId: b.providerId, operation: 'balance' }, { kind: 'delay', ms: 1000 });
    try {
      const one = `GET /api/account?sessionId=${player.sessionId}&currency=EUR HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${b.providerToken}\r\n\r\n`;
      await sendAndHangUp(one.repeat(10), 300);
      expect(await settle(() => inFlight('wallet'), 0, 15000)).toBe(0);
      // ... and the requests the gateway counts as being served, as the answers will never be sent.
      expect(await settle(() => inFlight(), 0, 1000)).toBe(0);
      expect((await http('GET', `${p.baseUrl}/api/account?sessionId=${player.sessionId}&currency=EUR`, { token: b.providerToken })).status).toBe(200);
    } finally {
      b.sandbox.removeFault(fault);
    }
  }, 20000);
});
