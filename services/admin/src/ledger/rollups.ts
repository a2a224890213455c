import type { Knex, Logger, Runtime, RunningServer } from '@relay/shared';
import { backfillPlayerBitmaps, buildPlayerSpans, PLAYER_BITMAP_TABLES, playerBitmapCtes } from './player-bitmaps';
import { DAY_MS, dayStart, INSTANT, listingHorizon, notClosed, watermark, type Sql } from './settled';

export { notClosed, watermark } from './settled';

/**
 * The daily ledger rollups (migration 009, docs/ledger.md "Exact totals"): a job in the admin
 * service that counts each closed UTC day once, recounts the days a takeover rewrote, and counts
 * the day that has not closed yet up to a watermark (migration 019), again at every run.
 *
 * A day D is CLOSED when D has ended and no transaction of this database that started before D's
 * end is still running (nor any prepared transaction). created_at is now(), the start of the
 * inserting transaction, so every row of D was written by a transaction that started before D's
 * end: once none of those runs, every row of D is committed and visible to the next statement,
 * and no later transaction can add one (its now() is past D). Counting a day any earlier could
 * miss a transaction that began before midnight and commits after the count.
 *
 * The same rule, applied to an instant W instead of midnight, lets the job count the first day
 * not closed yet for [day, W): W is at least the margin in the past and no transaction that
 * started before it is still running, so the rows created before W are all there for good. The
 * day is stored with counted_until = W; readers count [W, now) live. Once the day closes it is
 * counted whole (counted_until NULL).
 *
 * Readers use a day's rollup only while it is not marked stale, so a takeover's rewrite is never
 * hidden: its day is read live until this job has recounted it. The job runs under a session
 * advisory lock (one replica at a time) and replaces each day's rows in one transaction, so it is
 * idempotent and safe to interrupt anywhere.
 */

const LOCK = 'ledger_rollups';
/**
 * How long after midnight a day may be closed at the earliest. A backend takes its transaction's
 * start time a few instructions before it shows it in pg_stat_activity; the margin makes a
 * transaction caught between the two (descheduled there) impossible in practice.
 */
export const CLOSE_MARGIN_MS = 60_000;
/** The watermark is rounded down to this step, so runs count the same spans and a report is comparable. */
export const WATERMARK_STEP_MS = 300_000;

export interface RollupOptions {
  /** At most this many days counted per run (a fresh database catches up over several runs). */
  maxDays?: number;
  /** How long after midnight a day may close at the earliest (tests shorten it). */
  closeMarginMs?: number;
  /** The step the watermark is rounded down to (tests shorten it). */
  watermarkStepMs?: number;
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
  /** The day not closed yet, counted for [day, countedUntil): whole up to it, or by adding the new span. */
  partial?: { day: string; countedUntil: string; counted: 'whole' | 'span' };
  /** Why the watermark did not advance, if it did not. */
  heldBack?: string;
  /** Listed rows seen still unfinished past the listing horizon, marked not fresh (migration 025). */
  unfresh?: number;
  /** Spans of days whose player bitmaps were built (migration 031). */
  spans?: number;
}

/**
 * One run. Returns null when another replica holds the job. The lock is a session lock on a
 * connection of its own, so each day can commit on its own (an interrupted run keeps its days).
 */
export async function runRollups(db: Knex, options: RollupOptions = {}): Promise<RollupRun | null> {
  const maxDays = options.maxDays ?? 31;
  const margin = options.closeMarginMs ?? CLOSE_MARGIN_MS;
  const step = options.watermarkStepMs ?? WATERMARK_STEP_MS;
   
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
        if (await countDay(sql, day, undefined, margin)) run.recounted.push(day);
      }
      const unfresh = await markListedNotFresh(sql, margin);
      if (unfresh) run.unfresh = unfresh;
      for (;;) {
        const day = await nextDay(sql);
        if (!day) break;
        const reason = await notClosed(sql, day, margin);
        if (reason) {
          if (dayStart(day) + DAY_MS <= Date.now()) run.waiting = { day, reason };
          // Caught up: the first day not closed is counted up to the watermark.
          await countPartialDay(sql, run, day, margin, step);
          break;
        }
        if (run.rolled.length === maxDays) break;
        if (await countDay(sql, day, undefined, margin)) run.rolled.push(day);
      }
      run.bitmapped = await backfillPlayerBitmaps(sql, maxDays);
      const spans = await buildPlayerSpans(sql);
      if (spans) run.spans = spans;
      return run;
    } finally {
      await sql('SELECT pg_advisory_unlock(hashtext(?))', [LOCK]);
    }
  } finally {
    await client.releaseConnection(conn);
  }
}


