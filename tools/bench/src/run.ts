import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './harness';

/**
 * `npm run bench`: runs each benchmark in its own process (each starts the platform it measures),
 * then writes BENCHMARKS.md from their result sections. The reporting benchmark needs its 5-million
 * row seed first and runs only with BENCH_REPORTING=1; its last figures are kept otherwise.
 */
const RESULTS = path.join(ROOT, 'tools/bench/results');
const BENCHES: { name: string; scripts: string[]; when?: () => boolean }[] = [
  { name: 'money', scripts: ['money-bench.js'] },
  { name: 'round-ended', scripts: ['round-ended-bench.js'] },
  // The seed skips itself when its data set is already loaded (BENCH_RESEED=1 reloads it).
  { name: 'reporting', scripts: ['reporting-seed.js', 'reporting-bench.js'], when: () => process.env.BENCH_REPORTING === '1' },
  // Loads the data set in the old layout and migrates it: minutes, and a database of its own.
  { name: 'ledger-migration', scripts: ['ledger-migration-bench.js'], when: () => process.env.BENCH_LEDGER_MIGRATION === '1' },
];

let failed = false;
const only = process.argv.slice(2);
for (const bench of BENCHES) {
  if (only.length && !only.includes(bench.name)) continue;
  if (bench.when && !bench.when()) continue;
  console.error(`== ${bench.name}`);
  for (const script of bench.scripts) {
    const result = spawnSync(process.execPath, [path.join(__dirname, script)], { stdio: 'inherit', env: process.env });
    if (result.status !== 0) {
      console.error(`${bench.name}: ${script} failed (exit ${result.status})`);
      failed = true;
      break;
    }
  }
}

// Each measured section, then its hand-written notes (`<name>-notes.md`) when there are some.
const sections = ['money', 'round-ended', 'reporting', 'ledger-migration']
  .flatMap((name) => [path.join(RESULTS, `${name}.md`), path.join(RESULTS, `${name}-notes.md`)])
  .filter((file) => existsSync(file))
  .map((file) => readFileSync(file, 'utf8').trim());
writeFileSync(
  path.join(ROOT, 'BENCHMARKS.md'),
  ['# Benchmarks', '', 'Written by `npm run bench` from `tools/bench/results/`; each section says when and on what it was measured.', '', ...sections.flatMap((s) => [s, ''])].join('\n'),
);
process.exit(failed ? 1 : 0);
