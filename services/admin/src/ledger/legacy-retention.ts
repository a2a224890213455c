import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import type pg from 'pg';
import { compareFacts, fileFacts, fileName, MANIFEST, monthLabel, monthRange, sha256File, sha256Text, writeChainedManifest, writeDurably, type ManifestTable } from './archive';
import { replaceMonthRollups } from './archived-rollups';
import { drain, headerLine, partName, spec, type Kind, type LegacyProgress } from './legacy-chunks';
import { MONEY_TABLES, type MoneyTable } from './partitions';
import type { RetentionOptions } from './retention';

export type { LegacyProgress } from './legacy-chunks';

/**
 * Retention of the months inside the legacy partition a live migration left (docs/ledger.md,
 * "Months in the legacy partition"). Such a month has no partition of its own to drop, so its rows
 * leave in verified chunks of at most `legacyBatch` rows (legacy-chunks.ts), each chunk's file
 * written, checked and published in the transaction that deletes its rows.
 * When the month holds no row, its files are assembled from the recorded chunk files (gzip members,
 * one header), checked against the recorded facts, and the month gets its manifest in the chain
 * like any other: state `archived`, in the transaction that replaces the month's daily rollups by
 * the sum of what its chunks removed (archived-rollups.ts). Once every month of the legacy partition is archived and its
 * range is past the retention, the legacy partitions are dropped.
 */

interface Legacy {
  /** The legacy partition of each parent that still has one. */
  partitions: Partial<Record<MoneyTable, string>>;
  /** Upper bound of the partitions' range (first instant of a month, UTC), as a date. */
  boundMonth: string;
}

const LOCK_NOT_AVAILABLE = '55P03';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The old tables attached as [MINVALUE, bound) partitions by a live migration (011), if any are left. */
export async function legacyPartitions(client: pg.ClientBase): Promise<Legacy | null> {
  const { rows } = await client.query<{ parent: MoneyTable; partition: string; bound_month: string }>(
    `SELECT p.relname AS parent, c.relname AS partition,
            to_char(((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)$'))[1]::timestamptz AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS bound_month
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname = ANY($1) AND pg_get_expr(c.relpartbound, c.oid) LIKE 'FOR VALUES FROM (MINVALUE)%'`,
    [MONEY_TABLES],
  );
  if (!rows.length) return null;
  return { partitions: Object.fromEntries(rows.map((r) => [r.parent, r.partition])), boundMonth: rows[0].bound_month };
}

const nextMonth = (month: string) => monthRange(month).hi.slice(0, 10);

/** Months of the legacy partition older than the retention that still have rows and are not archived. */
export async function dueLegacyMonths(client: pg.ClientBase, retentionMonths: number): Promise<string[]> {
  const legacy = await legacyPartitions(client);
  if (!legacy) return [];
  const { transactions, rounds, transaction_attempts: attempts } = legacy.partitions;
  const first = async (table: string | undefined, key: string) =>
    table
      ? (await client.query<{ m: string | null }>(`SELECT to_char(date_trunc('month', min(${key}) AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS m FROM "${table}"`)).rows[0].m
      : null;
  // Through the indexes on created_at; the attempts (a scan: BRIN does not give a min) only when nothing else is left.
  const firsts = [await first(transactions, 'created_at'), await first(rounds, 'created_at')].filter((m): m is string => m !== null);
  if (!firsts.length) {
    const orphans = await first(attempts, 'transaction_created_at');
    if (orphans) firsts.push(orphans);
  }
  if (!firsts.length) return [];
  const cutoff = (
    await client.query<{ m: string }>(`SELECT to_char(date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => $1), 'YYYY-MM-DD') AS m`, [retentionMonths])
  ).rows[0].m;
  const due: string[] = [];
  for (let month = firsts.sort()[0]; month < cutoff && month < legacy.boundMonth; month = nextMonth(month)) {
    const archived = await client.query(`SELECT 1 FROM ledger_archives WHERE month = $1 AND state = 'archived'`, [month]);
    if (!archived.rows.length && (await monthHasRows(client, month, legacy))) due.push(month);
  }
  return due;
}

async function monthHasRows(client: pg.ClientBase, month: string, legacy: Legacy, withAttempts = false): Promise<boolean> {
  const { lo, hi } = monthRange(month);
  for (const table of withAttempts ? MONEY_TABLES : (['transactions', 'rounds'] as const)) {
    const partition = legacy.partitions[table];
    if (!partition) continue;
    const key = spec(table).key;
    const { rows } = await client.query(`SELECT 1 FROM "${partition}" WHERE ${key} >= $1 AND ${key} < $2 LIMIT 1`, [lo, hi]);
    if (rows.length) return true;
  }
  return false;
}