/**
 * Counted days to count again: those a takeover marked, and those holding a row that was
 * unfinished when counted and has finished since (so the live part stays small and an archived
 * month keeps its final figures). Not a partial day: countPartialDay keeps it (a stale one whole).
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
       AND NOT EXISTS (SELECT 1 FROM ledger_rollup_days p WHERE p.day = due.day AND p.counted_until IS NOT NULL)
     ORDER BY day LIMIT ?`,
    [limit],
  );
  return rows.map((r) => r.day);
}

/**
 * Marks not fresh (migration 025) the fresh listed rows created before the listing horizon that this
 * statement's snapshot sees still unfinished: any of them that finishes from now on finishes late
 * (listingHorizon), so a total finds it among the late rows and need not look it up. The horizon is
 * read before the statement. Rows listed fresh stay so until a run sees them old enough: those that
 * finish meanwhile are found through the fresh part. Returns how many were marked.
 */
async function markListedNotFresh(sql: Sql, marginMs: number): Promise<number> {
  const horizon = await listingHorizon(sql, marginMs);
  if (horizon === null) return 0;
  const rows = await sql(
    `UPDATE ledger_rollup_unfinished u SET fresh = false
      WHERE u.fresh AND u.created_at < ?::timestamptz
        AND CASE u.parent
              WHEN 'transactions' THEN EXISTS (SELECT 1 FROM transactions t WHERE t.id = u.id AND t.created_at = u.created_at AND t.status = 'PENDING')
              ELSE EXISTS (SELECT 1 FROM rounds r WHERE r.id = u.id AND r.created_at = u.created_at AND r.status = 'OPEN')
            END
      RETURNING 1`,
    [horizon],
  );
  return rows.length;
}

/** The day after the last one counted whole, or the first day of the ledger (null: an empty ledger). */
async function nextDay(sql: Sql): Promise<string | null> {
  const [row] = await sql<{ day: string | null }>(
    `SELECT to_char(coalesce(
              (SELECT max(day) + 1 FROM ledger_rollup_days WHERE counted_until IS NULL),
              (SELECT (min(m) AT TIME ZONE 'UTC')::date FROM (SELECT min(created_at) AS m FROM transactions
                                                               UNION ALL SELECT min(created_at) FROM rounds) x)),
            'YYYY-MM-DD') AS day`,
  );
  return row?.day ?? null;
}

/**
 * Counts day, the first day not closed, for [day, W): W as far as the watermark allows, never
 * behind the span already counted (the rows before that are there for good too). Each run adds
 * only the new span [counted_until, W) to the day's rollup (countSpan): a run costs the rows written
 * since the last one, not the day so far. The whole day up to W is counted again (countDay) when
 * the day has no span yet or a takeover marked it stale (its rows changed, which only a recount
 * sees); rows that were unfinished when counted stay listed, read by key, until the day closes and
 * is counted whole.
 */
async function countPartialDay(sql: Sql, run: RollupRun, day: string, marginMs: number, stepMs: number): Promise<void> {
  const w = await watermark(sql, marginMs, stepMs);
  if ('heldBack' in w) run.heldBack = w.heldBack;
  const [stored] = await sql<{ until: string | null; stale: boolean }>(
    `SELECT to_char(d.counted_until AT TIME ZONE 'UTC', ${INSTANT}) AS until,
            EXISTS (SELECT 1 FROM rollup_stale_days s WHERE s.day = d.day) AS stale
       FROM ledger_rollup_days d WHERE d.day = ?::date`,
    [day],
  );
  const from = stored?.until ? Date.parse(stored.until) : null;
  const until = Math.max('at' in w ? Date.parse(w.at) : -Infinity, from ?? -Infinity);
  if (!(until > dayStart(day) && until < dayStart(day) + DAY_MS)) return;
  const countedUntil = new Date(until).toISOString();
  if (from !== null && stored && !stored.stale) {
    if (until > from) await countSpan(sql, day, stored.until as string, countedUntil, marginMs);
    run.partial = { day, countedUntil, counted: 'span' };
    return;
  }
  if (await countDay(sql, day, countedUntil, marginMs)) run.partial = { day, countedUntil, counted: 'whole' };
}

/**
 * Adds the rows of [from, until) to the partial rollup of day, counted up to from, and moves its
 * counted_until to until, in one transaction. Every row created before until is committed (the
 * watermark's rule) and every row before from was counted by an earlier run, so each row of
 * [day, until) is in the rollup exactly once: sums added, players and unfinished rows inserted.
 * The day's counted_until must still be from (one job at a time holds the lock; the condition makes
 * a second add of the same span impossible whatever happens).
 */
