import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { addFacts, compareFacts, fileFacts, monthLabel, monthRange, sqlFactsFrom, TABLE_SPECS, writeDurably, type TableFacts } from './archive';
import { addRemovedRollups } from './archived-rollups';
import type { MoneyTable } from './partitions';
import type { RetentionOptions } from './retention';

/**
 * The rows of a legacy month leave in chunks (docs/ledger.md, "Months in the legacy partition"),
 * each in ONE transaction: lock the chunk's rows and the attempts of its transactions, skipping
 * (SKIP LOCKED) any row a money call holds (its transaction is left out of the chunk, for a later
 * walk over the month: the job never waits for a money call, so the two can never deadlock), COPY
 * them to a chunk file (gzip, fsync, rename), read the file back and compare its count and sums with
 * SQL's, publish it, give the keys still inside the idempotency window their record's last state,
 * add what the rows contribute to the daily rollups (archived-rollups.ts: the month's rollups are
 * replaced by their sum when it is archived), delete the rows (every one the file holds, no other),
 * and record the chunk and its facts in ledger_archives.progress.
 * A crash before the commit leaves the rows in the database and a file nobody recorded (written
 * again later); after it, the rows are gone and in a recorded file: never both, never neither.
 */

export interface LegacyProgress {
  /** Sequence numbers of the committed chunk files, per table. */
  parts: Record<MoneyTable, number[]>;
  /** Counts and sums of the rows removed so far (SQL's, each equal to its chunk file's). */
  facts: Record<MoneyTable, TableFacts>;
  /** The last sequence number used by a committed chunk. */
  chunks: number;
  /**
   * True when every committed chunk added its rows' removed rollups (migration 018), so the
   * month's rollups are replaced by them once it is archived. A month whose first chunks left
   * before 018 lacks it: it keeps the rollups it had.
   */
  rollups?: boolean;
}

export type Kind = 'transactions' | 'rounds' | 'orphan attempts';
type Cursor = { createdAt: string; id: string } | null;
/** Rows moved, rows passed over (a money call held them), and where the walk goes on; or a lock timed out (nothing done). */
type ChunkResult = { moved: number; skipped: number; cursor: Cursor } | 'locked';

const LOCK_NOT_AVAILABLE = '55P03';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const spec = (table: MoneyTable) => TABLE_SPECS.find((s) => s.table === table)!;
export const partName = (table: string, seq: number) => `parts/${table}.${String(seq).padStart(6, '0')}.csv.gz`;

/** Moves every row of the month of one kind, chunk by chunk; rows a money call holds are taken on a later pass. */
export async function drain(client: pg.Client, kind: Kind, month: string, progress: LegacyProgress, headers: Record<MoneyTable, string>, options: RetentionOptions): Promise<void> {
  let waits = 0;
  for (;;) {
    // One walk over the month, newest first; rows held by money calls are passed over.
    let moved = 0;
    let cursor: Cursor = null;
    for (;;) {
      const result = await moveChunk(client, kind, month, cursor, progress, headers, options);
      if (result === 'locked') break;
      moved += result.moved;
      if (result.moved + result.skipped === 0) break;
      cursor = result.cursor;
    }
    if (!(await kindHasRows(client, kind, month))) return;
    if (moved > 0) continue;
    // Everything left is held by money calls: they finish in milliseconds, so wait a little.
    if ((waits += 1) > 20) throw new Error(`${monthLabel(month)}: rows of ${kind} stay locked by other sessions; the next run goes on`);
    await sleep(250);
  }
}

async function kindHasRows(client: pg.ClientBase, kind: Kind, month: string): Promise<boolean> {
  const table: MoneyTable = kind === 'orphan attempts' ? 'transaction_attempts' : kind;
  const { lo, hi } = monthRange(month);
  const key = spec(table).key;
  const { rows } = await client.query(`SELECT 1 FROM ${table} WHERE ${key} >= $1 AND ${key} < $2 LIMIT 1`, [lo, hi]);
  return rows.length > 0;
}