/**
 * The legacy attempts have no index on transaction_created_at (their primary key leads with
 * transaction_pk): a month's attempts left without their transaction would be found by reading the
 * whole table, for every month. A BRIN index (attempts were appended in time order: a few pages
 * per block range) is built once, CONCURRENTLY (writes go on); one a crash left INVALID is rebuilt.
 */
async function ensureAttemptsIndex(client: pg.ClientBase, legacy: Legacy): Promise<void> {
  const table = legacy.partitions.transaction_attempts;
  if (!table) return;
  const name = `${table}_created_brin`.slice(0, 63);
  const { rows } = await client.query<{ valid: boolean }>(
    `SELECT x.indisvalid AS valid FROM pg_class i JOIN pg_index x ON x.indexrelid = i.oid WHERE i.relname = $1`,
    [name],
  );
  if (rows[0]?.valid) return;
  if (rows[0]) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
  await client.query(`CREATE INDEX CONCURRENTLY "${name}" ON "${table}" USING brin (transaction_created_at)`);
}

/** True when the month is (or was being) archived through the legacy path rather than by dropping its partitions. */
export async function isLegacyMonth(client: pg.ClientBase, month: string): Promise<boolean> {
  const state = await client.query<{ state: string }>(`SELECT state FROM ledger_archives WHERE month = $1`, [month]);
  if (state.rows[0]?.state === 'removing') return true;
  const own = await client.query(`SELECT 1 FROM ledger_partitions WHERE month = $1::date`, [month]);
  if (own.rows.length) return false;
  const { lo, hi } = monthRange(month);
  const covered = await client.query<{ c: boolean }>(`SELECT ledger_partition_covers('transactions', $1, $2) AS c`, [lo, hi]);
  return covered.rows[0].c;
}

