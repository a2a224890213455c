import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { propagation, type TextMapPropagator } from '@opentelemetry/api';
import { createLogger } from '../logger';
import { ServiceMetrics } from '../metrics';
import { CasinoClient } from './client';
import type { CasinoOperation } from './protocol';
import { verifyCasinoSignature } from './signature';

type Reply = (req: http.IncomingMessage, res: http.ServerResponse) => void;
interface Received {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const SECRET = 'casino-wallet-secret-xyz';
const WALLET_TOKEN = 'player-wallet-token-abc';
const balanceBody = { providerId: 'casino-t', playerId: 'p1', walletToken: WALLET_TOKEN, sessionId: 's1', gameId: 7, currency: 'EUR' };
const debitBody = { ...balanceBody, roundId: 'r1', transactionId: 't1', amount: 10.5 };
const creditBody = { ...debitBody, transactionId: 't2', reason: 'NORMAL_WIN', appliedMultiplier: 2, betAmount: 10.5, isRetry: false };
const roundEndedBody = { providerId: 'casino-t', groupId: 'g1', roundId: 'r1' };
const bodies: Record<CasinoOperation, object> = { balance: balanceBody, debit: debitBody, credit: creditBody, 'round-ended': roundEndedBody };

let server: http.Server;
let walletUrl: string;
let reply: Reply;
let received: Received[] = [];
let connections = 0;
let client: CasinoClient;
const logLines: string[] = [];
const metrics = new ServiceMetrics('casino-client-test');

const json = (status: number, body: unknown): Reply => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
};
const casino = () => ({ providerId: 'casino-t', walletUrl, walletSecret: SECRET });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      reply(req, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  walletUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/casino/wallet/`;
  const destination = new Writable({ write: (chunk, _enc, cb) => (logLines.push(String(chunk)), cb()) });
  client = new CasinoClient({ timeoutMs: 1000, metrics, logger: createLogger({ service: 'test', level: 'debug', destination }) });
});

beforeEach(() => {
  received = [];
  reply = json(200, { balance: 1 });
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function expectFailure(result: Awaited<ReturnType<CasinoClient['call']>>, code: string, status: number) {
  if (result.ok) throw new Error(`expected ${code}, got success`);
  expect(result.error.code).toBe(code);
  expect(result.error.status).toBe(status);
  expect(result.error.message).not.toContain(SECRET);
  expect(result.error.message).not.toContain(WALLET_TOKEN);
  return result;
}

describe('CasinoClient request', () => {
  it('When a call is made, then it POSTs {walletUrl}/{operation} with the exact JSON body, a valid signature and the trace headers', async () => {
    const fake: TextMapPropagator = {
      inject: (_ctx, carrier, setter) => setter.set(carrier, 'traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
      extract: (ctx) => ctx,
      fields: () => ['traceparent'],
    };
    propagation.setGlobalPropagator(fake);
    try {
      reply = json(200, { balance: 99.5, username: 'Ann' });
      const result = await client.call(casino(), 'debit', debitBody);
      expect(result).toMatchObject({ ok: true, balance: 99.5, username: 'Ann', status: 200 });
    } finally {
      propagation.disable();
    }
    const [req] = received;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/casino/wallet/debit');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.traceparent).toMatch(/^00-/);
    expect(req.body).toBe(JSON.stringify(debitBody));
    const ts = req.headers['x-relay-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(5);
    expect(verifyCasinoSignature(SECRET, ts, req.body, req.headers['x-relay-signature'] as string)).toBe(true);
  });

  it('When several calls go to the same casino one after another, then they reuse one keep-alive connection', async () => {
    const before = connections;
    for (let i = 0; i < 5; i++) await client.call(casino(), 'balance', balanceBody);
    expect(connections - before).toBeLessThanOrEqual(1);
  });
});

describe('CasinoClient answer mapping (docs/api/casino.json)', () => {
  it('When the casino answers 200 with a balance, then the balance is rounded half-up (2.675 -> 2.68) whether number or string', async () => {
    for (const [raw, expected] of [['{"balance":2.675}', 2.68], ['{"balance":"2.675"}', 2.68], ['{"balance":"100.994999"}', 100.99], ['{"balance":"1.005000000001"}', 1.01], ['{"balance":0}', 0]] as const) {
      reply = json(200, raw);
      const result = await client.call(casino(), 'credit', creditBody);
      expect(result).toMatchObject({ ok: true, balance: expected, rawBody: raw });
    }
  });

  it('When the casino answers 200 without a usable non-negative balance or not JSON, then INVALID_PROVIDER_RESPONSE (502)', async () => {
    for (const op of ['balance', 'debit', 'credit'] as const) {
      for (const raw of ['not json', '{}', '{"balance":-1}', '{"balance":"abc"}', '{"balance":null}', '[1]', '']) {
        reply = json(200, raw);
        expectFailure(await client.call(casino(), op, bodies[op]), 'INVALID_PROVIDER_RESPONSE', 502);
      }
    }
  });

  it('When the casino answers 401, or a 4xx with TOKEN_EXPIRED, then AUTHENTICATION_TOKEN_EXPIRED (403) for every operation', async () => {
    for (const op of ['balance', 'debit', 'credit', 'round-ended'] as const) {
      reply = json(401, {});
      expectFailure(await client.call(casino(), op, bodies[op]), 'AUTHENTICATION_TOKEN_EXPIRED', 403);
      reply = json(400, { error: 'TOKEN_EXPIRED' });
      const r = expectFailure(await client.call(casino(), op, bodies[op]), 'AUTHENTICATION_TOKEN_EXPIRED', 403);
      expect(r.casinoStatus).toBe(400);
    }
  });

  it('When the casino refuses a debit with another 4xx, then FUND_WITHDRAW_FAILED (400) with a readable message and the casino body', async () => {
    reply = json(400, { error: 'INSUFFICIENT_FUNDS' });
    const r = expectFailure(await client.call(casino(), 'debit', debitBody), 'FUND_WITHDRAW_FAILED', 400);
    expect(r.error.message).toBe('Casino refused the debit: INSUFFICIENT_FUNDS');
    expect(r.casinoStatus).toBe(400);
    expect(r.casinoBody).toBe('{"error":"INSUFFICIENT_FUNDS"}');
    reply = json(403, 'forbidden');
    expect(expectFailure(await client.call(casino(), 'debit', debitBody), 'FUND_WITHDRAW_FAILED', 400).error.message).toBe('Casino refused the debit: HTTP 403');
  });

  it('When the casino answers a balance or credit with another 4xx or a 5xx, then PROVIDER_API_FAILURE (502)', async () => {
    for (const op of ['balance', 'credit'] as const) {
      for (const status of [400, 403, 404, 500, 503]) {
        reply = json(status, { error: 'SOMETHING' });
        expectFailure(await client.call(casino(), op, bodies[op]), 'PROVIDER_API_FAILURE', 502);
      }
    }
  });

  it('When the casino fails a debit with a 5xx, then CASHOUT_FAILED (500)', async () => {
    reply = json(503, { error: 'MAINTENANCE' });
    const r = expectFailure(await client.call(casino(), 'debit', debitBody), 'CASHOUT_FAILED', 500);
    expect(r.error.message).toBe('Casino failed the debit with HTTP 503: MAINTENANCE');
  });

  it('When the casino answers a round-ended with any 2xx, then it is a success whatever the body', async () => {
    for (const [status, raw] of [[200, 'not json'], [200, '{"ok":true}'], [202, ''], [204, '']] as const) {
      reply = json(status, raw);
      expect(await client.call(casino(), 'round-ended', roundEndedBody)).toMatchObject({ ok: true, status });
    }
  });

  it('When the casino answers a round-ended with 403, then AUTHENTICATION_TOKEN_EXPIRED; other 4xx and 5xx are PROVIDER_API_FAILURE', async () => {
    reply = json(403, { error: 'NOT_SUBSCRIBED' });
    expectFailure(await client.call(casino(), 'round-ended', roundEndedBody), 'AUTHENTICATION_TOKEN_EXPIRED', 403);
    for (const status of [400, 404, 500, 502]) {
      reply = json(status, {});
      expectFailure(await client.call(casino(), 'round-ended', roundEndedBody), 'PROVIDER_API_FAILURE', 502);
    }
  });

  it('When the casino does not answer within the time-out, then INTEGRATION_TIMED_OUT (408), for money calls and round-ended', async () => {
    reply = () => undefined; // never answers
    for (const op of ['debit', 'round-ended'] as const) {
      const started = Date.now();
      const r = expectFailure(await client.call(casino(), op, bodies[op]), 'INTEGRATION_TIMED_OUT', 408);
      expect(Date.now() - started).toBeLessThan(5000); // gave up at its 1 s time-out: a sanity bound, not a speed check
      expect(r.casinoStatus).toBeUndefined();
    }
  });

  it('When the casino sends headers but stalls the body past the time-out, then INTEGRATION_TIMED_OUT', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"balance":');
    };
    expectFailure(await client.call(casino(), 'credit', creditBody), 'INTEGRATION_TIMED_OUT', 408);
  });

  it('When the casino resets the connection, then PROVIDER_API_FAILURE (502)', async () => {
    reply = (req) => req.socket.destroy();
    const r = expectFailure(await client.call(casino(), 'debit', debitBody), 'PROVIDER_API_FAILURE', 502);
    expect(r.error.message).toBe('Could not complete the debit call to the casino: connection reset');
    expect(received).toHaveLength(1); // a money call is never retried by the client
  });

  it('When the casino refuses the connection, then PROVIDER_API_FAILURE (502)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = expectFailure(await client.call({ ...casino(), walletUrl: `http://127.0.0.1:${port}/w` }, 'balance', balanceBody), 'PROVIDER_API_FAILURE', 502);
    expect(r.error.message).toContain('connection refused');
  });

  it('When the wallet URL is not a valid http(s) URL, then PROVIDER_API_FAILURE without a throw', async () => {
    expectFailure(await client.call({ ...casino(), walletUrl: 'ftp://x' }, 'balance', balanceBody), 'PROVIDER_API_FAILURE', 502);
    expectFailure(await client.call({ ...casino(), walletUrl: 'not a url' }, 'balance', balanceBody), 'PROVIDER_API_FAILURE', 502);
  });
});