/** One chunk, in one transaction (see the header). */
async function moveChunk(
  client: pg.Client,
  kind: Kind,
  month: string,
  cursor: Cursor,
  progress: LegacyProgress,
  headers: Record<MoneyTable, string>,
  options: RetentionOptions,
): Promise<ChunkResult> {
  const label = monthLabel(month);
  const { lo, hi } = monthRange(month);
  const limit = options.legacyBatch ?? 5000;
  // lo and hi come from monthRange (a YYYY-MM-DD month), never from a caller's text.
  const inMonth = (alias: string, key: string) => `${alias}.${key} >= '${lo}' AND ${alias}.${key} < '${hi}'`;
  // Per table: the chunk's rows, as a FROM clause (alias x), and the same rows for a DELETE.
  const join: Record<MoneyTable, { chunk: string; on: string; key: string }> = {
    transactions: { chunk: 'ledger_chunk', on: 'x.id = c.id AND x.created_at = c.created_at', key: 'created_at' },
    rounds: { chunk: 'ledger_chunk', on: 'x.id = c.id AND x.created_at = c.created_at', key: 'created_at' },
    transaction_attempts:
      kind === 'orphan attempts'
        ? {
            chunk: 'ledger_attempt_chunk',
            on: 'x.transaction_pk = c.transaction_pk AND x.attempt = c.attempt AND x.transaction_created_at = c.transaction_created_at',
            key: 'transaction_created_at',
          }
        : { chunk: 'ledger_chunk', on: 'x.transaction_pk = c.id AND x.transaction_created_at = c.created_at', key: 'transaction_created_at' },
  };
  const chunkOf = (table: MoneyTable) => `${table} x JOIN ${join[table].chunk} c ON ${join[table].on} WHERE ${inMonth('x', join[table].key)}`;
  const deleteSql = (table: MoneyTable) => `DELETE FROM ${table} x USING ${join[table].chunk} c WHERE ${join[table].on} AND ${inMonth('x', join[table].key)}`;
  const tables: MoneyTable[] = kind === 'transactions' ? ['transactions', 'transaction_attempts'] : kind === 'rounds' ? ['rounds'] : ['transaction_attempts'];

  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL lock_timeout = '${options.lockTimeoutMs ?? 5000}ms'`);
    let selected: number;
    if (kind === 'orphan attempts') {
      // Attempts whose transaction is not in the month (none, unless written by hand), through the BRIN index.
      selected = (
        await client.query(
          `INSERT INTO ledger_attempt_chunk SELECT transaction_pk, attempt, transaction_created_at FROM transaction_attempts x
            WHERE ${inMonth('x', 'transaction_created_at')} LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [limit],
        )
      ).rowCount ?? 0;
    } else {
      // Newest first along the (created_at DESC, id) index, from where the previous chunk stopped.
      const after = cursor ? `AND x.created_at <= $2::timestamptz AND (x.created_at < $2::timestamptz OR x.id > $3::uuid)` : '';
      selected = (
        await client.query(
          `INSERT INTO ledger_chunk SELECT id, created_at FROM ${kind} x WHERE ${inMonth('x', 'created_at')} ${after}
            ORDER BY x.created_at DESC, x.id LIMIT $1 FOR UPDATE SKIP LOCKED`,
          cursor ? [limit, cursor.createdAt, cursor.id] : [limit],
        )
      ).rowCount ?? 0;
    }
    if (!selected) {
      await client.query('ROLLBACK');
      return { moved: 0, skipped: 0, cursor };
    }
    await client.query(kind === 'orphan attempts' ? 'ANALYZE ledger_attempt_chunk' : 'ANALYZE ledger_chunk');
    // Where the walk goes on: the chunk's last row in walk order (taken before any is left out).
    const last = kind === 'orphan attempts' ? null : (
      await client.query<{ created_at: string; id: string }>(`SELECT created_at::text AS created_at, id::text AS id FROM ledger_chunk ORDER BY created_at, id DESC LIMIT 1`)
    ).rows[0];
    const next: Cursor = last ? { createdAt: last.created_at, id: last.id } : null;
    let skipped = 0;
    if (kind === 'transactions') {
      // A transaction with an attempt a money call holds (finishing it) stays for a later walk.
      await client.query(`INSERT INTO ledger_attempt_chunk SELECT x.transaction_pk, x.attempt, x.transaction_created_at FROM ${chunkOf('transaction_attempts')} FOR UPDATE OF x SKIP LOCKED`);
      skipped = (
        await client.query(
          `DELETE FROM ledger_chunk c WHERE EXISTS (
             SELECT 1 FROM transaction_attempts a
              WHERE a.transaction_pk = c.id AND a.transaction_created_at = c.created_at AND ${inMonth('a', 'transaction_created_at')}
                AND NOT EXISTS (SELECT 1 FROM ledger_attempt_chunk l
                                 WHERE l.transaction_pk = a.transaction_pk AND l.attempt = a.attempt AND l.transaction_created_at = a.transaction_created_at))`,
        )
      ).rowCount ?? 0;
      if (skipped === selected) {
        await client.query('ROLLBACK');
        return { moved: 0, skipped, cursor: next };
      }
    }

    const seq = progress.chunks + 1;
    const facts = {} as Record<MoneyTable, TableFacts>;
    for (const table of tables) {
      const order = table === 'transaction_attempts' ? 'x.transaction_pk, x.attempt' : 'x.created_at DESC, x.id';
      const file = path.join(options.store.dir, label, partName(table, seq));
      await writeDurably(file, async (tmp) => {
        const copy = client.query(copyTo(`COPY (SELECT x.* FROM ${chunkOf(table)} ORDER BY ${order}) TO STDOUT WITH (FORMAT csv)`));
        await pipeline(copy, createGzip(), createWriteStream(tmp));
      });
      facts[table] = await sqlFactsFrom(client, spec(table), chunkOf(table));
      const problems = compareFacts(`${label} ${table} chunk ${seq}`, facts[table], await fileFacts(spec(table), file, headers[table].trim().split(',')));
      if (problems.length) throw new Error(`chunk file does not match the database: ${problems.join('; ')}`);
    }
    await options.store.publish(label, tables.map((t) => partName(t, seq)));
    await options.step?.('legacy-chunk-written', label);

    if (kind === 'transactions') {
      await client.query(
        `UPDATE transaction_keys k
            SET archived = jsonb_build_object('status', x.status, 'category', x.category, 'group_id', x.group_id, 'game_id', x.game_id,
                                              'player_id', x.player_id, 'balance', x.balance, 'username', x.username,
                                              'attempt', x.attempt, 'claimed_at', x.claimed_at)
           FROM ${chunkOf('transactions')}
            AND k.provider_id = x.provider_id AND k.transaction_id = x.transaction_id AND k.id = x.id AND k.created_at = x.created_at
            AND k.created_at >= now() - make_interval(days => $1)`,
        [options.idempotencyDays],
      );
      await client.query(
        `DELETE FROM transaction_keys k USING ${chunkOf('transactions')}
            AND k.provider_id = x.provider_id AND k.transaction_id = x.transaction_id AND k.id = x.id AND k.created_at = x.created_at
            AND k.created_at < now() - make_interval(days => $1)`,
        [options.idempotencyDays],
      );
    } else if (kind === 'rounds') {
      await client.query(
        `DELETE FROM round_keys k USING ${chunkOf('rounds')}
            AND k.provider_id = x.provider_id AND k.round_id = x.round_id AND k.id = x.id AND k.created_at = x.created_at
            AND k.created_at < now() - make_interval(days => $1)`,
        [options.idempotencyDays],
      );
    }
    // From the same locked rows the file holds, in the transaction that deletes them: never twice, never lost.
    if (progress.rollups && kind !== 'orphan attempts') await addRemovedRollups(client, { [kind]: chunkOf(kind) });
    // Attempts before their transactions; every row deleted is one the chunk file holds.
    for (const table of [...tables].reverse()) {
      const deleted = (await client.query(deleteSql(table))).rowCount ?? 0;
      if (deleted !== facts[table].rows) throw new Error(`${label} ${table} chunk ${seq}: deleted ${deleted} rows, the file holds ${facts[table].rows}`);
    }
    for (const table of tables) {
      progress.parts[table] = [...progress.parts[table], seq];
      progress.facts[table] = addFacts(spec(table), progress.facts[table], facts[table]);
    }
    progress.chunks = seq;
    await client.query(`UPDATE ledger_archives SET progress = $2, updated_at = now() WHERE month = $1 AND state = 'removing'`, [month, progress]);
    await options.step?.('legacy-chunk-removed', label);
    await client.query('COMMIT');
    await options.step?.('legacy-chunk-committed', label);
    return { moved: selected - skipped, skipped, cursor: next };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    // The progress object may have been advanced for a chunk that did not commit: read it back.
    const saved = await client.query<{ progress: LegacyProgress }>(`SELECT progress FROM ledger_archives WHERE month = $1`, [month]).catch(() => null);
    if (saved?.rows[0]?.progress) Object.assign(progress, saved.rows[0].progress);
    if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return 'locked';
    throw err;
  }
}

/** The CSV header row of a money table, as COPY writes it (the chunk files have none). */
export async function headerLine(client: pg.Client, table: MoneyTable): Promise<string> {
  const chunks: Buffer[] = [];
  const copy = client.query(copyTo(`COPY (SELECT * FROM ${table} LIMIT 0) TO STDOUT WITH (FORMAT csv, HEADER true)`));
  for await (const chunk of copy) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
