import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { dropDatabase } from '@relay/shared';
import { freePort, machine, rateLimitMethod, ROOT, saturate, startProcess, stopProcess, summarize, timedPost, waitFor, type Sample, type Summary } from './harness';
import { launchPlayers, provision } from './money-bench';
import { readOnly, scaleLabel } from './reporting-data';

/**
 * Money calls per second at 30M transactions against an empty database, same run (issue 17:
 * reporting indexes must not slow money calls; ratio >= 0.9). Two platforms run side by side,
 * one on a new empty database and one on the seeded 30M database itself (no copy), with the same
 * sandbox casino; the same saturation load (cash-out + cash-in pairs, 64 in flight) runs against
 * each in turn: empty, 30M, empty, 30M, ... The idle platform costs next to nothing meanwhile.
 * (Games, not calls: each of the 64 sends its pair one call after the other, as money-bench does.)
 *
 * The load only ADDS rows to the 30M database, under its own studio and casino (bench-studio,
 * bench-casino-scale: not the seed's bench-grp-N / bench-cas-NN names, so the reporting caller's
 * figures are untouched), and each run is short to keep that growth small (about
 * calls/s x seconds transactions per run).
 *
 *   BENCH_MONEY_AT_SCALE         1: run (fails when the large database is not seeded); 0: skip;
 *                                unset: run when the large database exists and is seeded
 *   BENCH_REPORTING_LARGE_URL    the seeded database (default postgres://postgres@127.0.0.1:5432/relay_bench_30m)
 *   BENCH_SCALE_SECONDS          seconds per run (default 15)
 *   BENCH_SCALE_RUNS             runs per database (default 2)
 *   BENCH_SCALE_WARMUP_SECONDS   warm-up load per database before the runs, not counted (default 3; after a
 *                                PostgreSQL restart the 30M database's indexes are cold: give it 15 or more)
 */
const LARGE_URL = process.env.BENCH_REPORTING_LARGE_URL ?? 'postgres://postgres@127.0.0.1:5432/relay_bench_30m';
const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 15);
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 2);
const WARMUP_SECONDS = Number(process.env.BENCH_SCALE_WARMUP_SECONDS ?? 3);
const IN_FLIGHT = 64;
const PLAYERS = 50;
const TARGET_RATIO = 0.9;
const RESULTS_FILE = path.join(ROOT, 'tools/bench/results/money-at-scale.md');

interface Platform {
  name: string;
  dbUrl: string;
  base: string;
  process: ReturnType<typeof startProcess>;
  unit: () => Promise<Sample[]>;
  pool: Pool;
}