describe('CasinoClient secrets and audit', () => {
  it('When the casino echoes the wallet token in its error, then neither the message nor the audit body carries it', async () => {
    reply = json(400, { error: `bad token ${WALLET_TOKEN}` });
    const r = expectFailure(await client.call(casino(), 'debit', debitBody), 'FUND_WITHDRAW_FAILED', 400);
    expect(r.casinoBody).not.toContain(WALLET_TOKEN);
    expect(r.casinoBody).toContain('[redacted]');
  });

  it('When the casino answers a long error body, then the audit body is cut to 2 KiB', async () => {
    reply = json(500, 'x'.repeat(10_000));
    const r = expectFailure(await client.call(casino(), 'credit', creditBody), 'PROVIDER_API_FAILURE', 502);
    expect(Buffer.byteLength(r.casinoBody ?? '')).toBe(2048);
  });

  it('When calls are made, then no log line carries the wallet token or the wallet secret, and metrics count them by outcome', async () => {
    reply = json(400, { error: 'INSUFFICIENT_FUNDS' });
    await client.call(casino(), 'debit', debitBody);
    const logs = logLines.join('');
    expect(logs).toContain('Casino refused the debit: INSUFFICIENT_FUNDS');
    expect(logs).not.toContain(WALLET_TOKEN);
    expect(logs).not.toContain(SECRET);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/casino_calls_total\{provider_id="casino-t",operation="debit",outcome="declined",service="casino-client-test"\} \d+/);
    expect(text).toMatch(/casino_call_duration_seconds_count\{[^}]*operation="debit",outcome="ok"\} \d+/);
    // A second client on the same registry reuses the metrics instead of failing to register them.
    const second = new CasinoClient({ timeoutMs: 100, metrics });
    await second.close();
  });
});