/** Archives one month of the legacy partition (see the header); safe to interrupt anywhere. */
export async function archiveLegacyMonth(client: pg.Client, month: string, options: RetentionOptions): Promise<void> {
  const label = monthLabel(month);
  const empty: LegacyProgress = {
    parts: { transactions: [], transaction_attempts: [], rounds: [] },
    facts: { transactions: { rows: 0, sums: [] }, transaction_attempts: { rows: 0, sums: [] }, rounds: { rows: 0, sums: [] } },
    chunks: 0,
    rollups: true,
  };
  await client.query(`INSERT INTO ledger_archives (month, state, progress) VALUES ($1, 'removing', $2) ON CONFLICT (month) DO NOTHING`, [month, empty]);
  const registered = await client.query<{ state: string; progress: LegacyProgress | null }>(`SELECT state, progress FROM ledger_archives WHERE month = $1`, [month]);
  if (registered.rows[0].state === 'archived') return;
  if (registered.rows[0].state !== 'removing') throw new Error(`${label} is ${registered.rows[0].state}: not a month of the legacy partition`);
  const progress = registered.rows[0].progress ?? empty;
  // A month registered before 018 whose chunks have not started yet can still count them all.
  if (progress.chunks === 0) progress.rollups = true;
  const legacy = await legacyPartitions(client);
  if (legacy) await ensureAttemptsIndex(client, legacy);
  await options.step?.('legacy-registered', label);

  // ON COMMIT DELETE ROWS: each chunk's keys live for its transaction only.
  await client.query(`CREATE TEMP TABLE IF NOT EXISTS ledger_chunk (id uuid NOT NULL, created_at timestamptz NOT NULL) ON COMMIT DELETE ROWS`);
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS ledger_attempt_chunk (transaction_pk uuid NOT NULL, attempt integer NOT NULL, transaction_created_at timestamptz NOT NULL) ON COMMIT DELETE ROWS`,
  );
  const headers = {} as Record<MoneyTable, string>;
  for (const table of MONEY_TABLES) headers[table] = await headerLine(client, table);

  // Transactions first, each with its attempts: once a transaction is gone no attempt of it can be written.
  for (const kind of ['transactions', 'rounds', 'orphan attempts'] as Kind[]) await drain(client, kind, month, progress, headers, options);
  await assemble(client, month, progress, headers, options);
  options.logger.info({ month: label, rows: Object.fromEntries(MONEY_TABLES.map((t) => [t, progress.facts[t].rows])) }, 'ledger legacy month archived');
}

/**
 * The month holds no row any more: each table's file is its header and its committed chunk files,
 * byte for byte (gzip members in a row are one gzip stream), checked against the facts the chunks
 * recorded; then the manifest, chained to the previous archived month, and state `archived`.
 */
async function assemble(client: pg.Client, month: string, progress: LegacyProgress, headers: Record<MoneyTable, string>, options: RetentionOptions): Promise<void> {
  const label = monthLabel(month);
  const dir = path.join(options.store.dir, label);
  const legacy = await legacyPartitions(client);
  if (legacy && (await monthHasRows(client, month, legacy, true))) throw new Error(`${label}: rows are left in the legacy partition after the chunks; the next run goes on`);
  const tables = {} as Record<MoneyTable, ManifestTable>;
  for (const table of MONEY_TABLES) {
    const file = path.join(dir, fileName(table));
    await writeDurably(file, async (tmp) => {
      await fs.writeFile(tmp, gzipSync(headers[table]));
      for (const seq of progress.parts[table]) {
        // With a bucket the local directory is a staging area: a chunk file it lost is downloaded.
        if (!(await options.store.fetch(label, partName(table, seq)))) throw new Error(`${label}: chunk file ${partName(table, seq)} is missing`);
        await pipeline(createReadStream(path.join(dir, partName(table, seq))), createWriteStream(tmp, { flags: 'a' }));
      }
    });
    const facts = await fileFacts(spec(table), file);
    const problems = compareFacts(`${label} ${table}`, progress.facts[table], facts);
    if (problems.length) throw new Error(`archive file does not match the rows removed: ${problems.join('; ')}`);
    tables[table] = { file: fileName(table), sha256: await sha256File(file), ...facts };
  }
  await options.step?.('legacy-files-assembled', label);

  const text = await writeChainedManifest(client, dir, month, label, tables);
  await options.step?.('legacy-manifest-written', label);
  await options.store.publish(label, [...MONEY_TABLES.map((t) => fileName(t)), MANIFEST]);
  await client.query('BEGIN');
  try {
    // The month's rollups become exactly the rows as they left, as the month becomes archived (one commit).
    if (progress.rollups) await replaceMonthRollups(client, month, 'removed');
    await options.step?.('legacy-rollups-replaced', label);
    await client.query(
      `UPDATE ledger_archives SET state = 'archived', manifest = $2::json, manifest_sha256 = $3, exported_at = now(), archived_at = now(), updated_at = now()
        WHERE month = $1 AND state = 'removing'`,
      [month, text, sha256Text(text)],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  if (!progress.rollups) options.logger.warn({ month: label }, 'ledger legacy month began leaving before its rollups were kept: its rollups stay as they were counted');
  await options.step?.('legacy-archived', label);
  await fs.rm(path.join(dir, 'parts'), { recursive: true, force: true });
}

/** The chunk files of archived legacy months are in their months' files now (a bucket keeps its copies under parts/): a run killed before removing them left them behind. */
export async function removeLegacyChunkFiles(client: pg.ClientBase, dir: string): Promise<void> {
  const { rows } = await client.query<{ month: string }>(`SELECT to_char(month, 'YYYY-MM') AS month FROM ledger_archives WHERE state = 'archived' AND progress IS NOT NULL`);
  for (const { month } of rows) await fs.rm(path.join(dir, month, 'parts'), { recursive: true, force: true });
}

/**
 * Drops the legacy partitions once they can hold nothing more: every row archived and the whole
 * range, up to its bound, older than the retention. VACUUM first (no lock a money call meets)
 * leaves the emptied tables a few pages, so the check under the lock reads next to nothing; the
 * DROP then waits for the parents' lock as briefly as a month's drop does.
 */
export async function dropLegacyWhenEmpty(client: pg.Client, retentionMonths: number, options: RetentionOptions): Promise<boolean> {
  const legacy = await legacyPartitions(client);
  if (!legacy) return false;
  const past = await client.query<{ past: boolean }>(
    `SELECT $1::date <= (date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => $2))::date AS past`,
    [legacy.boundMonth, retentionMonths],
  );
  if (!past.rows[0].past || (await dueLegacyMonths(client, retentionMonths)).length) return false;
  const names = Object.values(legacy.partitions).map((p) => `"${p}"`);
  for (const name of names) await client.query(`VACUUM ${name}`);
  for (let attempt = 1; ; attempt += 1) {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = '${options.lockTimeoutMs ?? 5000}ms'`);
      await client.query(`LOCK TABLE ${names.join(', ')} IN SHARE MODE`);
      for (const name of names) {
        if ((await client.query(`SELECT 1 FROM ${name} LIMIT 1`)).rows.length) {
          await client.query('ROLLBACK');
          options.logger.warn({ partition: name }, 'ledger legacy partition still holds rows outside the archived months: not dropped');
          return false;
        }
      }
      await options.step?.('legacy-drop-locked', 'legacy');
      await client.query(`SET LOCAL lock_timeout = '${options.parentLockTimeoutMs ?? 500}ms'`);
      await client.query(`DROP TABLE ${names.join(', ')}`);
      await client.query('COMMIT');
      options.logger.info({ partitions: names }, 'ledger legacy partitions dropped');
      return true;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= 5) throw err;
      await sleep(1000);
    }
  }
}
