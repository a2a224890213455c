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

/**
 * prepareDatabases' hook, in the transaction that creates the subscription: the count triggers off
 * and the first-copy mark written, both or neither with the subscription.
 */
export async function countsOffForFirstCopy(reporting: pg.Client): Promise<void> {
  await reporting.query(countTriggersSql(false));
  await reporting.query('INSERT INTO ledger_counts_pending DEFAULT VALUES ON CONFLICT DO NOTHING');
}

/**
 * Makes the counts of a first copy once it is over, in one transaction: both ledger tables copied
 * (in state `r`: the apply worker applies their changes), their writes are held (SHARE ROW
 * EXCLUSIVE: it blocks the apply worker and a second armCounts alike) while the triggers are
 * switched on, the counts rebuilt from the rows and the mark removed. A change applied before is in
 * the rebuild, a change after fires the triggers. 'copying': not over (nothing done; try again);
 * 'busy': the lock was not had (a deadlock with the apply worker, or its long transaction: try
 * again); 'armed': done now; 'already': no first copy was waiting. prepareDatabases waits for it
 * after subscribing; the admin service's `counts-arm` job finishes a copy that outlasts that wait.
 */
export async function armCounts(reporting: pg.Client): Promise<'copying' | 'busy' | 'armed' | 'already'> {
  const pending = async () => (await reporting.query<{ pending: boolean }>(`SELECT ${COUNTS_DISARMED_SQL} AS pending`)).rows[0].pending;
  if (!(await pending())) return 'already';
  // Checked before locking (the lock would wait for a copy's own transaction), and again under it.
  const copied = async () => (await reporting.query<{ copied: boolean }>(
    `SELECT count(*) FILTER (WHERE srsubstate = 'r') = 2 AS copied FROM pg_subscription_rel
      WHERE srrelid IN ('transactions'::regclass, 'rounds'::regclass)`,
  )).rows[0].copied;
  if (!(await copied())) return 'copying';
  await reporting.query('BEGIN');
  try {
    await reporting.query(`SET LOCAL lock_timeout = '10s'`);
    await reporting.query('LOCK TABLE transactions, rounds IN SHARE ROW EXCLUSIVE MODE');
    if (!(await pending())) {
      await reporting.query('COMMIT');
      return 'already';
    }
    await reporting.query(countTriggersSql(true));
    await reporting.query('SELECT ledger_counts_rebuild()');
    await reporting.query('DELETE FROM ledger_counts_pending');
    await reporting.query('COMMIT');
    return 'armed';
  } catch (err) {
    await reporting.query('ROLLBACK').catch(() => undefined);
    // 40P01: a deadlock with the apply worker (it held one ledger table and wanted the other);
    // 55P03: the lock time-out. Either way nothing changed, and the next try may get the lock.
    const code = (err as { code?: string }).code;
    if (code === '40P01' || code === '55P03') return 'busy';
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
      if (state === 'armed' || state === 'already') return true;
      if (Date.now() > deadline) {
        log?.('the first copy is still running: the admin service counts its rows when it ends; reporting answers 503 until then');
        return false;
      }
      await sleep(wait);
    }
  });
}
