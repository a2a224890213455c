import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './harness';

/**
 * `npm run bench`: runs each benchmark in its own process (each starts the platform it measures),
 * then writes BENCHMARKS.md from their result sections. The reporting benchmark needs its two seeded
 * databases (5M and 30M transactions) and runs only with BENCH_REPORTING=1, with the back-office
 * benchmark on the larger one; their last figures are kept otherwise. The reporting database's first
 * copy runs with BENCH_REPLICA_COPY=1. A bench named on the command line runs regardless of its switch. Money calls at 30M run when
 * the 30M database is seeded (BENCH_MONEY_AT_SCALE=0 skips them, =1 requires them).
 */
const RESULTS = path.join(ROOT, 'tools/bench/results');
const reporting = () => process.env.BENCH_REPORTING === '1';
const SMALL_URL = process.env.BENCH_REPORTING_SMALL_URL ?? 'postgres://postgres@127.0.0.1:5432/relay_bench';
const LARGE_URL = process.env.BENCH_REPORTING_LARGE_URL ?? 'postgres://postgres@127.0.0.1:5432/relay_bench_30m';
type Script = string | { script: string; env: Record<string, string> };
/** BENCH_REPORTING_SEED=1: load both data sets first (each skipped when already loaded at that size). */
const seeds: Script[] = process.env.BENCH_REPORTING_SEED === '1'
  ? [
      { script: 'reporting-seed.js', env: { BENCH_DATABASE_URL: SMALL_URL, BENCH_ROUNDS: '2500000' } },
      { script: 'reporting-seed.js', env: { BENCH_DATABASE_URL: LARGE_URL, BENCH_ROUNDS: '15000000' } },
    ]
  : [];
const BENCHES: { name: string; scripts: Script[]; when?: () => boolean }[] = [
  { name: 'money', scripts: ['money-bench.js'] },
  // The wallet's statements under each plan_cache_mode, with few and with many partitions (pgbench).
  { name: 'plan-cache', scripts: ['plan-cache-bench.js'] },
  // Decides itself whether the 30M database is there (see money-at-scale.ts).
  { name: 'money-at-scale', scripts: ['money-at-scale.js'], when: () => process.env.BENCH_MONEY_AT_SCALE !== '0' },
  { name: 'round-ended', scripts: ['round-ended-bench.js'] },
  // The 30M data set takes about half an hour to load: seeded here only on request. reporting-bench
  // refuses a database that is not seeded.
  { name: 'reporting', scripts: [...seeds, 'reporting-bench.js'], when: reporting },
  { name: 'backoffice', scripts: ['backoffice-bench.js'], when: reporting },
  // A reporting database made from nothing copies a 5M money database: the load takes minutes, the copy more.
  { name: 'replica-copy', scripts: ['replica-copy.js'], when: () => process.env.BENCH_REPLICA_COPY === '1' },
];

let failed = false;
const only = process.argv.slice(2);
for (const bench of BENCHES) {
  if (only.length && !only.includes(bench.name)) continue;
  // A bench named on the command line runs whatever its switch says.
  if (bench.when && !bench.when() && !only.includes(bench.name)) continue;
  console.error(`== ${bench.name}`);
  for (const entry of bench.scripts) {
    const { script, env } = typeof entry === 'string' ? { script: entry, env: {} } : entry;
    const result = spawnSync(process.execPath, [path.join(__dirname, script)], { stdio: 'inherit', env: { ...process.env, ...env } });
    if (result.status !== 0) {
      console.error(`${bench.name}: ${script} failed (exit ${result.status})`);
      failed = true;
      break;
    }
  }
}

// Each measured section, then its hand-written notes (`<name>-notes.md`) when there are some.
const sections = ['money', 'plan-cache', 'money-at-scale', 'round-ended', 'reporting', 'bytes', 'backoffice', 'replica-copy']
  .flatMap((name) => [path.join(RESULTS, `${name}.md`), path.join(RESULTS, `${name}-notes.md`)])
  .filter((file) => existsSync(file))
  .map((file) => readFileSync(file, 'utf8').trim());
writeFileSync(
  path.join(ROOT, 'BENCHMARKS.md'),
  ['# Benchmarks', '', 'Written by `npm run bench` from `tools/bench/results/`; each section says when and on what it was measured.', '', ...sections.flatMap((s) => [s, ''])].join('\n'),
);
process.exit(failed ? 1 : 0);
