import path from 'node:path';
import type pg from 'pg';
import type { Logger } from 'pino';
import {
  compareFacts,
  exportTable,
  fileFacts,
  fileName,
  MANIFEST,
  monthLabel,
  rowDigest,
  sha256File,
  sha256Text,
  sqlFacts,
  TABLE_SPECS,
  writeChainedManifest,
  monthRange,
  type ManifestTable,
} from './archive';
import type { ArchiveStore } from './store';
import type { MoneyTable } from './partitions';

/**
 * Retention (docs/ledger.md, "Retention and archives"): each whole month older than
 * LEDGER_RETENTION_MONTHS is exported, verified, registered and only then dropped. The steps of a
 * month, each recorded in ledger_archives so that an interrupted run is finished by the next:
 *   1. state `exporting`; COPY each table's month to a gzip file (temp name, fsync, rename), in
 *      one REPEATABLE READ snapshot that also yields the SQL counts, sums and row digests;
 *   2. verify each file against that SQL (sha256, rows and sums recomputed from the file);
 *      write the manifest (chained to the previous archived month's); publish; state `exported`;
 *   3. one transaction: lock the month's partitions (money calls touching that month wait),
 *      compare the row digests again (a change since the export: roll back, export again), copy
 *      each key's last state into transaction_keys.archived (inside the idempotency window),
 *      delete the month's keys already past it, state `archived`, DROP the partitions. The drop
 *      is not replicated: the reporting database keeps its copy until its own retention
 *      (reportingRetention), and its counts of the month for good.
 * A month not `archived` is redone from step 1 on the next run; files are rewritten in place.
 */

export interface RetentionOptions {
  retentionMonths?: number;
  idempotencyDays: number;
  store: ArchiveStore;
  logger: Logger;
  /** Test hook: called at each step; throwing there simulates a crash at that point. */
  step?: (name: RetentionStep, month: string) => void | Promise<void>;
  /** How long the final transaction waits for the month's partitions (only that month's writers queue behind it). */
  lockTimeoutMs?: number;
  /**
   * How long the DROP waits for its short ACCESS EXCLUSIVE lock on the parent tables: every money
   * call queues behind a waiting DROP, so this is the longest a money call can be held up by it.
   * On a time-out the final transaction is retried (up to 5 times, then the next run).
   */
  parentLockTimeoutMs?: number;
  keyBatch?: number;
}

export type RetentionStep =
  | 'registered'
  | 'exported-table'
  | 'manifest-written'
  | 'exported'
  | 'locked'
  | 'keys-copied'
  | 'dropped';

interface Digests {
  [table: string]: string;
}

/** Months due for archiving: partitions older than the retention, and months a previous run left unfinished. */
export async function dueMonths(client: pg.ClientBase, retentionMonths: number): Promise<string[]> {
  const { rows } = await client.query<{ month: string }>(
    `SELECT to_char(month, 'YYYY-MM-DD') AS month FROM (
       SELECT month FROM ledger_partitions
        WHERE month IS NOT NULL
          AND month < (date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => $1))::date
          -- Partitions of a month already archived were made again (a restore into this database):
          -- archiving them again would rewrite a link of the chain; they are left to the operator.
          AND NOT EXISTS (SELECT 1 FROM ledger_archives a WHERE a.month = ledger_partitions.month AND a.state = 'archived')
       UNION
       SELECT month FROM ledger_archives WHERE state <> 'archived'
     ) m ORDER BY month`,
    [retentionMonths],
  );
  return rows.map((r) => r.month);
}

