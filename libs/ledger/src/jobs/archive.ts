import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { parse } from 'csv-parse';
import { money, type MoneyValue } from '@relay/shared';
import type { MoneyTable } from './partitions';

/**
 * The files of an archived month (docs/ledger.md, "Archive layout"): per money table a gzip of
 * the partition's rows as CSV with a header (PostgreSQL's own COPY format, streamed: constant
 * memory), and a manifest with counts, sums per casino and currency, each file's sha256 and the
 * previous month's manifest hash.
 */

export interface TableFacts {
  rows: number;
  /** transactions: {provider_id, currency, category, amount}; rounds: {provider_id, currency, bet_amount, payout_amount}. */
  sums: Record<string, string>[];
}

export interface ManifestTable extends TableFacts {
  file: string;
  sha256: string;
}

export interface Manifest {
  format: 1;
  month: string; // YYYY-MM
  created_at: string;
  previous_manifest_sha256: string | null;
  tables: Record<MoneyTable, ManifestTable>;
}

export interface TableSpec {
  table: MoneyTable;
  key: string;
  order: string;
  /** The grouping columns and the summed amounts of the manifest. */
  groups: string[];
  amounts: string[];
}

export const TABLE_SPECS: TableSpec[] = [
  { table: 'transactions', key: 'created_at', order: 'id', groups: ['provider_id', 'currency', 'category'], amounts: ['amount'] },
  { table: 'transaction_attempts', key: 'transaction_created_at', order: 'transaction_pk, attempt', groups: [], amounts: [] },
  { table: 'rounds', key: 'created_at', order: 'id', groups: ['provider_id', 'currency'], amounts: ['bet_amount', 'payout_amount'] },
];

export const monthLabel = (month: string) => month.slice(0, 7); // '2026-09-01' -> '2026-09'
export const partitionName = (table: string, month: string) => `${table}_p${month.slice(0, 4)}_${month.slice(5, 7)}`;
export const fileName = (table: string) => `${table}.csv.gz`;
export const MANIFEST = 'manifest.json';

export function monthRange(month: string): { lo: string; hi: string } {
  const [y, m] = month.split('-').map(Number);
  const next = new Date(Date.UTC(y, m, 1));
  return { lo: `${month.slice(0, 7)}-01T00:00:00Z`, hi: next.toISOString() };
}

/** Rows of one month of one table, read through the parent (pruned to the one partition). */
function monthRows(spec: TableSpec, month: string, alias: string = spec.table): { sql: string } {
  const { lo, hi } = monthRange(month);
  // lo and hi are built here from a YYYY-MM-DD month, never from a caller's text.
  return { sql: `${spec.table} ${alias} WHERE ${alias}.${spec.key} >= '${lo}' AND ${alias}.${spec.key} < '${hi}'` };
}

