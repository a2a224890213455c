import { closeRuntime, createRuntime, type Runtime, type RunningServer, type ServiceName } from '@relay/shared';
import { startNotifierWorker, type NotifierWorker } from '../../services/notifier/src';
import { startWorkerMonitor } from '../../services/notifier/src/worker-monitor';
import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld } from '../game';

/**
 * /metrics of every service, scraped through each service's own port as Prometheus would, after
 * real traffic: request counts and latency by route and status, casino calls by casino, operation
 * and outcome, transactions by status, queue depth, and the worker's jobs on its own port.
 */

let p: TestPlatform;
let world: GameWorld;
let workerRt: Runtime;
let worker: NotifierWorker;
let monitor: RunningServer;

beforeAll(async () => {
  // This file's own worker, so its jobs (and its metrics) are the ones scraped below.
  p = await startPlatform({ notifierWorker: false });
  workerRt = await createRuntime('notifier', p.config, { metricsService: 'notifier-worker' });
  worker = await startNotifierWorker(workerRt);
  monitor = await startWorkerMonitor(workerRt, 0);
  world = await startGameWorld(p);

  const player = await world.launchPlayer({ balance: 100 });
  const bet = (amount: number) =>
    world.call('POST', '/api/balance/cash-out', {
      sessionId: player.sessionId,
      gameId: world.gameId,
      currency: player.currency,
      roundId: uniqueId('round'),
      transactionId: uniqueId('bet'),
      amount,
    });
  expect((await bet(10)).status).toBe(200);
  expect((await bet(1000)).status).toBe(400); // INSUFFICIENT_FUNDS at the casino: a FAILED transaction
  expect((await world.call('POST', '/api/round-ended', { roundId: uniqueId('round'), providerIds: [world.providerId] })).status).toBe(200);
  expect((await world.call('GET', '/api/v1/providers/ids')).status).toBe(200);
});

afterAll(async () => {
  await monitor?.close(1000);
  await worker?.close();
  if (workerRt) await closeRuntime(workerRt);
  await p?.stop();
  await world?.sandbox.close();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text exposition format, strictly: every line a comment or a well-formed sample. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

async function scrape(url: string, token?: string): Promise<Sample[]> {
  const res = await http('GET', `${url}/metrics`, { token });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.text);
}

function value(samples: Sample[], name: string, labels: Record<string, string>): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}

const SERVICES: ServiceName[] = ['gateway', 'launcher', 'wallet', 'reporting', 'notifier', 'admin'];