async function countSpan(sql: Sql, day: string, from: string, until: string, marginMs: number): Promise<void> {
  // Before the count's snapshot (listingHorizon).
  const horizon = await listingHorizon(sql, marginMs);
  await sql('BEGIN');
  try {
    const moved = await sql(
      'UPDATE ledger_rollup_days SET counted_until = ?::timestamptz, rolled_at = now() WHERE day = ?::date AND counted_until = ?::timestamptz RETURNING day',
      [until, day, from],
    );
    if (moved.length !== 1) throw new Error(`ledger rollups: ${day} is no longer counted up to ${from}`);
    // The span's players join the day's bitmaps when it has some; a day without (counted before 020)
    // gets them from ledger_rollup_players, span included, when the backfill builds it.
    const [{ bitmapped }] = await sql<{ bitmapped: boolean }>('SELECT EXISTS (SELECT 1 FROM ledger_rollup_player_bits_days WHERE day = ?::date) AS bitmapped', [day]);
    await sql(`WITH ${countingCtes({ merge: true, bitmaps: bitmapped })} SELECT 1`, [day, from, until, horizon]);
    await sql('COMMIT');
  } catch (err) {
    await sql('ROLLBACK').catch(() => undefined);
    throw err;
  }
}


/** Whether a listed row is fresh (migration 025): created from the horizon on, or the horizon unknown. */
const FRESH = `coalesce(created_at >= (SELECT horizon FROM bounds), true)`;

const BETS = `(SELECT group_id, provider_id, game_id, currency, player_id FROM tx WHERE status = 'SUCCESS' AND category = 'CASH_OUT')`;

/**
 * What a count writes, as a WITH list over `bounds` (its four bindings: the day, the created_at range
 * [lo, hi) of the rows counted into it, and the listing horizon, read before this statement: see
 * listingHorizon), from ONE snapshot: the final rows' sums by rollup key, the players with a
 * successful bet (and their bitmaps), and the unfinished rows by key, fresh when created from the
 * horizon on (all of them when it is unknown). A row is either counted with its final status or listed as unfinished, never both nor
 * neither. merge: the day already holds counted rows (a span, countSpan): sums are added to its
 * keys, players and bitmap blocks joined; otherwise the caller has emptied the day first.
 */
function countingCtes({ merge, bitmaps }: { merge: boolean; bitmaps: boolean }): string {
  const adding = (key: string, sums: string) => (merge ? `\n         ON CONFLICT (day, ${key}) DO UPDATE SET ${sums}` : '');
  return `bounds AS (SELECT ?::date AS day, ?::timestamptz AS lo, ?::timestamptz AS hi, ?::timestamptz AS horizon),
       tx AS MATERIALIZED (
         SELECT t.id, t.created_at, t.group_id, t.provider_id, t.game_id, t.currency, t.category, t.status, t.player_id, t.amount
           FROM transactions t, bounds WHERE t.created_at >= bounds.lo AND t.created_at < bounds.hi
       ),
       rd AS MATERIALIZED (
         SELECT r.id, r.created_at, r.group_id, r.provider_id, r.game_id, r.currency, r.status, r.bet_amount, r.payout_amount
           FROM rounds r, bounds WHERE r.created_at >= bounds.lo AND r.created_at < bounds.hi
       ),
       tx_sums AS (
         INSERT INTO ledger_rollup_transactions AS x (day, group_id, provider_id, game_id, currency, category, status, n, amount)
         SELECT (SELECT day FROM bounds), group_id, provider_id, game_id, currency, category, status, count(*), sum(amount)
           FROM tx WHERE status <> 'PENDING' GROUP BY group_id, provider_id, game_id, currency, category, status${adding(
             'group_id, provider_id, game_id, currency, category, status', 'n = x.n + excluded.n, amount = x.amount + excluded.amount')}
       ),
       players AS (
         INSERT INTO ledger_rollup_players (day, group_id, provider_id, game_id, currency, player_id)
         SELECT DISTINCT (SELECT day FROM bounds), group_id, provider_id, game_id, currency, player_id FROM ${BETS} b${merge ? '\n         ON CONFLICT DO NOTHING' : ''}
       ),
       rd_sums AS (
         INSERT INTO ledger_rollup_rounds AS x (day, group_id, provider_id, game_id, currency, status, n, bet_amount, payout_amount)
         SELECT (SELECT day FROM bounds), group_id, provider_id, game_id, currency, status, count(*), sum(bet_amount), coalesce(sum(payout_amount), 0)
           FROM rd WHERE status <> 'OPEN' GROUP BY group_id, provider_id, game_id, currency, status${adding(
             'group_id, provider_id, game_id, currency, status',
             'n = x.n + excluded.n, bet_amount = x.bet_amount + excluded.bet_amount, payout_amount = x.payout_amount + excluded.payout_amount')}
       ),
       unfinished AS (
         INSERT INTO ledger_rollup_unfinished (parent, day, id, created_at, group_id, provider_id, game_id, currency, category, fresh)
         SELECT 'transactions', (SELECT day FROM bounds), id, created_at, group_id, provider_id, game_id, currency, category, ${FRESH} FROM tx WHERE status = 'PENDING'
         UNION ALL
         SELECT 'rounds', (SELECT day FROM bounds), id, created_at, group_id, provider_id, game_id, currency, NULL, ${FRESH} FROM rd WHERE status = 'OPEN'
       )${bitmaps ? `,\n       ${playerBitmapCtes('(SELECT day FROM bounds)', BETS, merge)}` : ''}`;
}