/** Counts and sums of one month of one table, in SQL (the side the file is compared with). */
export async function sqlFacts(client: pg.ClientBase, spec: TableSpec, month: string): Promise<TableFacts> {
  const from = monthRows(spec, month).sql;
  const { rows } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${from}`);
  let sums: Record<string, string>[] = [];
  if (spec.groups.length) {
    const amounts = spec.amounts.map((a) => `coalesce(sum(${a}), 0)::numeric(30,2)::text AS ${a}`).join(', ');
    const groups = spec.groups.join(', ');
    const result = await client.query(`SELECT ${groups}, ${amounts} FROM ${from} GROUP BY ${groups} ORDER BY ${groups}`);
    sums = result.rows as Record<string, string>[];
  }
  return { rows: Number(rows[0].n), sums };
}

/**
 * A fingerprint of the month's rows as they are now: count and a sum of 60-bit row hashes. Taken
 * in the export's snapshot and again under the lock before the drop: any row inserted, deleted
 * or changed in between changes it.
 */
export async function rowDigest(client: pg.ClientBase, spec: TableSpec, month: string): Promise<string> {
  const from = monthRows(spec, month, 'r').sql;
  const { rows } = await client.query<{ d: string }>(
    `SELECT count(*)::text || ':' || coalesce(sum(('x' || substr(md5(r::text), 1, 15))::bit(60)::bigint), 0)::text AS d FROM ${from}`,
  );
  return rows[0].d;
}

/** Writes a file under a temporary name, fsyncs it, then renames it into place (a crash leaves the old file or the new one, never half). */
export async function writeDurably(file: string, write: (tmp: string) => Promise<void>): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await write(tmp);
  const handle = await fs.open(tmp, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
  const dir = await fs.open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export const sha256Text = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Writes a month's manifest durably in dir, chained to the last archived month before it (its
 * manifest's sha256), and returns its text (the caller records it and its sha256 with the month).
 */
export async function writeChainedManifest(client: pg.ClientBase, dir: string, month: string, label: string, tables: Manifest['tables']): Promise<string> {
  const previous = await client.query<{ manifest_sha256: string }>(
    `SELECT manifest_sha256 FROM ledger_archives WHERE state = 'archived' AND month < $1 ORDER BY month DESC LIMIT 1`,
    [month],
  );
  const manifest: Manifest = {
    format: 1,
    month: label,
    created_at: new Date().toISOString(),
    previous_manifest_sha256: previous.rows[0]?.manifest_sha256 ?? null,
    tables,
  };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  await writeDurably(path.join(dir, MANIFEST), (tmp) => fs.writeFile(tmp, text));
  return text;
}

/** COPY of one month of one table into a gzip file (streamed, constant memory). */
export async function exportTable(client: pg.ClientBase, spec: TableSpec, month: string, file: string): Promise<void> {
  const from = monthRows(spec, month).sql;
  await writeDurably(file, async (tmp) => {
    const copy = client.query(copyTo(`COPY (SELECT * FROM ${from} ORDER BY ${spec.order}) TO STDOUT WITH (FORMAT csv, HEADER true)`));
    await pipeline(copy, createGzip(), createWriteStream(tmp));
  });
}

/** Recomputes count and sums from a file's own contents (gunzip + CSV parse, streamed). */
export async function fileFacts(spec: TableSpec, file: string): Promise<TableFacts> {
  let rows = 0;
  const totals = new Map<string, { group: Record<string, string>; sums: MoneyValue[] }>();
  const parser = parse({ columns: true });
  const count = new Transform({
    objectMode: true,
    transform(record: Record<string, string>, _enc, done) {
      rows += 1;
      if (spec.groups.length) {
        const group = Object.fromEntries(spec.groups.map((g) => [g, record[g]]));
        const key = JSON.stringify(spec.groups.map((g) => record[g]));
        let entry = totals.get(key);
        if (!entry) totals.set(key, (entry = { group, sums: spec.amounts.map(() => money(0)) }));
        spec.amounts.forEach((a, i) => {
          if (record[a] !== '') entry.sums[i] = entry.sums[i].plus(money(record[a]));
        });
      }
      done();
    },
  });
  await pipeline(createReadStream(file), createGunzip(), parser, count);
  const sums = [...totals.values()]
    .map(({ group, sums: s }) => ({ ...group, ...Object.fromEntries(spec.amounts.map((a, i) => [a, s[i].toFixed(2)])) }))
    .sort((x, y) => compareGroups(spec, x, y));
  return { rows, sums };
}

/** The same order as SQL's ORDER BY of the group columns (C collation of plain ASCII ids). */
function compareGroups(spec: TableSpec, x: Record<string, string>, y: Record<string, string>): number {
  for (const g of spec.groups) {
    if (x[g] !== y[g]) return x[g] < y[g] ? -1 : 1;
  }
  return 0;
}

/** Differences between two sets of facts, in words (empty: equal). */
export function compareFacts(label: string, expected: TableFacts, actual: TableFacts): string[] {
  const problems: string[] = [];
  if (expected.rows !== actual.rows) problems.push(`${label}: ${actual.rows} rows, expected ${expected.rows}`);
  const key = (s: Record<string, string>) => JSON.stringify(Object.entries(s).sort(([a], [b]) => (a < b ? -1 : 1)));
  const want = new Set(expected.sums.map(key));
  const got = new Set(actual.sums.map(key));
  for (const s of want) if (!got.has(s)) problems.push(`${label}: sums ${s} missing or different`);
  for (const s of got) if (!want.has(s)) problems.push(`${label}: unexpected sums ${s}`);
  return problems;
}

/** Verifies one month's files in `dir` against its manifest: each sha256, each count and each sum. */
export async function verifyFiles(dir: string, manifest: Manifest): Promise<string[]> {
  const problems: string[] = [];
  for (const spec of TABLE_SPECS) {
    const entry = manifest.tables[spec.table];
    const file = path.join(dir, entry.file);
    const exists = await fs.stat(file).then(() => true, () => false);
    if (!exists) {
      problems.push(`${manifest.month} ${spec.table}: file ${entry.file} is missing`);
      continue;
    }
    const sha = await sha256File(file);
    if (sha !== entry.sha256) {
      problems.push(`${manifest.month} ${spec.table}: sha256 ${sha} differs from the manifest's ${entry.sha256}`);
      continue;
    }
    problems.push(...compareFacts(`${manifest.month} ${spec.table}`, entry, await fileFacts(spec, file)));
  }
  return problems;
}

/** Loads one table's file into `target` (a table or partition), with the columns its header names. */
export async function loadTable(client: pg.ClientBase, file: string, target: string): Promise<void> {
  const header = await readHeader(file);
  const columns = header.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ');
  const copy = client.query(copyFrom(`COPY ${target} (${columns}) FROM STDIN WITH (FORMAT csv, HEADER true)`));
  await pipeline(createReadStream(file), createGunzip(), copy);
}

async function readHeader(file: string): Promise<string[]> {
  const parser = createReadStream(file).pipe(createGunzip()).pipe(parse({ to_line: 1 }));
  for await (const record of parser) return record as string[];
  return [];
}
