import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { loadConfig } from '@relay/shared';

/** Shared pieces of the benchmarks: real processes, an open-loop load generator, percentiles. */
export const ROOT = path.resolve(__dirname, '../../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The gateway's per-provider rate limit of a bench's platform started with `env` (over this
 * process's environment), as its printed method states it. Benches leave it on, as production
 * runs it: RATE_LIMIT_PER_SECOND as an operator sets it, or its default.
 */
export function rateLimitMethod(env: NodeJS.ProcessEnv = {}): string {
  const set = { ...process.env, ...env }.RATE_LIMIT_PER_SECOND;
  const limit = loadConfig({ ...process.env, ...env }).RATE_LIMIT_PER_SECOND;
  if (limit === 0) return "The gateway's rate limit is off (RATE_LIMIT_PER_SECOND=0 in the environment); production runs with it on.";
  return `The gateway limits each game provider to ${limit.toLocaleString('en')} requests per second (RATE_LIMIT_PER_SECOND, ${set === undefined ? 'its production default' : 'as set in the environment'}), counted in Redis with one round trip per call, as in production.`;
}

/** BENCH_LOG_DIR=dir: each process's stdout (its log lines) goes to dir/<script name>.log. */
export function startProcess(script: string, env: Record<string, string>, nodeArgs: string[] = []): ChildProcess {
  const logDir = process.env.BENCH_LOG_DIR;
  const stdout = logDir ? openSync(path.join(logDir, `${script.replace(/\W+/g, '_')}.log`), 'w') : 'ignore';
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, script)], { env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'inherit'] });
  if (typeof stdout === 'number') closeSync(stdout);
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 20000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Waits until `url` answers 2xx. A readiness answer that lists checks must show every one ok: the
 * gateway is ready once its own PostgreSQL and Redis are, before the services behind it.
 */
export async function waitFor(url: string, timeoutMs = 60000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      const body = (await res.json().catch(() => null)) as { checks?: Record<string, string> } | null;
      if (res.ok && Object.values(body?.checks ?? {}).every((c) => c === 'ok')) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

export interface Sample {
  ms: number;
  status: number;
}

export interface Summary {
  calls: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
}

/** The value at quantile q (0..1) of ascending values, by rank (floor(q * n), the last for q = 1); undefined when there are none. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : undefined;
}

export function summarize(samples: Sample[], seconds: number, okStatuses = [200]): Summary {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const pick = (q: number) => quantile(sorted, q) ?? 0;
  return {
    calls: samples.length,
    seconds,
    perSecond: Math.round(samples.length / seconds),
    p50: round(pick(0.5)),
    p99: round(pick(0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    errors: samples.filter((s) => !okStatuses.includes(s.status)).length,
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

export async function timedPost(pool: Pool, pathname: string, body: unknown, headers: Record<string, string>): Promise<Sample> {
  const started = process.hrtime.bigint();
  try {
    const res = await pool.request({ method: 'POST', path: pathname, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    await res.body.dump();
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, status: res.statusCode };
  } catch {
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, status: 0 };
  }
}

/**
 * Open-loop load: starts `unit` every 1/rate seconds for `seconds`, whatever the latency (so slow
 * answers show up as latency, not as a lower offered rate); or closed-loop with `concurrency`
 * workers back to back (saturation).
 */
export async function fixedRate(ratePerSecond: number, seconds: number, unit: () => Promise<Sample[]>): Promise<{ samples: Sample[]; seconds: number }> {
  const samples: Sample[] = [];
  const inflight: Promise<void>[] = [];
  const start = process.hrtime.bigint();
  const total = Math.round(ratePerSecond * seconds);
  for (let i = 0; i < total; i++) {
    const due = Number(start) / 1e6 + (i * 1000) / ratePerSecond;
    const wait = due - Number(process.hrtime.bigint()) / 1e6;
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(unit().then((s) => void samples.push(...s)));
  }
  await Promise.all(inflight);
  // Achieved rate: over the time until the last answer, so a backlog lowers it.
  return { samples, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

export async function saturate(concurrency: number, seconds: number, unit: () => Promise<Sample[]>): Promise<{ samples: Sample[]; seconds: number }> {
  const samples: Sample[] = [];
  const started = Date.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) samples.push(...(await unit()));
    }),
  );
  return { samples, seconds: (Date.now() - started) / 1000 };
}

/** Closed loop: exactly `units` runs of `unit`, `concurrency` at a time (a fixed amount of work, to read CPU per call). */
export async function repeat(concurrency: number, units: number, unit: () => Promise<Sample[]>): Promise<{ samples: Sample[]; seconds: number }> {
  const samples: Sample[] = [];
  const started = Date.now();
  let left = units;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) samples.push(...(await unit()));
    }),
  );
  return { samples, seconds: (Date.now() - started) / 1000 };
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/**
 * Writes a bench's section to tools/bench/results/<name>.md, the source of BENCHMARKS.md, only for
 * a standard run: with any of `knobs` set (a profiling or what-if run) it is printed, never recorded.
 */
export function recordResult(name: string, md: string, knobs: string[]): void {
  const set = knobs.filter((k) => process.env[k]);
  if (set.length === 0) {
    const dir = path.join(ROOT, 'tools/bench/results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${name}.md`), `${md}\n`);
  } else {
    console.error(`not recorded in tools/bench/results (set: ${set.join(', ')})`);
  }
  console.log(md);
}