/** The seed's transaction count, or null when the database is missing or not seeded. */
async function seeded(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: readOnly(url) });
  try {
    await client.connect();
    const info = await client.query(`SELECT transactions, finished FROM bench_seed_info`);
    return info.rows[0]?.finished ? Number(info.rows[0].transactions) : null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function isReportingDatabase(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: readOnly(url) });
  try {
    await client.connect();
    const found = await client.query(`SELECT to_regclass('ledger_counts_transactions') IS NOT NULL AS counts`);
    return Boolean(found.rows[0]?.counts);
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function startPlatform(name: string, dbUrl: string, sandboxUrl: string, run: string): Promise<Platform> {
  const [gw, launcher, wallet, reporting, notifier, admin, backoffice] = await Promise.all(Array.from({ length: 7 }, freePort));
  const adminToken = `bench-admin-token-${randomBytes(8).toString('hex')}`;
  const child = startProcess('tools/platform/dist/start.js', {
    DATABASE_URL: dbUrl,
    REDIS_KEY_PREFIX: `bench_${run}_${name}`,
    GATEWAY_PORT: String(gw),
    GATEWAY_HOST: '127.0.0.1',
    LAUNCHER_PORT: String(launcher),
    WALLET_PORT: String(wallet),
    REPORTING_PORT: String(reporting),
    NOTIFIER_PORT: String(notifier),
    ADMIN_PORT: String(admin),
    BACKOFFICE_PORT: String(backoffice),
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  });
  const base = `http://127.0.0.1:${gw}`;
  let world: Awaited<ReturnType<typeof provision>>;
  let players: Awaited<ReturnType<typeof launchPlayers>>;
  try {
    await waitFor(`${base}/readyz`, 180000);
    world = await provision(base, adminToken, sandboxUrl, { groupId: 'bench-studio', providerId: `bench-casino-${name}` });
    players = await launchPlayers(base, sandboxUrl, world, PLAYERS);
  } catch (err) {
    // Not yet in the caller's list of platforms to stop: stopped here, or it would outlive the run.
    await stopProcess(child);
    throw err;
  }
  const pool = new Pool(base, { connections: 128, pipelining: 1 });
  const auth = { authorization: `Bearer ${world.providerToken}` };
  let n = 0;
  const unit = async (): Promise<Sample[]> => {
    const pl = players[n++ % players.length];
    const id = `${run}-${name}-${n}`;
    const common = { sessionId: pl.sessionId, gameId: world.gameId, currency: 'EUR', roundId: `r-${id}` };
    const out = await timedPost(pool, '/api/balance/cash-out', { ...common, transactionId: `b-${id}`, amount: 1 }, auth);
    const inn = await timedPost(pool, '/api/balance/cash-in', { ...common, transactionId: `w-${id}`, amount: 1.5, reason: 'NORMAL_WIN', appliedMultiplier: 1.5, previousTransactionId: `b-${id}`, betAmount: 1 }, auth);
    return [out, inn];
  };
  return { name, dbUrl, base, process: child, unit, pool };
}

async function main(): Promise<void> {
  const mode = process.env.BENCH_MONEY_AT_SCALE;
  if (mode === '0') return;
  // Since issue 34 the seed loads a reporting database (its indexes and counts, no wallet secrets):
  // a platform cannot run its money database on it. Money at scale needs a money-database data set,
  // which the seed does not build yet.
  if (await isReportingDatabase(LARGE_URL)) {
    const note = `money at scale: skipped, ${new URL(LARGE_URL).pathname.slice(1)} is a reporting database (the seed's layout since issue 34)`;
    if (mode === '1') throw new Error(note);
    console.error(note);
    return;
  }
  const transactions = await seeded(LARGE_URL);
  if (transactions === null) {
    if (mode === '1') throw new Error(`${LARGE_URL} is not seeded: run reporting-seed on it first (BENCH_ROUNDS=15000000)`);
    console.error(`money at scale: skipped, ${new URL(LARGE_URL).pathname.slice(1)} is missing or not seeded`);
    return;
  }
  const label = scaleLabel(transactions);
  const run = `${Date.now()}_${randomBytes(2).toString('hex')}`;
  const emptyUrl = `postgres://postgres@127.0.0.1:5432/relay_bench_money_empty_${run}`;
  const sandboxPort = await freePort();
  const sandbox = startProcess('tools/casino-sandbox/dist/main.js', { SANDBOX_PORT: String(sandboxPort), SANDBOX_QUIET: '1' });
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const platforms: Platform[] = [];
  try {
    await waitFor(`${sandboxUrl}/_control/ledger`);
    platforms.push(await startPlatform('empty', emptyUrl, sandboxUrl, run));
    platforms.push(await startPlatform('scale', LARGE_URL, sandboxUrl, run));
    // Warm-up of each: JIT, pools, caches (short by default: every call adds rows).
    for (const p of platforms) await saturate(IN_FLIGHT, WARMUP_SECONDS, p.unit);
    console.error('warm-up done');
    const rows: { target: string; run: number; summary: Summary }[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      for (const p of platforms) {
        const phase = await saturate(IN_FLIGHT, SECONDS, p.unit);
        const summary = summarize(phase.samples, phase.seconds);
        rows.push({ target: p.name, run: i + 1, summary });
        console.error(`${p.name} run ${i + 1}: ${summary.perSecond} calls/s, p99 ${summary.p99} ms, non-200 ${summary.errors}`);
      }
    }
    for (const p of platforms) await p.pool.close();
    const md = report(rows, label, transactions);
    mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(RESULTS_FILE, `${md}\n`);
    console.log(md);
  } finally {
    for (const p of platforms) await stopProcess(p.process);
    await stopProcess(sandbox);
    await dropDatabase(emptyUrl).catch(() => undefined);
  }
}

function report(rows: { target: string; run: number; summary: Summary }[], label: string, transactions: number): string {
  const mean = (target: string) => {
    const of = rows.filter((r) => r.target === target);
    return of.reduce((sum, r) => sum + r.summary.perSecond, 0) / of.length;
  };
  const ratio = mean('scale') / mean('empty');
  const name = (target: string) => (target === 'empty' ? 'empty database' : `${label} transactions (${new URL(LARGE_URL).pathname.slice(1)})`);
  return [
    `## Money calls at ${label} transactions`,
    '',
    `Measured ${new Date().toISOString()} on ${machine()}; 1-minute load average ${os.loadavg()[0].toFixed(1)} at the end.`,
    `Two platforms side by side (tools/bench/src/money-at-scale.ts), each as \`npm start\` runs it: one on a new empty database,`,
    `one on the seeded database of ${transactions.toLocaleString('en')} transactions itself (no copy), with one sandbox casino. The same`,
    `saturation load, cash-out + cash-in pairs from ${IN_FLIGHT} concurrent games (one call each in flight), ${SECONDS} s per run after ${WARMUP_SECONDS} s of warm-up each (not counted), runs against each in turn`,
    `(${rows.map((r) => (r.target === 'empty' ? 'empty' : label)).join(', ')}); the idle platform waits meanwhile. Calls per second count each call of a pair.`,
    rateLimitMethod(),
    '',
    '| run | target | calls | calls/s | p50 ms | p99 ms | non-200 |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.run} | ${name(r.target)} | ${r.summary.calls} | ${r.summary.perSecond} | ${r.summary.p50} | ${r.summary.p99} | ${r.summary.errors} |`),
    '',
    `Mean calls per second: empty ${mean('empty').toFixed(0)}, ${label} ${mean('scale').toFixed(0)}. Ratio ${label} / empty: **${ratio.toFixed(2)}**`,
    `(target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : '**not met**'}).`,
  ].join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
