import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { COUNTS_DISARMED_SQL, withClient, type SubscribeOptions } from '@relay/shared';
import { countTriggersSql } from './schema/counts';

/**
 * A new subscription's first copy runs with the count triggers off (docs/ledger.md, "Exact
 * totals"): a table's copy is one transaction, in which each count row's upserts would pile up
 * versions that nothing can prune until it commits (at 5M transactions: count tables 30 times their
 * size, and minutes of the copy spent walking them). The counts are made once it is over.
 */

/** prepareDatabases' hook: the triggers off on the reporting database just before its subscription is created. */
export const countsOffForFirstCopy = (reporting: pg.Client) => reporting.query(countTriggersSql(false));

/**
 * Turns the count triggers back on after a new subscription's first copy and recounts, in one
 * transaction: once both ledger tables are copied, their writes are held (SHARE) while the
 * triggers are enabled and the counts rebuilt from the rows, so every change applied before is in
 * the recount and every change after fires the triggers. 'copying': a ledger table is still in its
 * first copy (nothing done; try again later); 'armed': done now; 'already': the triggers were on.
 * prepareDatabases waits for it after subscribing; the admin service's `counts-arm` job finishes a
 * copy that outlasts that wait.
 */
export async function armCounts(reporting: pg.Client): Promise<'copying' | 'armed' | 'already'> {
  const disarmed = async () => (await reporting.query<{ off: boolean }>(`SELECT ${COUNTS_DISARMED_SQL} AS off`)).rows[0].off;
  if (!(await disarmed())) return 'already';
  // Checked before locking: the lock would wait for the copy's own transaction.
  const copying = async () => (await reporting.query<{ copying: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_subscription_rel WHERE srrelid IN ('transactions'::regclass, 'rounds'::regclass) AND srsubstate <> 'r') AS copying`,
  )).rows[0].copying;
  if (await copying()) return 'copying';
  await reporting.query('BEGIN');
  try {
    await reporting.query(`SET LOCAL lock_timeout = '60s'`);
    await reporting.query('LOCK TABLE transactions, rounds IN SHARE MODE');
    if (!(await disarmed())) {
      await reporting.query('COMMIT');
      return 'already';
    }
    await reporting.query(countTriggersSql(true));
    await reporting.query('SELECT ledger_counts_rebuild()');
    await reporting.query('COMMIT');
    return 'armed';
  } catch (err) {
    await reporting.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * armCounts until it is done or `waitMs` has passed (a long first copy: the admin service's job
 * finishes it). True when the counts are on.
 */
export async function awaitCounts(reportingUrl: string, waitMs: number, log?: SubscribeOptions['log']): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  return withClient(reportingUrl, async (c) => {
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      const state = await armCounts(c);
      if (state === 'armed') log?.('first copy done: exact totals counted from the copied rows');
      if (state !== 'copying') return true;
      if (Date.now() > deadline) {
        log?.('the first copy is still running: the admin service counts its rows when it ends; reporting answers 503 until then');
        return false;
      }
      await sleep(wait);
    }
  });
}

