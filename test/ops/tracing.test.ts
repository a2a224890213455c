import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld } from '../game';
import { adminPut } from '../provision';
import { captureSpans, idOf, parentOf, parseTraceparent, scopeOf, startHeaderCasino, waitFor, type HeaderCasino, type SpanCapture } from './ops-support';

/**
 * One trace per game call: gateway -> service -> PostgreSQL / Redis / casino, and for round-ended
 * gateway -> notifier -> BullMQ job in the worker -> casino, with the casino receiving the same
 * trace id in its traceparent header. Every service runs in this process, so one in-memory
 * exporter sees every span.
 */

let capture: SpanCapture;
let p: TestPlatform;
let casino: HeaderCasino;
let world: GameWorld;

beforeAll(async () => {
  capture = await captureSpans();
  casino = await startHeaderCasino();
  p = await startPlatform();
  world = await startGameWorld(p, { walletUrl: casino.url });
});

afterAll(async () => {
  await p?.stop();
  await world?.sandbox.close();
  await casino?.close();
  await capture?.telemetry.shutdown();
});

const serverSpan = (spans: ReadableSpan[], service: string, path: string) =>
  spans.find((s) => s.kind === SpanKind.SERVER && scopeOf(s) === `relay-${service}` && s.attributes['http.route'] === path);

const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) => spans.filter((s) => parentOf(s) === idOf(parent));

/** The trace id the gateway answered under: its server span is the root of the call's trace. */
function gatewayTrace(path: string, after: number): string {
  const spans = capture.exporter.getFinishedSpans();
  const root = spans.find(
    (s) => s.kind === SpanKind.SERVER && scopeOf(s) === 'relay-gateway' && s.attributes['http.route'] === path && s.startTime[0] * 1000 >= after - 1000,
  );
  return root ? root.spanContext().traceId : '';
}

