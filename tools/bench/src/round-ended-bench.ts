import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEV_SECRETS, dropDatabase, Redis } from '@relay/shared';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { rateLimitMethod } from './harness';

/**
 * Latency of POST /api/round-ended through the gateway to 1, 10 and 50 casinos (p50/p99), on the
 * platform as `npm start` runs it: tools/platform/dist/start.js starts every service and the
 * notifier worker, each in its own process. The casinos all live in one sandbox casino in this
 * process, answering at once, so the figures are the relay's own cost: gateway, casino lookup,
 * queueing, the worker's signed calls and the result events.
 * Writes tools/bench/results/round-ended.md.
 *
 *   BENCH_DATABASE_URL   a scratch database, created and dropped (default .../relay_bench_round_ended)
 *   BENCH_SAMPLES        timed requests per fan-out and pass (default 300, after 20 warm-up requests)
 *   BENCH_CONCURRENCY    parallel callers of the second pass (default 10)
 *   BENCH_FAN_OUTS       casinos per request, one pass pair each (default 1,10,50)
 * Needs a build first (`npx tsc -b tools/platform services/... tools/bench`, or `npm run build`).
 */

const ROOT = path.resolve(__dirname, '../../..');
const RESULTS_FILE = path.resolve(__dirname, '../results/round-ended.md');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/relay_bench_round_ended';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const WARMUP = 20;
const FAN_OUTS = (process.env.BENCH_FAN_OUTS ?? '1,10,50').split(',').map(Number);
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? DEV_SECRETS.ADMIN_TOKEN;
const WALLET_SECRET = 'bench-sandbox-wallet-secret-0123456789';

interface Pass {
  casinos: number;
  concurrency: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  perSecond: number;
}

