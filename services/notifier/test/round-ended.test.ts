import { AsyncLocalStorage } from 'node:async_hooks';
import { context, createContextKey, propagation, ROOT_CONTEXT, type Context, type ContextManager, type TextMapPropagator } from '@opentelemetry/api';
import { Queue } from 'bullmq';
import { http, uniqueId } from '../../../test/platform';
import { ROUND_ENDED_QUEUE } from '../src/queue/round-ended-queue';
import { startTestbed, type Testbed } from './testbed';

/**
 * POST /api/round-ended through the gateway, against real Redis, real workers and a sandbox
 * casino (spec: Round-ended, Events 1; docs/api/casino.json). CASINO_TIMEOUT_MS is 1 s here: short, yet
 * long enough that an ordinary delivery by a worker stalled on a loaded machine still answers in time.
 */
describe('POST /api/round-ended', () => {
  let tb: Testbed;
  let a: string;
  let b: string;
  let c: string;
  const roundEndedCalls = (providerId: string | undefined, roundId: string) => tb.sandbox.countCalls({ operation: 'round-ended', providerId, roundId });
  const notified = (providerId: string, roundId: string) => tb.sandbox.roundEndedCount({ providerId, roundId });

  beforeAll(async () => {
    tb = await startTestbed('ntf_round', { CASINO_TIMEOUT_MS: '1000' });
    await tb.startWorker();
    await tb.startWorker();
    a = tb.world.providerId;
    b = await tb.addCasino();
    c = await tb.addCasino();
  }, 60000);

  afterAll(async () => {
    await tb?.stop();
  });

  afterEach(() => tb.sandbox.clearFaults());

  describe('happy path', () => {
    it('When every named casino accepts, then 200 {"ok": true} and each got one signed notification with the caller as groupId', async () => {
      const roundId = uniqueId('r');
      const res = await tb.roundEnded({ roundId, providerIds: [a, b, c] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      for (const id of [a, b, c]) {
        expect(tb.sandbox.roundEnded({ providerId: id, roundId })).toEqual([{ providerId: id, groupId: tb.world.groupId, roundId, at: expect.any(String) }]);
        expect(tb.sandbox.calls({ operation: 'round-ended', providerId: id, roundId })[0]).toMatchObject({ signature: 'valid', status: 200 });
      }
    });

    it('When a casino is named several times, then it is notified exactly once', async () => {
      const roundId = uniqueId('r');
      const res = await tb.roundEnded({ roundId, providerIds: [a, b, a, a, b] });
      expect(res.status).toBe(200);
      expect(roundEndedCalls(a, roundId)).toBe(1);
      expect(roundEndedCalls(b, roundId)).toBe(1);
    });
  });

  describe('casinos resolved before anyone is notified', () => {
    it('When one named casino is unknown, then 404 PROVIDER_NOT_FOUND and no casino is called', async () => {
      const roundId = uniqueId('r');
      const res = await tb.roundEnded({ roundId, providerIds: [a, b, 'no-such-casino'] });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('PROVIDER_NOT_FOUND');
      await new Promise((r) => setTimeout(r, 300));
      expect(roundEndedCalls(undefined, roundId)).toBe(0);
    });

    it('When one named casino is inactive, then 403 PROVIDER_NOT_ACTIVE and no casino is called', async () => {
      const inactive = await tb.addCasino('INACTIVE');
      const roundId = uniqueId('r');
      const res = await tb.roundEnded({ roundId, providerIds: [a, inactive, b] });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('PROVIDER_NOT_ACTIVE');
      await new Promise((r) => setTimeout(r, 300));
      expect(roundEndedCalls(undefined, roundId)).toBe(0);
    });
  });

  describe('a casino failing during delivery', () => {
    it('When one casino answers 5xx, then 502 PROVIDER_API_FAILURE naming it, and the others are notified', async () => {
      tb.sandbox.setFault({ providerId: b, operation: 'round-ended' }, { kind: 'error', status: 503 });
      const roundId = uniqueId('r');
      const res = await tb.roundEnded({ roundId, providerIds: [a, b, c] });
      expect(res.status).toBe(502);
      expect(res.body.error).toBe('PROVIDER_API_FAILURE');
      expect(res.body.message).toContain(b);
      expect(notified(a, roundId)).toBe(1);
      expect(notified(c, roundId)).toBe(1);
      expect(roundEndedCalls(b, roundId)).toBe(1); // one attempt: no blind retry by the queue
    });

    it('When one casino does not answer within CASINO_TIMEOUT_MS, then 408 INTEGRATION_TIMED_OUT soon after the time-out, and the others are notified', async () => {
      tb.sandbox.setFault({ providerId: c, operation: 'round-ended' }, { kind: 'delay', ms: 5000 });
      const roundId = uniqueId('r');
      const started = Date.now();
      const res = await tb.roundEnded({ roundId, providerIds: [a, b, c] });
      expect(res.status).toBe(408);
      expect(res.body.error).toBe('INTEGRATION_TIMED_OUT');
      // A sanity bound, not a speed check: answered at the 1 s time-out, not after the casino's 5 s.
      expect(Date.now() - started).toBeLessThan(5000);
      expect(notified(a, roundId)).toBe(1);
      expect(notified(b, roundId)).toBe(1);
    });

    it('When one casino answers 403, then 403 AUTHENTICATION_TOKEN_EXPIRED, and the others are notified', async () => {
      tb.sandbox.setFault({ providerId: a, operation: 'round-ended' }, { kind: 'error', status: 403, error: 'FORBIDDEN' });
      const roundId = uniqueId('r');
      const res = await tb.roundEnded({ roundId, providerIds: [a, b, c] });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('AUTHENTICATION_TOKEN_EXPIRED');
      expect(notified(b, roundId)).toBe(1);
      expect(notified(c, roundId)).toBe(1);
    });

    it('When several casinos fail, then the repeat-worthy error wins (408 over 502 over 403) and the message names each', async () => {
      tb.sandbox.setFault({ providerId: a, operation: 'round-ended' }, { kind: 'error', status: 403 });
      tb.sandbox.setFault({ providerId: b, operation: 'round-ended' }, { kind: 'error', status: 500 });
      tb.sandbox.setFault({ providerId: c, operation: 'round-ended' }, { kind: 'delay', ms: 3000 });
      const roundId = uniqueId('r');
      const res = await tb.roundEnded({ roundId, providerIds: [a, b, c] });
      expect(res.status).toBe(408);
      expect(res.body.error).toBe('INTEGRATION_TIMED_OUT');
      for (const [id, code] of [[a, 'AUTHENTICATION_TOKEN_EXPIRED'], [b, 'PROVIDER_API_FAILURE'], [c, 'INTEGRATION_TIMED_OUT']]) {
        expect(res.body.message).toContain(`${id} (${code})`);
      }
      tb.sandbox.clearFaults();
      tb.sandbox.setFault({ providerId: a, operation: 'round-ended' }, { kind: 'error', status: 403 });
      tb.sandbox.setFault({ providerId: b, operation: 'round-ended' }, { kind: 'error', status: 500 });
      const second = await tb.roundEnded({ roundId: uniqueId('r'), providerIds: [a, b, c] });
      expect(second.status).toBe(502);
    });
  });

  describe('validation (wallet style)', () => {
    it.each([
      ['no body fields', {}],
      ['roundId missing', { providerIds: ['x'] }],
      ['roundId not a string', { roundId: 12, providerIds: ['x'] }],
      ['roundId empty', { roundId: '', providerIds: ['x'] }],
      ["roundId containing ':'", { roundId: 'a:b', providerIds: ['x'] }],
      ['providerIds missing', { roundId: 'r' }],
      ['providerIds empty', { roundId: 'r', providerIds: [] }],
      ['providerIds not an array', { roundId: 'r', providerIds: 'x' }],
      ['providerIds with a non-string', { roundId: 'r', providerIds: ['x', 7] }],
      ['providerIds with an empty string', { roundId: 'r', providerIds: [''] }],
    ])('When the body has %s, then 400 {"error":"Bad Request"} and no casino is called', async (_case, body) => {
      const before = tb.sandbox.countCalls({ operation: 'round-ended' });
      const res = await tb.roundEnded(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Bad Request');
      expect(tb.sandbox.countCalls({ operation: 'round-ended' })).toBe(before);
    });

    it('When the body is not JSON, then 400 Bad Request', async () => {
      const res = await http('POST', `${tb.platform.baseUrl}/api/round-ended`, { token: tb.world.providerToken, raw: '{"roundId":' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Bad Request');
    });

    it('When the body names an unknown casino but is invalid, then validation comes first: 400', async () => {
      const res = await tb.roundEnded({ roundId: 'a:b', providerIds: ['no-such-casino'] });
      expect(res.status).toBe(400);
    });
  });

  describe('authentication', () => {
    it('When the game provider token is missing or unknown, then 403 AUTHENTICATION_FAILED and no casino is called', async () => {
      const roundId = uniqueId('r');
      for (const token of [undefined, 'not-a-token']) {
        const res = await http('POST', `${tb.platform.baseUrl}/api/round-ended`, { token, body: { roundId, providerIds: [a] } });
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('AUTHENTICATION_FAILED');
      }
      expect(roundEndedCalls(undefined, roundId)).toBe(0);
    });

    it('When the notifier is called directly without the gateway identity, then 403 AUTHENTICATION_FAILED', async () => {
      const res = await http('POST', `${tb.platform.services.notifier!.url}/api/round-ended`, { body: { roundId: 'r', providerIds: [a] } });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('AUTHENTICATION_FAILED');
    });
  });

  describe('jobs, readiness and metrics', () => {
    it('When a round-ended call is queued, then each job carries ids, the request id and the trace context, never a secret, and is set to be trimmed once finished', async () => {
      const traced = installTestTracing();
      const roundId = uniqueId('r');
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const res = await tb.roundEnded({ roundId, providerIds: [a, b] }, { traceparent, 'x-request-id': `req-${roundId}` });
      traced.uninstall();
      expect(res.status).toBe(200);

      const queue = new Queue(ROUND_ENDED_QUEUE, { connection: { url: tb.platform.config.REDIS_URL }, prefix: tb.env.REDIS_KEY_PREFIX });
      try {
        const jobs = (await queue.getJobs(['completed'], 0, 200)).filter((j) => j.data.roundId === roundId);
        expect(jobs.map((j) => j.data.providerId).sort()).toEqual([a, b].sort());
        for (const job of jobs) {
          expect(Object.keys(job.data).sort()).toEqual(['groupId', 'providerId', 'requestId', 'roundId', 'trace']);
          expect(job.data).toMatchObject({ groupId: tb.world.groupId, requestId: `req-${roundId}`, trace: { traceparent } });
          const stored = JSON.stringify({ data: job.data, returnvalue: job.returnvalue });
          for (const secret of [tb.world.walletSecret, 'notifier-test-sandbox-wallet-secret', tb.world.launchKey, tb.world.providerToken, tb.sandbox.walletUrl]) {
            expect(stored).not.toContain(secret);
          }
          expect(job.opts).toMatchObject({ attempts: 1, removeOnComplete: { age: expect.any(Number), count: expect.any(Number) }, removeOnFail: { age: expect.any(Number), count: expect.any(Number) } });
        }
      } finally {
        await queue.close();
      }
    });

    it('When readiness is asked, then the notifier reports Redis, the queue and its event reader', async () => {
      const res = await http('GET', `${tb.platform.services.notifier!.url}/readyz`);
      expect(res.status).toBe(200);
      expect(res.body.checks).toMatchObject({ postgres: 'ok', redis: 'ok', queue: 'ok', queue_events: 'ok' });
    });

    it('When metrics are scraped, then queue depth, live workers and delivery outcomes and latency are there', async () => {
      await tb.roundEnded({ roundId: uniqueId('r'), providerIds: [a] });
      const res = await http('GET', `${tb.platform.services.notifier!.url}/metrics`);
      expect(res.text).toMatch(/notifier_queue_jobs\{state="waiting",service="notifier"\} \d+/);
      expect(res.text).toMatch(/notifier_workers\{service="notifier"\} [1-9]/);
      expect(res.text).toMatch(/notifier_round_ended_deliveries_total\{outcome="ok",service="notifier"\} [1-9]/);
      expect(res.text).toContain('notifier_round_ended_delivery_seconds_bucket');
    });
  });
});

/**
 * A context manager and a propagator for `traceparent`, so the test sees the trace context the
 * notifier received travel into the job (production uses the OpenTelemetry SDK for this).
 */
function installTestTracing(): { uninstall(): void } {
  const key = createContextKey('test traceparent');
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
  const propagator: TextMapPropagator = {
    inject: (ctx, carrier, setter) => {
      const value = ctx.getValue(key);
      if (typeof value === 'string') setter.set(carrier, 'traceparent', value);
    },
    extract: (ctx, carrier, getter) => {
      const value = getter.get(carrier, 'traceparent');
      return typeof value === 'string' ? ctx.setValue(key, value) : ctx;
    },
    fields: () => ['traceparent'],
  };
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(propagator);
  return {
    uninstall: () => {
      propagation.disable();
      context.disable();
    },
  };
}