describe('metrics', () => {
  it.each(SERVICES)('When %s is scraped on its own port, then it answers request counts and latency histograms by route and status', async (name) => {
    const samples = await scrape(p.services[name]!.url, name === 'gateway' ? p.adminToken : undefined);
    const requests = samples.filter((s) => s.name === 'http_requests_total' && s.labels.service === name);
    expect(requests.length).toBeGreaterThan(0);
    for (const s of requests) expect(Object.keys(s.labels).sort()).toEqual(['method', 'route', 'service', 'status']);
    expect(samples.some((s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.service === name && s.labels.le === '+Inf')).toBe(true);
    // Nothing is in flight between calls (the scrape itself is not counted).
    expect(samples.find((s) => s.name === 'http_requests_in_flight')?.value).toBe(0);
  });

  it('When the game called through the gateway, then each service counts its route and status', async () => {
    expect(value(await scrape(p.services.gateway!.url, p.adminToken), 'http_requests_total', { route: '/api/balance/cash-out', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(value(await scrape(p.services.launcher!.url), 'http_requests_total', { route: '/launch', status: '302' })).toBeGreaterThanOrEqual(1);
    expect(value(await scrape(p.services.reporting!.url), 'http_requests_total', { route: '/api/v1/providers/ids', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(value(await scrape(p.services.admin!.url), 'http_requests_total', { method: 'PUT', status: '200' })).toBeGreaterThanOrEqual(3);
  });

  it('When money moved, then the wallet counts casino calls by casino, operation and outcome, and transactions by category and status', async () => {
    const wallet = await scrape(p.services.wallet!.url);
    expect(value(wallet, 'http_requests_total', { route: '/api/balance/cash-out', status: '200' })).toBe(1);
    expect(value(wallet, 'http_requests_total', { route: '/api/balance/cash-out', status: '400' })).toBe(1);
    expect(value(wallet, 'casino_calls_total', { provider_id: world.providerId, operation: 'debit', outcome: 'ok' })).toBe(1);
    expect(value(wallet, 'casino_calls_total', { provider_id: world.providerId, operation: 'debit', outcome: 'declined' })).toBe(1);
    expect(value(wallet, 'casino_call_duration_seconds_count', { provider_id: world.providerId, operation: 'debit' })).toBe(2);
    // Whose failure each answer was: the insufficient funds are the player's casino declining.
    expect(value(wallet, 'relay_money_calls_total', { provider_id: world.providerId, operation: 'cash-out', result: 'ok' })).toBe(1);
    expect(value(wallet, 'relay_money_calls_total', { provider_id: world.providerId, operation: 'cash-out', result: 'declined' })).toBe(1);
    expect(wallet.some((s) => s.name === 'relay_money_calls_total' && s.labels.provider_id === world.providerId && s.labels.result === 'relay_error' && s.value === 0)).toBe(true);
    expect(value(wallet, 'relay_transactions_total', { category: 'CASH_OUT', status: 'SUCCESS' })).toBe(1);
    expect(value(wallet, 'relay_transactions_total', { category: 'CASH_OUT', status: 'FAILED' })).toBe(1);
  });

  it('When money moved, then the wallet counts each money call by casino, operation and whose fault its failure was', async () => {
    const wallet = await scrape(p.services.wallet!.url);
    expect(value(wallet, 'relay_money_calls_total', { provider_id: world.providerId, operation: 'cash-out', result: 'ok' })).toBe(1);
    // The casino refused for lack of funds: declined, neither the relay's nor the casino's failure.
    expect(value(wallet, 'relay_money_calls_total', { provider_id: world.providerId, operation: 'cash-out', result: 'declined' })).toBe(1);
    expect(value(wallet, 'relay_money_calls_total', { result: 'relay_error' })).toBe(0);
    expect(value(wallet, 'relay_money_call_duration_seconds_count', { provider_id: world.providerId, operation: 'cash-out' })).toBe(2);
  });

  it('When a service is scraped, then its database pools show used, free and waiting connections against their maximum', async () => {
    const wallet = await scrape(p.services.wallet!.url);
    for (const state of ['used', 'free', 'pending', 'creating']) {
      expect(wallet.some((s) => s.name === 'relay_db_pool_connections' && s.labels.pool === 'primary' && s.labels.state === state)).toBe(true);
    }
    expect(value(wallet, 'relay_db_pool_max', { pool: 'primary' })).toBe(p.config.DATABASE_POOL_MAX);
  });

  it('When probes and scrapes arrive, then they are not counted as requests', async () => {
    const url = p.services.reporting!.url;
    for (const path of ['/healthz', '/readyz', '/metrics', '/healthz']) await http('GET', `${url}${path}`);
    const samples = await scrape(url);
    const probes = samples.filter((s) => s.name === 'http_requests_total' && ['/healthz', '/readyz', '/metrics'].some((r) => s.labels.route?.startsWith(r)));
    expect(probes).toEqual([]);
  });

  it('When a round ended, then the notifier shows queue depth, live workers and delivery outcomes', async () => {
    const notifier = await scrape(p.services.notifier!.url);
    expect(value(notifier, 'notifier_round_ended_deliveries_total', { outcome: 'ok' })).toBe(1);
    expect(value(notifier, 'notifier_round_ended_delivery_seconds_count', { outcome: 'ok' })).toBe(1);
    for (const state of ['waiting', 'active', 'delayed', 'failed']) {
      expect(notifier.some((s) => s.name === 'notifier_queue_jobs' && s.labels.state === state)).toBe(true);
    }
    expect(value(notifier, 'notifier_workers', {})).toBeGreaterThanOrEqual(1);
  });

  it('When the worker delivered, then its own port (NOTIFIER_WORKER_PORT) shows jobs, job latency, queue wait and casino calls, and health', async () => {
    const samples = await scrape(monitor.url);
    // The worker reports as itself, not as the notifier API.
    expect(new Set(samples.map((s) => s.labels.service))).toEqual(new Set(['notifier-worker']));
    expect(value(samples, 'notifier_jobs_total', { outcome: 'ok' })).toBe(1);
    expect(value(samples, 'notifier_job_duration_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(value(samples, 'notifier_job_queue_wait_seconds_count', {})).toBe(1);
    expect(value(samples, 'casino_calls_total', { provider_id: world.providerId, operation: 'round-ended', outcome: 'ok' })).toBe(1);
    expect((await http('GET', `${monitor.url}/healthz`)).status).toBe(200);
    const ready = await http('GET', `${monitor.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
    expect((await http('POST', `${monitor.url}/api/round-ended`, { body: {} })).status).toBe(404);
  });
});