export async function runRetention(
  client: pg.Client,
  options: RetentionOptions,
): Promise<{ archived: string[]; prunedKeys: number }> {
  const archived: string[] = [];
  if (options.retentionMonths !== undefined) {
    const latest = await client.query<{ month: string }>(`SELECT to_char(max(month), 'YYYY-MM-DD') AS month FROM ledger_archives WHERE state = 'archived'`);
    const newest = latest.rows[0].month;
    const due = await dueMonths(client, options.retentionMonths);
    const behind = due.filter((m) => newest && m < newest);
    if (behind.length) {
      // The chain runs in month order: an older month archived now would not fit in it.
      throw new Error(
        `months ${behind.map(monthLabel).join(', ')} have partitions but are older than the latest archived month ${monthLabel(latest.rows[0].month)}: see docs/ledger.md, "Retention and archives"`,
      );
    }
    for (const month of due) {
      // In month order, stopping at the first failure, so the chain never skips a month.
      await archiveMonth(client, month, options);
      archived.push(monthLabel(month));
    }
  }
  const prunedKeys = await pruneKeys(client, options.idempotencyDays, options.keyBatch ?? 10000);
  return { archived, prunedKeys };
}

export async function archiveMonth(client: pg.Client, month: string, options: RetentionOptions): Promise<void> {
  const log = options.logger.child({ month: monthLabel(month) });
  await assertNoDefaultRows(client, month);
  for (let tries = 1; ; tries += 1) {
    const digests = await exportMonth(client, month, options);
    const done = await finishWithRetries(client, month, digests, options);
    if (done) {
      log.info('ledger month archived and dropped');
      return;
    }
    log.warn({ tries }, 'ledger month changed after its export: exporting again');
    if (tries >= 3) throw new Error(`month ${monthLabel(month)} keeps changing; try again later`);
  }
}

const LOCK_NOT_AVAILABLE = '55P03';

/** The final transaction, tried again a few times when a lock was not granted in time (a long query held the table). */
async function finishWithRetries(client: pg.Client, month: string, digests: Digests, options: RetentionOptions): Promise<boolean> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await finishMonth(client, month, digests, options);
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= 5) throw err;
      options.logger.warn({ month: monthLabel(month), attempt }, 'ledger month: a lock was not granted in time, trying again');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Rows of the month in a default partition would not be in its export, and would outlive the drop. */
async function assertNoDefaultRows(client: pg.ClientBase, month: string): Promise<void> {
  const { lo, hi } = monthRange(month);
  for (const spec of TABLE_SPECS) {
    const { rows } = await client.query(`SELECT 1 FROM ${spec.table}_pdefault WHERE ${spec.key} >= $1 AND ${spec.key} < $2 LIMIT 1`, [lo, hi]);
    if (rows.length) throw new Error(`${spec.table} has rows of ${monthLabel(month)} in its default partition: create the month's partition first`);
  }
}

/** Steps 1 and 2: files, verification, manifest, registry `exported`. Returns the row digests of the snapshot. */
async function exportMonth(client: pg.Client, month: string, options: RetentionOptions): Promise<Digests> {
  const label = monthLabel(month);
  const dir = path.join(options.store.dir, label);
  await client.query(
    `INSERT INTO ledger_archives (month, state) VALUES ($1, 'exporting')
     ON CONFLICT (month) DO UPDATE SET state = 'exporting', manifest = NULL, manifest_sha256 = NULL, digests = NULL, exported_at = NULL, updated_at = now()`,
    [month],
  );
  await options.step?.('registered', label);

  const tables = {} as Record<MoneyTable, ManifestTable>;
  const digests: Digests = {};
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    for (const spec of TABLE_SPECS) {
      const file = path.join(dir, fileName(spec.table));
      await exportTable(client, spec, month, file);
      const facts = await sqlFacts(client, spec, month);
      digests[spec.table] = await rowDigest(client, spec, month);
      tables[spec.table] = { file: fileName(spec.table), sha256: '', ...facts };
      await options.step?.('exported-table', label);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }

  // The files must say what the database said, read back from the disk.
  for (const spec of TABLE_SPECS) {
    const entry = tables[spec.table];
    const file = path.join(dir, entry.file);
    entry.sha256 = await sha256File(file);
    const problems = compareFacts(`${label} ${spec.table}`, entry, await fileFacts(spec, file));
    if (problems.length) throw new Error(`archive file does not match the database: ${problems.join('; ')}`);
  }

  const text = await writeChainedManifest(client, dir, month, label, tables);
  await options.step?.('manifest-written', label);
  await options.store.publish(label, [...TABLE_SPECS.map((s) => fileName(s.table)), MANIFEST]);
  await client.query(
    `UPDATE ledger_archives SET state = 'exported', manifest = $2::json, manifest_sha256 = $3, digests = $4::jsonb, exported_at = now(), updated_at = now() WHERE month = $1`,
    [month, text, sha256Text(text), JSON.stringify(digests)],
  );
  await options.step?.('exported', label);
  return digests;
}

