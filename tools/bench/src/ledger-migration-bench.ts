import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrateToLatest } from '@relay/shared';
import { ROOT } from './harness';
import { ROUNDS, TRANSACTIONS } from './reporting-data';

/**
 * What 007_ledger_partitions costs an existing database: the reporting data set loaded in the old
 * layout (one heap per table, no key records), its bytes per transaction, then the migration to the
 * partitioned layout, timed, while a probe connection keeps reading the transactions table as a
 * money call would (every 20 ms, each read timed): the longest probe read is the longest a money
 * call waited for a lock. Then the bytes per transaction of the same data in the new layout.
 *
 *   BENCH_LEGACY_DATABASE_URL  default postgres://postgres@127.0.0.1:5432/relay_bench_legacy (wiped)
 *   BENCH_ROUNDS               as the reporting seed (default 2,500,000 rounds, 5M transactions)
 */
const URL_LEGACY = process.env.BENCH_LEGACY_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/relay_bench_legacy';

interface TableSize {
  table: string;
  heap: number;
  indexes: number;
}

/** Heap (with TOAST) and index bytes of each money table, its partitions and the key records. */
async function sizes(client: pg.Client): Promise<TableSize[]> {
  const { rows } = await client.query(`
    WITH t AS (
      SELECT coalesce(p.relname, c.relname) AS table, c.oid
        FROM pg_class c
        LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
        LEFT JOIN pg_class p ON p.oid = i.inhparent
       WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
         AND coalesce(p.relname, c.relname) IN ('transactions', 'transaction_attempts', 'rounds', 'transaction_keys', 'round_keys')
    )
    SELECT "table", sum(pg_table_size(oid))::bigint AS heap, sum(pg_indexes_size(oid))::bigint AS indexes FROM t GROUP BY 1 ORDER BY 1`);
  return rows.map((r) => ({ table: r.table, heap: Number(r.heap), indexes: Number(r.indexes) }));
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function sizeTable(before: TableSize[], after: TableSize[], transactions: number): string[] {
  const names = [...new Set([...before, ...after].map((s) => s.table))];
  const per = (s: TableSize | undefined) => (s ? ((s.heap + s.indexes) / transactions).toFixed(0) : '-');
  const lines = ['| table | before: heap MB + indexes MB | after: heap MB + indexes MB | bytes per transaction before | after |', '|---|---:|---:|---:|---:|'];
  for (const name of names) {
    const b = before.find((s) => s.table === name);
    const a = after.find((s) => s.table === name);
    lines.push(`| ${name} | ${b ? `${mb(b.heap)} + ${mb(b.indexes)}` : '-'} | ${a ? `${mb(a.heap)} + ${mb(a.indexes)}` : '-'} | ${per(b)} | ${per(a)} |`);
  }
  const total = (list: TableSize[]) => list.reduce((n, s) => n + s.heap + s.indexes, 0);
  lines.push(`| **all** | ${mb(total(before))} MB | ${mb(total(after))} MB | ${(total(before) / transactions).toFixed(0)} | ${(total(after) / transactions).toFixed(0)} |`);
  return lines;
}

async function main(): Promise<void> {
  const seeded = spawnSync(process.execPath, [path.join(__dirname, 'reporting-seed.js')], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_LAYOUT: 'legacy', BENCH_DATABASE_URL: URL_LEGACY, BENCH_RESEED: '1' },
  });
  if (seeded.status !== 0) throw new Error('legacy seed failed');

  const client = new pg.Client({ connectionString: URL_LEGACY, application_name: 'relay-bench-migration' });
  await client.connect();
  const before = await sizes(client);
  await client.end();

  // The probe: a read of the transactions table by its key, as a replay would, every 20 ms.
  const probe = new pg.Client({ connectionString: URL_LEGACY, application_name: 'relay-bench-probe' });
  await probe.connect();
  await probe.query(`SET statement_timeout = '1h'`);
  const waits: number[] = [];
  let probing = true;
  const probeLoop = (async () => {
    while (probing) {
      const t0 = process.hrtime.bigint();
      try {
        await probe.query(`SELECT 1 FROM transactions WHERE provider_id = 'bench-cas-01' AND transaction_id = 'tx-1-bet'`);
      } catch {
        // The table is swapped mid-way; a failed read counts with its wait.
      }
      waits.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  const started = Date.now();
  // This bench measures the offline copy: 007 refuses it on a large ledger unless asked to.
  process.env.LEDGER_MIGRATION_MODE = 'offline';
  await migrateToLatest(URL_LEGACY);
  const migrationMs = Date.now() - started;
  await new Promise((r) => setTimeout(r, 200));
  probing = false;
  await probeLoop;
  await probe.end();

  const after = new pg.Client({ connectionString: URL_LEGACY });
  await after.connect();
  await after.query('VACUUM ANALYZE');
  const afterSizes = await sizes(after);
  const pgVersion = (await after.query('SELECT version() AS v')).rows[0].v as string;
  await after.end();

  const longest = Math.max(...waits);
  const lines = [
    '## Migrating an existing ledger to the partitioned layout (007_ledger_partitions)',
    '',
    `Data set: the reporting seed (${ROUNDS.toLocaleString('en-US')} rounds, ${TRANSACTIONS.toLocaleString('en-US')} transactions, no attempts) loaded in the old`,
    `layout, then migrated. Measured ${new Date().toISOString()} by tools/bench/src/ledger-migration-bench.ts on ${os.cpus().length} CPUs,`,
    `${pgVersion.split(' on ')[0]}; other work on the machine: load average ${os.loadavg()[0].toFixed(1)} at the end.`,
    '',
    `- Migration time: **${(migrationMs / 1000).toFixed(1)} s**, all of it under the old tables' ACCESS EXCLUSIVE lock.`,
    `- Longest wait of a read of the transactions table during it (probe every 20 ms): **${(longest / 1000).toFixed(1)} s**; ${waits.length} probe reads.`,
    '',
    ...sizeTable(before, afterSizes, TRANSACTIONS),
    '',
  ];
  writeFileSync(path.join(ROOT, 'tools/bench/results/ledger-migration.md'), lines.join('\n'));
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