/**
 * Replaces a day's rollup in one transaction: the whole day, or [day, until) of a day not closed
 * yet (until: a watermark, see countPartialDay). Every figure comes from ONE statement (one
 * snapshot): a row is either counted with its final status or listed as unfinished, never both
 * nor neither. A takeover's mark is read before that snapshot and removed after only if no
 * takeover re-marked the day since (same marked_at and same row version): a takeover the count
 * did not see leaves its mark, and the day is read live until the next run.
 * A day of a month being removed or archived keeps its rollups (its rows are leaving or gone; the
 * archiving replaces them by the rows as they left: archived-rollups.ts); it is only recorded as
 * counted. Returns whether the day was counted.
 */
export async function countDay(sql: Sql, day: string, until?: string, marginMs = CLOSE_MARGIN_MS): Promise<boolean> {
  // Before the count's snapshot (listingHorizon); the transaction's own start does not hold it back.
  const horizon = await listingHorizon(sql, marginMs);
  await sql('BEGIN');
  try {
    // FOR SHARE: the retention job's last count of a monthly partition's month locks this row before
    // it replaces the month's rollups; a count of one of its days waits for that commit, then sees `archived`.
    const [archive] = await sql<{ state: string }>(`SELECT state FROM ledger_archives WHERE month = date_trunc('month', ?::date)::date FOR SHARE`, [day]);
    if (archive?.state === 'removing' || archive?.state === 'archived') {
      // Recorded as counted whole (a day left partial by a watermark held back past its month's archiving
      // would otherwise stay the next day to count, for ever).
      await sql('INSERT INTO ledger_rollup_days (day) VALUES (?::date) ON CONFLICT (day) DO UPDATE SET counted_until = NULL', [day]);
      await sql('COMMIT');
      return false;
    }
    const [mark] = await sql<{ marked_at: string; version: string }>(
      // As text: microseconds intact (a Date would keep milliseconds and never compare equal).
      'SELECT marked_at::text AS marked_at, xmin::text AS version FROM rollup_stale_days WHERE day = ?::date',
      [day],
    );
    for (const table of ['ledger_rollup_transactions', 'ledger_rollup_rounds', 'ledger_rollup_players', 'ledger_rollup_unfinished', ...PLAYER_BITMAP_TABLES]) {
      await sql(`DELETE FROM ${table} WHERE day = ?::date`, [day]);
    }
    await sql(
      `WITH ${countingCtes({ merge: false, bitmaps: true })}
       INSERT INTO ledger_rollup_days (day, counted_until) SELECT bounds.day, ?::timestamptz FROM bounds
         ON CONFLICT (day) DO UPDATE SET rolled_at = now(), counted_until = excluded.counted_until`,
      [day, `${day}T00:00:00.000Z`, until ?? new Date(dayStart(day) + DAY_MS).toISOString(), horizon, until ?? null],
    );
    if (mark) {
      await sql('DELETE FROM rollup_stale_days WHERE day = ?::date AND marked_at = ?::timestamptz AND xmin::text = ?', [day, mark.marked_at, mark.version]);
    }
    await sql('COMMIT');
    return true;
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
        if (run && (run.rolled.length || run.recounted.length || run.bitmapped.length || run.waiting || run.partial || run.heldBack || run.unfresh || run.spans)) logger.info({ rollups: run }, 'ledger rollups');
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