/** Step 3, in one transaction. False if the month changed since its export (nothing done). */
async function finishMonth(client: pg.Client, month: string, digests: Digests, options: RetentionOptions): Promise<boolean> {
  const label = monthLabel(month);
  const { lo, hi } = monthRange(month);
  const partitions = await client.query<{ partition: string; parent_table: string }>(
    `SELECT partition, parent_table FROM ledger_partitions WHERE month = $1::date`,
    [month],
  );
  await client.query('BEGIN');
  try {
    // A money call waiting behind this lock waits at most this long; the job retries next run.
    await client.query(`SET LOCAL lock_timeout = '${options.lockTimeoutMs ?? 5000}ms'`);
    const names = partitions.rows.map((p) => `"${p.partition}"`);
    // SHARE: reads go on, writes to this month wait until the drop commits.
    if (names.length) await client.query(`LOCK TABLE ${names.join(', ')} IN SHARE MODE`);
    await options.step?.('locked', label);
    for (const spec of TABLE_SPECS) {
      if ((await rowDigest(client, spec, month)) !== digests[spec.table]) {
        await client.query('ROLLBACK');
        return false;
      }
    }
    // Keys still inside the window keep their record's last state; older ones go with the month.
    await client.query(
      `UPDATE transaction_keys k
          SET archived = jsonb_build_object('status', t.status, 'category', t.category, 'group_id', t.group_id, 'game_id', t.game_id,
                                            'player_id', t.player_id, 'balance', t.balance, 'username', t.username,
                                            'attempt', t.attempt, 'claimed_at', t.claimed_at,
                                            -- A managed casino's takeover checks a credit is the same one (wallet free-round-credit.ts).
                                            'reason', t.reason, 'award_id', t.award_id, 'bet_amount', t.bet_amount)
         FROM transactions t
        WHERE t.created_at >= $1 AND t.created_at < $2
          AND k.provider_id = t.provider_id AND k.transaction_id = t.transaction_id AND k.id = t.id AND k.created_at = t.created_at
          AND k.created_at >= now() - make_interval(days => $3)`,
      [lo, hi, options.idempotencyDays],
    );
    await client.query(
      `DELETE FROM transaction_keys WHERE created_at >= $1 AND created_at < $2 AND created_at < now() - make_interval(days => $3)`,
      [lo, hi, options.idempotencyDays],
    );
    await client.query(`DELETE FROM round_keys WHERE created_at >= $1 AND created_at < $2 AND created_at < now() - make_interval(days => $3)`, [
      lo,
      hi,
      options.idempotencyDays,
    ]);
    await options.step?.('keys-copied', label);
    await client.query(`SELECT 1 FROM ledger_archives WHERE month = $1 FOR UPDATE`, [month]);
    await client.query(`UPDATE ledger_archives SET state = 'archived', archived_at = now(), updated_at = now() WHERE month = $1`, [month]);
    // The parents' lock, held for the DROP and the commit only: a short wait, or retry later.
    await client.query(`SET LOCAL lock_timeout = '${options.parentLockTimeoutMs ?? 500}ms'`);
    if (names.length) await client.query(`DROP TABLE ${names.join(', ')}`);
    await options.step?.('dropped', label);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Keys past the idempotency window (docs/ledger.md: after the window a transactionId is new again), in small batches. */
export async function pruneKeys(client: pg.ClientBase, idempotencyDays: number, batch: number): Promise<number> {
  let total = 0;
  for (const table of ['transaction_keys', 'round_keys']) {
    for (;;) {
      const { rowCount } = await client.query(
        `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE created_at < now() - make_interval(days => $1) LIMIT $2))`,
        [idempotencyDays, batch],
      );
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
    }
  }
  return total;
}