describe('tracing', () => {
  it('When a game cashes out, then gateway, wallet, PostgreSQL, Redis and the casino debit form one trace and the casino gets its traceparent', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    casino.calls.length = 0;
    const started = Date.now();
    const res = await world.call('POST', '/api/balance/cash-out', {
      sessionId: player.sessionId,
      gameId: world.gameId,
      currency: player.currency,
      roundId: uniqueId('round'),
      transactionId: uniqueId('bet'),
      amount: 10,
    });
    expect(res.status).toBe(200);

    const traceId = await waitFor('the gateway span of the cash-out', () => gatewayTrace('/api/balance/cash-out', started));
    const spans = await waitFor('the wallet span', () => {
      const all = capture.trace(traceId);
      return serverSpan(all, 'wallet', '/api/balance/cash-out') ? all : null;
    });
    const gateway = serverSpan(spans, 'gateway', '/api/balance/cash-out')!;
    const wallet = serverSpan(spans, 'wallet', '/api/balance/cash-out')!;
    expect(parentOf(gateway)).toBeUndefined();
    expect(parentOf(wallet)).toBe(idOf(gateway));
    expect(wallet.name).toBe('POST /api/balance/cash-out');
    expect(wallet.attributes['http.response.status_code']).toBe(200);

    const underWallet = childrenOf(spans, wallet);
    const statements = underWallet.filter((s) => scopeOf(s) === 'relay-postgresql');
    const texts = statements.map((s) => String(s.attributes['db.query.text']));
    // The idempotency claim and the SUCCESS write, each its own statement span.
    expect(texts.some((t) => t.includes('INSERT INTO transactions'))).toBe(true);
    expect(texts.some((t) => t.includes("status = 'SUCCESS'"))).toBe(true);
    for (const s of statements) {
      expect(s.kind).toBe(SpanKind.CLIENT);
      expect(s.attributes['db.system.name']).toBe('postgresql');
    }
    // The session lookup on the hot path is a Redis GET (this wallet has not seen the session yet).
    expect(underWallet.some((s) => s.name === 'redis GET' && s.kind === SpanKind.CLIENT)).toBe(true);

    const debit = underWallet.find((s) => s.name === 'casino debit');
    expect(debit).toBeDefined();
    expect(debit!.kind).toBe(SpanKind.CLIENT);

    const call = casino.calls.find((c) => c.path.endsWith('/debit'));
    expect(parseTraceparent(call?.headers.traceparent)).toEqual({ traceId, parentId: idOf(debit!) });
  });

  it('When a round ends at three casinos, then gateway, notifier, each worker job and each casino call share one trace and each casino gets it', async () => {
    const others: string[] = [];
    for (let i = 0; i < 2; i++) {
      const providerId = uniqueId('cas-trace');
      const put = await adminPut(p, `casinos/${providerId}`, { name: `Casino ${providerId}`, walletUrl: `${casino.url}/${providerId}`, status: 'ACTIVE' });
      expect(put.status).toBe(200);
      others.push(providerId);
    }
    const providerIds = [world.providerId, ...others];
    casino.calls.length = 0;
    const started = Date.now();
    const res = await world.call('POST', '/api/round-ended', { roundId: uniqueId('round'), providerIds });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });

    const traceId = await waitFor('the gateway span of round-ended', () => gatewayTrace('/api/round-ended', started));
    const spans = await waitFor('three casino round-ended spans', () => {
      const all = capture.trace(traceId);
      return all.filter((s) => s.name === 'casino round-ended').length === 3 && serverSpan(all, 'notifier', '/api/round-ended') ? all : null;
    });
    const gateway = serverSpan(spans, 'gateway', '/api/round-ended')!;
    const notifier = serverSpan(spans, 'notifier', '/api/round-ended')!;
    expect(parentOf(notifier)).toBe(idOf(gateway));
    const fanOut = childrenOf(spans, notifier).find((s) => s.name === 'round-ended')!;
    expect(fanOut).toBeDefined();

    // One PRODUCER span per job queued; the worker continues each in a CONSUMER span.
    const sends = childrenOf(spans, fanOut).filter((s) => s.name === 'send round-ended');
    expect(sends).toHaveLength(3);
    const jobs = sends.flatMap((send) => childrenOf(spans, send)).filter((s) => s.name === 'process round-ended');
    expect(jobs).toHaveLength(3);
    for (const send of sends) {
      expect(send.kind).toBe(SpanKind.PRODUCER);
      expect(send.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'messaging.destination.name': 'round-ended', 'messaging.operation.type': 'send' });
    }
    for (const job of jobs) {
      const send = sends.find((x) => idOf(x) === parentOf(job))!;
      expect(job.attributes).toMatchObject({
        'messaging.system': 'bullmq',
        'messaging.destination.name': 'round-ended',
        'messaging.operation.type': 'process',
        'messaging.message.id': send.attributes['messaging.message.id'],
      });
    }
    expect(new Set(jobs.map((j) => j.attributes['relay.provider_id']))).toEqual(new Set(providerIds));
    const casinoSpans: ReadableSpan[] = [];
    for (const job of jobs) {
      expect(job.kind).toBe(SpanKind.CONSUMER);
      const call = childrenOf(spans, job).find((s) => s.name === 'casino round-ended');
      expect(call?.kind).toBe(SpanKind.CLIENT);
      expect(call?.attributes['relay.provider_id']).toBe(job.attributes['relay.provider_id']);
      casinoSpans.push(call!);
    }

    const received = casino.calls.filter((c) => c.path.endsWith('/round-ended')).map((c) => parseTraceparent(c.headers.traceparent));
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r?.traceId))).toEqual(new Set([traceId]));
    expect(new Set(received.map((r) => r?.parentId))).toEqual(new Set(casinoSpans.map(idOf)));
  });

  it('When a caller sends its own traceparent to the gateway, then the platform starts its own trace and only links the caller', async () => {
    const outside = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const started = Date.now();
    const res = await http('GET', `${p.baseUrl}/api/v1/providers/ids`, { token: world.providerToken, headers: { traceparent: outside } });
    expect(res.status).toBeLessThan(500);
    const traceId = await waitFor('the gateway span', () => gatewayTrace('/api/v1/providers/ids', started));
    expect(traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    const gateway = serverSpan(capture.trace(traceId), 'gateway', '/api/v1/providers/ids')!;
    expect(gateway.links.map((l) => l.context.traceId)).toEqual(['0af7651916cd43dd8448eb211c80319c']);
    // Inside the platform the gateway's trace is continued as usual.
    const reporting = await waitFor('the reporting span', () => serverSpan(capture.trace(traceId), 'reporting', '/api/v1/providers/ids'));
    expect(parentOf(reporting)).toBe(idOf(gateway));
  });

  it('When a game cashes out, then spans follow the conventions: casino HTTP attributes without secrets, statements named by operation and table, release and environment on the resource', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    const started = Date.now();
    const res = await world.call('POST', '/api/balance/cash-out', {
      sessionId: player.sessionId,
      gameId: world.gameId,
      currency: player.currency,
      roundId: uniqueId('round'),
      transactionId: uniqueId('bet'),
      amount: 5,
    });
    expect(res.status).toBe(200);
    const traceId = await waitFor('the gateway span of the cash-out', () => gatewayTrace('/api/balance/cash-out', started));
    const spans = await waitFor('the casino debit span', () => {
      const all = capture.trace(traceId);
      return all.some((s) => s.name === 'casino debit') ? all : null;
    });

    const debit = spans.find((s) => s.name === 'casino debit')!;
    const wallet = new URL(casino.url);
    expect(debit.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.full': `${wallet.protocol}//${wallet.host}${wallet.pathname}/debit`,
      'server.address': '127.0.0.1',
      'server.port': Number(wallet.port),
      'http.response.status_code': 200,
    });
    const recorded = JSON.stringify(spans.map((s) => s.attributes));
    expect(recorded).not.toContain(player.walletToken);

    const statements = spans.filter((s) => scopeOf(s) === 'relay-postgresql').map((s) => s.name);
    // The claim, which reads the existing record in the same statement when the key is taken.
    const CLAIM = 'INSERT transaction_keys INSERT transactions INSERT transaction_attempts SELECT transaction_keys';
    expect(statements).toContain(CLAIM);
    expect(statements.some((n) => /^(UPDATE|SELECT|INSERT) \w+/.test(n) && n !== CLAIM)).toBe(true);
    for (const name of statements) expect(name).not.toMatch(/^(WITH|postgresql)\b/);
    const claim = spans.find((s) => s.name === CLAIM)!;
    expect(claim.attributes).toMatchObject({ 'db.operation.name': 'INSERT', 'db.query.summary': claim.name });

    const version = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')).version;
    for (const span of spans) {
      expect(span.resource.attributes['service.version']).toBe(version);
      expect(span.resource.attributes['deployment.environment']).toBe('test');
      expect(span.resource.attributes['deployment.environment.name']).toBe('test');
    }
  });

  it('When probes and scrapes arrive, then they make no spans', async () => {
    capture.exporter.reset();
    for (const path of ['/healthz', '/readyz', '/metrics']) await http('GET', `${p.services.wallet!.url}${path}`);
    await new Promise((r) => setTimeout(r, 100));
    expect(capture.exporter.getFinishedSpans().filter((s) => scopeOf(s) === 'relay-wallet')).toEqual([]);
  });
});