async function main(): Promise<void> {
  const prefix = `bench_round_ended_${Date.now().toString(36)}`;
  const ports = await freePorts(7);
  const names = ['GATEWAY_PORT', 'LAUNCHER_PORT', 'WALLET_PORT', 'REPORTING_PORT', 'NOTIFIER_PORT', 'ADMIN_PORT', 'BACKOFFICE_PORT'];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...Object.fromEntries(names.map((n, i) => [n, String(ports[i])])),
    DATABASE_URL,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    LOG_LEVEL: 'warn',
  };
  delete env.REPORTING_DATABASE_URL;
  const baseUrl = `http://127.0.0.1:${ports[0]}`;
  const loadBefore = os.loadavg()[0];

  const platform = spawn(process.execPath, [path.join(ROOT, 'tools/platform/dist/start.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const sandbox = await startCasinoSandbox({ walletSecret: WALLET_SECRET });
  try {
    await waitReady(baseUrl, platform);
    const { token, casinos } = await provision(baseUrl, sandbox, Math.max(...FAN_OUTS));
    const passes: Pass[] = [];
    for (const n of FAN_OUTS) {
      for (const concurrency of [1, CONCURRENCY]) {
        passes.push(await measure(baseUrl, token, casinos.slice(0, n), concurrency));
        console.error(`round-ended to ${n} casinos, ${concurrency} caller(s): p50 ${fmt(passes.at(-1)!.p50)} ms, p99 ${fmt(passes.at(-1)!.p99)} ms`);
      }
    }
    const expected = passes.reduce((sum, p) => sum + p.casinos * (p.requests + WARMUP), 0);
    const delivered = sandbox.roundEndedCount();
    if (delivered !== expected) throw new Error(`the casinos got ${delivered} notifications, expected ${expected}`);
    writeResults(passes, delivered, [loadBefore, os.loadavg()[0]]);
  } finally {
    await stop(platform);
    await sandbox.close();
    await deleteKeys(prefix);
    await dropDatabase(DATABASE_URL).catch(() => undefined);
  }
}

async function provision(baseUrl: string, sandbox: CasinoSandbox, count: number): Promise<{ token: string; casinos: string[] }> {
  const stamp = Date.now().toString(36);
  const groupId = `bench-grp-${stamp}`;
  await admin(baseUrl, 'PUT', `game-providers/${groupId}`, { name: 'Bench game provider' });
  const token = String(((await admin(baseUrl, 'POST', `game-providers/${groupId}/tokens`)) as { token: string }).token);
  const casinos: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const providerId = `bench-cas-${stamp}-${i}`;
    await admin(baseUrl, 'PUT', `casinos/${providerId}`, { name: `Bench casino ${i}`, walletUrl: sandbox.walletUrlFor(providerId), walletSecret: WALLET_SECRET });
    casinos.push(providerId);
  }
  return { token, casinos };
}

async function measure(baseUrl: string, token: string, casinos: string[], concurrency: number): Promise<Pass> {
  let round = 0;
  const call = async () => {
    const body = JSON.stringify({ roundId: `bench-${casinos.length}-${concurrency}-${(round += 1)}`, providerIds: casinos });
    const started = process.hrtime.bigint();
    const res = await fetch(`${baseUrl}/api/round-ended`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
    const text = await res.text();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (res.status !== 200) throw new Error(`round-ended answered ${res.status}: ${text}`);
    return ms;
  };
  for (let i = 0; i < WARMUP; i += 1) await call();
  const times: number[] = [];
  let left = SAMPLES;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left -= 1;
        times.push(await call());
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return {
    casinos: casinos.length,
    concurrency,
    requests: times.length,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    max: times[times.length - 1],
    perSecond: times.length / seconds,
  };
}

function writeResults(passes: Pass[], delivered: number, load: [number, number]): void {
  const rows = passes.map((p) => `| ${p.casinos} | ${p.concurrency} | ${p.requests} | ${fmt(p.p50)} | ${fmt(p.p99)} | ${fmt(p.max)} | ${p.perSecond.toFixed(0)} |`);
  const text = [
    '## Round-ended latency through the gateway',
    '',
    `Run ${new Date().toISOString()} by \`tools/bench/src/round-ended-bench.ts\`, on ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version};`,
    `1-minute load average ${load[0].toFixed(2)} before the run and ${load[1].toFixed(2)} after it.`,
    'The whole platform runs as `npm start` runs it: every service and the notifier worker are separate processes',
    `(worker concurrency ${process.env.NOTIFIER_WORKER_CONCURRENCY ?? 50}). PostgreSQL and Redis are local. All casinos are one in-process`,
    'sandbox casino that answers at once, so the figures are the relay\'s own cost: gateway authentication, casino lookup,',
    'one BullMQ job per casino, the signed HTTP call from the worker, and the result events back to the waiting request.',
    rateLimitMethod(),
    `Each pass: ${WARMUP} warm-up requests, then the timed ones, each with a fresh roundId. Latency in ms, measured by the caller.`,
    '',
    '| casinos | parallel callers | requests | p50 | p99 | max | requests/s |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Every request answered 200 {"ok": true}; the sandbox counted ${delivered} notifications, exactly one per casino and request.`,
    `The load generator, the sandbox casino, Redis, PostgreSQL and the seven platform processes share ${os.cpus().length} CPU(s), so the`,
    'absolute figures are pessimistic, and the rows with parallel callers mostly measure waiting for a CPU. Each casino adds',
    'one job and four stream events in Redis and one HTTP call from the worker, hence the growth with the fan-out.',
    '',
  ].join('\n');
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, text);
  console.error(`wrote ${RESULTS_FILE}`);
}

async function admin(baseUrl: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${baseUrl}/admin/v1/${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as { data: unknown };
  if (res.status >= 300) throw new Error(`admin ${method} ${route} answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}

async function waitReady(baseUrl: string, platform: ChildProcess): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (platform.exitCode !== null) throw new Error(`the platform exited with ${platform.exitCode}`);
    // Every service behind the gateway, not only the gateway's own dependencies.
    const ok = await fetch(`${baseUrl}/readyz`).then(
      async (r) => r.ok && Object.values(((await r.json()) as { checks: Record<string, string> }).checks).every((c) => c === 'ok'),
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the platform did not become ready within 60 s');
}

async function stop(platform: ChildProcess): Promise<void> {
  if (platform.exitCode !== null) return;
  const exited = new Promise((resolve) => platform.once('exit', resolve));
  platform.kill('SIGTERM');
  await exited;
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

function freePorts(count: number): Promise<number[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<number>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as net.AddressInfo;
            server.close(() => resolve(port));
          });
        }),
    ),
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function fmt(ms: number): string {
  return ms.toFixed(1);
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
