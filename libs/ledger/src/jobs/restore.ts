import { promises as fs } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ensureDatabaseExists } from '@relay/shared';
import { migrateToLatest } from '../migrate';
import { compareFacts, loadTable, MANIFEST, monthRange, partitionName, sqlFacts, TABLE_SPECS, verifyFiles, type Manifest, type TableFacts } from './archive';
import type { ArchiveStore } from './store';

export interface RestoreReport {
  month: string;
  tables: Record<string, TableFacts>;
}

/**
 * Restores one archived month into a database (a dispute): the files are verified against
 * their manifest first, then loaded, in one transaction, into the month's partitions of a
 * database with the ledger layout (created if missing). It refuses a database that already has
 * rows of that month, and checks after loading that the database's counts and sums equal the
 * manifest's.
 */
export async function restoreMonth(store: ArchiveStore, month: string, databaseUrl: string): Promise<RestoreReport> {
  if (!/^\d{4}-\d{2}$/.test(month)) throw new Error('--month must be YYYY-MM');
  const dir = path.join(store.dir, month);
  if (!(await store.fetch(month, MANIFEST))) throw new Error(`no archive of ${month} in ${store.dir}`);
  const manifest = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  for (const spec of TABLE_SPECS) await store.fetch(month, manifest.tables[spec.table].file);
  const problems = await verifyFiles(dir, manifest);
  if (problems.length) throw new Error(`the archive of ${month} does not match its manifest: ${problems.join('; ')}`);

  const first = `${month}-01`;
  await prepareTarget(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'relay-ledger-restore' });
  await client.connect();
  try {
    const layout = await client.query(`SELECT to_regproc('ledger_create_partition') IS NOT NULL AS ok`);
    if (!layout.rows[0].ok) throw new Error('the target database has no ledger layout: create it and run the migrations first (docs/ledger.md, "Restore")');
    const { lo, hi } = monthRange(first);
    for (const spec of TABLE_SPECS) {
      const { rows } = await client.query(`SELECT 1 FROM ${spec.table} WHERE ${spec.key} >= $1 AND ${spec.key} < $2 LIMIT 1`, [lo, hi]);
      if (rows.length) throw new Error(`the target database already has ${spec.table} rows of ${month}: refusing to overwrite`);
    }
    await client.query('BEGIN');
    try {
      const tables: Record<string, TableFacts> = {};
      for (const spec of TABLE_SPECS) {
        await client.query('SELECT ledger_create_partition($1, $2::date)', [spec.table, first]);
        await loadTable(client, path.join(dir, manifest.tables[spec.table].file), `"${partitionName(spec.table, first)}"`);
        const facts = await sqlFacts(client, spec, first);
        const differences = compareFacts(`${month} ${spec.table}`, manifest.tables[spec.table], facts);
        if (differences.length) throw new Error(`restored rows differ from the manifest: ${differences.join('; ')}`);
        tables[spec.table] = facts;
      }
      await client.query('COMMIT');
      return { month, tables };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await client.end();
  }
}

/** A database that does not exist yet, or has no table at all, is created and given the current layout (a fresh dispute database). */
async function prepareTarget(databaseUrl: string): Promise<void> {
  await ensureDatabaseExists(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let empty: boolean;
  try {
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema()`);
    empty = rows[0].n === 0;
  } finally {
    await client.end();
  }
  if (empty) await migrateToLatest(databaseUrl);
}
