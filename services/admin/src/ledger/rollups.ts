import type { Knex, Logger, Runtime, RunningServer } from '@relay/shared';
import { backfillPlayerBitmaps, PLAYER_BITMAP_TABLES, playerBitmapCtes } from './player-bitmaps';

/**
 * The daily ledger rollups (migration 009, docs/ledger.md "Exact totals"): a job in the admin
 * service that counts each closed UTC day once, and recounts the days a takeover rewrote.
 *
 * A day D is CLOSED when D has ended and no transaction of this database that started before D's
 * end is still running (nor any prepared transaction). created_at is now(), the start of the
 * inserting transaction, so every row of D was written by a transaction that started before D's
 * end: once none of those runs, every row of D is committed and visible to the next statement,
 * and no later transaction can add one (its now() is past D). Counting a day any earlier could
 * miss a transaction that began before midnight and commits after the count.
 *
 * Readers use a day's rollup only while it is not marked stale, so a takeover's rewrite is never
 * hidden: its day is read live until this job has recounted it. The job runs under a session
 * advisory lock (one replica at a time) and replaces each day's rows in one transaction, so it is
 * idempotent and safe to interrupt anywhere.
 */

const LOCK = 'ledger_rollups';
const DAY_MS = 86_400_000;
/**
 * How long after midnight a day may be closed at the earliest. A backend takes its transaction's
 * start time a few instructions before it shows it in pg_stat_activity; the margin makes a
 * transaction caught between the two (descheduled there) impossible in practice.
 */
export const CLOSE_MARGIN_MS = 60_000;

export interface RollupOptions {
  /** At most this many days counted per run (a fresh database catches up over several runs). */
  maxDays?: number;
  /** How long after midnight a day may close at the earliest (tests shorten it). */
  closeMarginMs?: number;
}

export interface RollupRun {
  /** Days counted for the first time. */
  rolled: string[];
  /** Days counted again: marked by a takeover, or holding rows that were unfinished when counted. */
  recounted: string[];
  /** Why the next day was not counted, if one is due. */
  waiting?: { day: string; reason: string };
  /** Days counted before the player bitmaps existed (migration 020) whose bitmaps were built. */
  bitmapped: string[];
}

/**
 * One run. Returns null when another replica holds the job. The lock is a session lock on a
 * connection of its own, so each day can commit on its own (an interrupted run keeps its days).
 */
export async function runRollups(db: Knex, options: RollupOptions = {}): Promise<RollupRun | null> {
  const maxDays = options.maxDays ?? 31;
  const margin = options.closeMarginMs ?? CLOSE_MARGIN_MS;
   
  const client = db.client as any;
  const conn = await client.acquireConnection();
  const sql = async <T = Record<string, unknown>>(text: string, bindings: readonly unknown[] = []): Promise<T[]> =>
    ((await db.raw(text, bindings as Knex.RawBinding[]).connection(conn)) as { rows: T[] }).rows;
  try {
    const [{ locked }] = await sql<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext(?)) AS locked', [LOCK]);
    if (!locked) return null;
    try {
      const run: RollupRun = { rolled: [], recounted: [], bitmapped: [] };
      for (const day of await daysToRecount(sql, maxDays)) {
        await countDay(sql, day);
        run.recounted.push(day);
      }
      for (let n = 0; n < maxDays; n++) {
        const day = await nextDay(sql);
        if (!day) break;
        const reason = await notClosed(sql, day, margin);
        if (reason) {
          run.waiting = { day, reason };
          break;
        }
        await countDay(sql, day);
        run.rolled.push(day);
      }
      run.bitmapped = await backfillPlayerBitmaps(sql, maxDays);
      return run;
    } finally {
      await sql('SELECT pg_advisory_unlock(hashtext(?))', [LOCK]);
    }
  } finally {
    await client.releaseConnection(conn);
  }
}

type Sql = <T = Record<string, unknown>>(text: string, bindings?: readonly unknown[]) => Promise<T[]>;

/**
 * Counted days to count again: those a takeover marked, and those holding a row that was
 * unfinished when counted and has finished since (so the live part stays small and an archived
 * month keeps its final figures).
 */
