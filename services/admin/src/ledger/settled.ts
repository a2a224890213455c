/**
 * The rule that closes a day, for any instant (docs/ledger.md, "Exact totals"): the rows created
 * before an instant are all there for good once it is the margin in the past and no transaction
 * that started before it is still running. created_at is now(), the start of the inserting
 * transaction: every row before the instant was written by a transaction that started before it,
 * and a transaction starting later has a later now().
 */

import { LATE_COMPLETION } from '@relay/shared';

export type Sql = <T = Record<string, unknown>>(text: string, bindings?: readonly unknown[]) => Promise<T[]>;

export const DAY_MS = 86_400_000;
export const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);
/** An instant as the job stores and compares it: milliseconds are exact (the step is whole milliseconds). */
export const INSTANT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** True on a database that subscribes to the money database's publication (the reporting database). */
const SUBSCRIBED = `EXISTS (SELECT 1 FROM pg_subscription s WHERE s.subdbid = (SELECT oid FROM pg_database WHERE datname = current_database()))`;

/**
 * The clock the rule reads. On the reporting database (a logical replica) a row is there once its
 * money transaction has been applied, not when it was written: the clock is then the replicated
 * heartbeat's horizon (libs/shared replication.ts): every transaction of the money database that
 * started before it had ended when that heartbeat was written, so it was applied before it. Held at
 * minus infinity while the subscription's first copy is still running. A database that subscribes
 * to nothing (a scratch database in a test) reads its own clock.
 */
export const SETTLED_CLOCK = `(SELECT CASE
    WHEN NOT ${SUBSCRIBED} THEN clock_timestamp()
    WHEN EXISTS (SELECT 1 FROM pg_subscription_rel r WHERE r.srsubstate <> 'r') THEN '-infinity'::timestamptz
    ELSE least(clock_timestamp(), coalesce((SELECT h.horizon_at FROM replication_heartbeat h WHERE h.id = 1), '-infinity'::timestamptz)) END)`;

/**
 * The other client sessions of this database, whose running transactions may still write rows
 * (autovacuum writes none). On a subscribed database no client writes the ledger (the apply worker
 * does, and the heartbeat's horizon covers it): its readers, a long CSV export say, hold nothing back.
 */
const OTHER_CLIENTS = `a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend' AND NOT ${SUBSCRIBED}`;
/** When the oldest transaction of another client session started (NULL: none running). */
const OLDEST_RUNNING_START = `(SELECT min(a.xact_start) FROM pg_stat_activity a WHERE ${OTHER_CLIENTS})`;
/** Prepared transactions of this database: any of them may have begun at any earlier instant. */
const PREPARED = `pg_prepared_xacts p WHERE p.database = current_database() AND NOT ${SUBSCRIBED}`;

/**
 * The sessions of this database whose transaction start the job cannot read: another role's
 * (PostgreSQL shows it with every column but the database, the role and the pid empty, its
 * backend_type too, so the condition must not ask for one), and one with track_activities off.
 */
const UNSEEN = `a.datname = current_database() AND a.pid <> pg_backend_pid() AND (a.query = '<insufficient privilege>' OR a.state = 'disabled') AND NOT ${SUBSCRIBED}`;

/**
 * Why the rows created before `instant` may not all be there for good yet, or null if they are.
 * Judged by the database: its clock (the instant is at least the margin in the past), its running
 * transactions of this database that started before the instant (client backends: autovacuum
 * writes no rows) and its prepared transactions (which may have begun before it: any of them holds
 * every instant back). A backend the job may not see (another role, without pg_read_all_stats)
 * holds it back too: the job cannot know when its transaction started.
 */
async function notSettledBefore(sql: Sql, instant: string, marginMs: number, says: { early: string; before: string }): Promise<string | null> {
  const [row] = await sql<{ early: boolean; running: number; hidden: number; prepared: number }>(
    `SELECT ${SETTLED_CLOCK} < ?::timestamptz + make_interval(secs => ? / 1000.0) AS early,
            (SELECT count(*) FROM pg_stat_activity a WHERE ${OTHER_CLIENTS} AND a.xact_start < ?::timestamptz)::int AS running,
            (SELECT count(*) FROM pg_stat_activity a WHERE ${UNSEEN})::int AS hidden,
            (SELECT count(*) FROM ${PREPARED})::int AS prepared`,
    [instant, marginMs, instant],
  );
  if (row.early) return says.early;
  if (row.running > 0) return `${row.running} transaction(s) that started before ${says.before} are still running`;
  if (row.prepared > 0) return `${row.prepared} prepared transaction(s) are pending`;
  if (row.hidden > 0) return `${row.hidden} session(s) of another role are hidden from the job (grant it pg_read_all_stats)`;
  return null;
}

/** Why day is not closed yet (its end is not settled: notSettledBefore), or null if it is. */
export function notClosed(sql: Sql, day: string, marginMs: number): Promise<string | null> {
  return notSettledBefore(sql, new Date(dayStart(day) + DAY_MS).toISOString(), marginMs, {
    early: 'the day has not ended (with its margin)',
    before: 'the day ended',
  });
}

/**
 * The latest instant the rows before which are all there for good: the margin before the
 * database's clock, held back to the start of the oldest transaction still running, rounded down
 * to the step; then checked by the rule that closes a day (a prepared or hidden transaction holds
 * every instant back). New transactions start after it, so none can be caught between the two.
 */
export async function watermark(sql: Sql, marginMs: number, stepMs: number): Promise<{ at: string } | { heldBack: string }> {
  const [row] = await sql<{ at: string }>(
    `SELECT to_char(date_bin(make_interval(secs => ? / 1000.0),
                             least(${SETTLED_CLOCK} - make_interval(secs => ? / 1000.0), ${OLDEST_RUNNING_START}),
                             'epoch'::timestamptz) AT TIME ZONE 'UTC', ${INSTANT}) AS at`,
    // Never ahead of the clock, whatever the margin (tests judge days with a negative one).
    [stepMs, Math.max(0, marginMs)],
  );
  const reason = await notSettledBefore(sql, row.at, Math.max(0, marginMs), { early: `${row.at} is not the margin in the past`, before: row.at });
  return reason ? { heldBack: reason } : { at: row.at };
}

/**
 * The instant before which a row created and seen unfinished by a statement that starts after this
 * call can only finish late (migration 025, "fresh"): the database's clock, held back to the start of
 * the oldest transaction of this database still running, minus the margin and LATE_COMPLETION. A
 * transaction that finishes such a row commits after that statement's snapshot, so it was running
 * now or starts later: its now(), the row's completed_at or settled_at, is at least the horizon plus
 * LATE_COMPLETION, more than LATE_COMPLETION after the row's created_at. The margin covers a backend
 * caught between taking its start time and showing it. Null when the job cannot know (a prepared
 * transaction, or a session it may not see): every row it lists is then fresh.
 */
export async function listingHorizon(sql: Sql, marginMs: number): Promise<string | null> {
  const [row] = await sql<{ at: string | null }>(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM ${PREPARED}) OR EXISTS (SELECT 1 FROM pg_stat_activity a WHERE ${UNSEEN})
                 THEN NULL
                 ELSE to_char((least(${SETTLED_CLOCK}, ${OLDEST_RUNNING_START}) - make_interval(secs => ? / 1000.0) - ${LATE_COMPLETION.sql})
                              AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END AS at`,
    [Math.max(0, marginMs)],
  );
  return row?.at ?? null;
}