async function daysToRecount(sql: Sql, limit: number): Promise<string[]> {
  const rows = await sql<{ day: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM (
       SELECT s.day FROM rollup_stale_days s JOIN ledger_rollup_days d ON d.day = s.day
       UNION
       SELECT u.day FROM ledger_rollup_unfinished u
         JOIN transactions t ON t.id = u.id AND t.created_at = u.created_at
        WHERE u.parent = 'transactions' AND t.status <> 'PENDING'
       UNION
       SELECT u.day FROM ledger_rollup_unfinished u
         JOIN rounds r ON r.id = u.id AND r.created_at = u.created_at
        WHERE u.parent = 'rounds' AND r.status <> 'OPEN'
     ) due
     -- A month whose rows are leaving (legacy retention) or gone keeps the counts it had: a recount
     -- would count only the rows still there (014_ledger_legacy_retention).
     WHERE NOT EXISTS (SELECT 1 FROM ledger_archives a WHERE a.month = date_trunc('month', due.day)::date AND a.state IN ('removing', 'archived'))
     ORDER BY day LIMIT ?`,
    [limit],
  );
  return rows.map((r) => r.day);
}

/** The day after the last one counted, or the first day of the ledger; null if that day has not ended. */
async function nextDay(sql: Sql): Promise<string | null> {
  const [row] = await sql<{ day: string | null }>(
    `SELECT to_char(coalesce(
              (SELECT max(day) + 1 FROM ledger_rollup_days),
              (SELECT (min(m) AT TIME ZONE 'UTC')::date FROM (SELECT min(created_at) AS m FROM transactions
                                                               UNION ALL SELECT min(created_at) FROM rounds) x)),
            'YYYY-MM-DD') AS day`,
  );
  if (!row?.day) return null;
  return Date.parse(`${row.day}T00:00:00Z`) + DAY_MS <= Date.now() ? row.day : null;
}

/**
 * Why day is not closed yet, or null if it is. Judged by the database: its clock, its running
 * transactions of this database (client backends: autovacuum writes no rows) and its prepared
 * transactions (which may have begun before midnight: any of them holds every day back). A
 * backend the job may not see (another role, without pg_read_all_stats) holds it back too: the
 * job cannot know when its transaction started.
 */
export async function notClosed(sql: Sql, day: string, marginMs: number): Promise<string | null> {
  const [row] = await sql<{ early: boolean; running: number; hidden: number; prepared: number }>(
    `WITH bounds AS (SELECT ((?::date + 1)::timestamp AT TIME ZONE 'UTC') AS day_end)
     SELECT clock_timestamp() < day_end + make_interval(secs => ? / 1000.0) AS early,
            (SELECT count(*) FROM pg_stat_activity a
              WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
                AND a.xact_start < day_end)::int AS running,
            (SELECT count(*) FROM pg_stat_activity a
              WHERE a.datname = current_database() AND a.backend_type = 'client backend'
                AND a.query = '<insufficient privilege>')::int AS hidden,
            (SELECT count(*) FROM pg_prepared_xacts p WHERE p.database = current_database())::int AS prepared
       FROM bounds`,
    [day, marginMs],
  );
  if (row.early) return 'the day has not ended (with its margin)';
  if (row.running > 0) return `${row.running} transaction(s) that started before the day ended are still running`;
  if (row.prepared > 0) return `${row.prepared} prepared transaction(s) are pending`;
  if (row.hidden > 0) return `${row.hidden} session(s) of another role are hidden from the job (grant it pg_read_all_stats)`;
  return null;
}

/**
 * Replaces a day's rollup in one transaction. Every figure comes from ONE statement (one
 * snapshot): a row is either counted with its final status or listed as unfinished, never both
 * nor neither. A takeover's mark is read before that snapshot and removed after only if no
 * takeover re-marked the day since (same marked_at and same row version): a takeover the count
 * did not see leaves its mark, and the day is read live until the next run.
 */
export async function countDay(sql: Sql, day: string): Promise<void> {
  await sql('BEGIN');
  try {
    const [mark] = await sql<{ marked_at: string; version: string }>(
      // As text: microseconds intact (a Date would keep milliseconds and never compare equal).
      'SELECT marked_at::text AS marked_at, xmin::text AS version FROM rollup_stale_days WHERE day = ?::date',
      [day],
    );
    for (const table of ['ledger_rollup_transactions', 'ledger_rollup_rounds', 'ledger_rollup_players', 'ledger_rollup_unfinished', ...PLAYER_BITMAP_TABLES]) {
      await sql(`DELETE FROM ${table} WHERE day = ?::date`, [day]);
    }
    await sql(
      `WITH bounds AS (SELECT (?::date::timestamp AT TIME ZONE 'UTC') AS lo, ((?::date + 1)::timestamp AT TIME ZONE 'UTC') AS hi),
       tx AS MATERIALIZED (
         SELECT t.id, t.created_at, t.group_id, t.provider_id, t.game_id, t.currency, t.category, t.status, t.player_id, t.amount
           FROM transactions t, bounds WHERE t.created_at >= bounds.lo AND t.created_at < bounds.hi
       ),
       rd AS MATERIALIZED (
         SELECT r.id, r.created_at, r.group_id, r.provider_id, r.game_id, r.currency, r.status, r.bet_amount, r.payout_amount
           FROM rounds r, bounds WHERE r.created_at >= bounds.lo AND r.created_at < bounds.hi
       ),
       tx_sums AS (
         INSERT INTO ledger_rollup_transactions (day, group_id, provider_id, game_id, currency, category, status, n, amount)
         SELECT ?::date, group_id, provider_id, game_id, currency, category, status, count(*), sum(amount)
           FROM tx WHERE status <> 'PENDING' GROUP BY group_id, provider_id, game_id, currency, category, status
       ),
       players AS (
         INSERT INTO ledger_rollup_players (day, group_id, provider_id, game_id, currency, player_id)
         SELECT DISTINCT ?::date, group_id, provider_id, game_id, currency, player_id
           FROM tx WHERE status = 'SUCCESS' AND category = 'CASH_OUT'
       ),
       rd_sums AS (
         INSERT INTO ledger_rollup_rounds (day, group_id, provider_id, game_id, currency, status, n, bet_amount, payout_amount)
         SELECT ?::date, group_id, provider_id, game_id, currency, status, count(*), sum(bet_amount), coalesce(sum(payout_amount), 0)
           FROM rd WHERE status <> 'OPEN' GROUP BY group_id, provider_id, game_id, currency, status
       ),
       unfinished AS (
         INSERT INTO ledger_rollup_unfinished (parent, day, id, created_at, group_id, provider_id, game_id, currency, category)
         SELECT 'transactions', ?::date, id, created_at, group_id, provider_id, game_id, currency, category FROM tx WHERE status = 'PENDING'
         UNION ALL
         SELECT 'rounds', ?::date, id, created_at, group_id, provider_id, game_id, currency, NULL FROM rd WHERE status = 'OPEN'
       ),
       ${playerBitmapCtes('?::date', `(SELECT group_id, provider_id, game_id, currency, player_id FROM tx WHERE status = 'SUCCESS' AND category = 'CASH_OUT')`)}
       INSERT INTO ledger_rollup_days (day) VALUES (?::date) ON CONFLICT (day) DO UPDATE SET rolled_at = now()`,
      [day, day, day, day, day, day, day, ...[day, day, day], day],
    );
    if (mark) {
      await sql('DELETE FROM rollup_stale_days WHERE day = ?::date AND marked_at = ?::timestamptz AND xmin::text = ?', [day, mark.marked_at, mark.version]);
    }
    await sql('COMMIT');
  } catch (err) {
    await sql('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Runs the job every interval (not at start: a restart storm must not stampede the primary). */
export function scheduleRollups(db: Knex, logger: Logger, intervalMs: number): { stop(): Promise<void> } {
  if (intervalMs <= 0) return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = runRollups(db)
      .then((run) => {
        if (run && (run.rolled.length || run.recounted.length || run.bitmapped.length || run.waiting)) logger.info({ rollups: run }, 'ledger rollups');
      })
      .catch((err: unknown) => logger.error({ err }, 'ledger rollups failed; the next run retries'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

type Starter = (rt: Runtime, port: number) => Promise<{ server: RunningServer; close?: () => Promise<void> }>;

/** The admin service with the rollup job beside it (services/admin/src/main.ts). */
export function withLedgerRollups(start: Starter): Starter {
  return async (rt, port) => {
    const started = await start(rt, port);
    const job = scheduleRollups(rt.db.primary, rt.logger, rt.config.LEDGER_ROLLUP_INTERVAL_MS);
    return {
      server: started.server,
      close: async () => {
        await job.stop();
        await started.close?.();
      },
    };
  };
}
