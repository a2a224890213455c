import { randomBytes } from 'node:crypto';
import { createKnex, runPrepared, type Knex } from '@relay/shared';
import { claimOrFindStatement, claimOrFindTransaction, markFailed, type Claim } from '../src/data/transactions';
import { movementRecord } from './movement-records';

/**
 * Every money call starts with ONE statement (claimOrFindStatement): the claim of a new
 * transactionId, or the record of an existing one, which is all a replay needs. Against real
 * PostgreSQL: what each case answers and writes, and the race the statement leaves to its caller
 * (a key committed by a concurrent claim after the statement's snapshot: neither claimed nor seen).
 */
const id = randomBytes(4).toString('hex');
const APP = `claim-or-find-test-${id}`;
const owner = { providerId: `cof-cas-${id}`, groupId: `cof-grp-${id}`, gameId: 78, playerId: `cof-p-${id}` };
let db: Knex;

beforeAll(() => {
  db = createKnex(process.env.DATABASE_URL!, 4, APP);
});
afterAll(async () => {
  await db.destroy();
});

const bet = (tag: string) => movementRecord(owner, 'CASH_OUT', `b-${tag}-${id}`, `r-${tag}-${id}`);
const keyTuple = async (transactionId: string) =>
  (await db.raw(`SELECT xmax::text AS xmax, ctid::text AS ctid FROM transaction_keys WHERE provider_id = ? AND transaction_id = ?`, [owner.providerId, transactionId])).rows[0];

describe('claim or find', () => {
  it('When a transactionId is new, then the statement claims it: its key, its PENDING record and its attempt', async () => {
    const m = bet('new');
    const outcome = await claimOrFindTransaction(db, m, { amount: 10 });
    expect('claim' in outcome).toBe(true);
    const claim = (outcome as { claim: Claim }).claim;
    expect(claim.attempt).toBe(1);
    const rows = await db.raw(
      `SELECT t.status, a.attempt FROM transactions t JOIN transaction_attempts a ON a.transaction_pk = t.id AND a.transaction_created_at = t.created_at
        WHERE t.id = ? AND t.created_at = ?::timestamptz`,
      [claim.pk, claim.createdAt],
    );
    expect(rows.rows).toEqual([{ status: 'PENDING', attempt: 1 }]);
  });

  it('When the transactionId exists, then the statement answers its record and writes nothing: no row lock, no new key, no attempt', async () => {
    const m = bet('again');
    const first = (await claimOrFindTransaction(db, m, { amount: 10 })) as { claim: Claim };
    await markFailed(db, first.claim, 'FUND_WITHDRAW_FAILED', 'no funds', {});
    const before = await keyTuple(m.transactionId);
    const again = await claimOrFindTransaction(db, m, { amount: 10 });
    expect(again).toEqual({
      existing: expect.objectContaining({ pk: first.claim.pk, createdAt: first.claim.createdAt, archived: false, status: 'FAILED', category: 'CASH_OUT', playerId: owner.playerId }),
    });
    expect(await keyTuple(m.transactionId)).toEqual(before);
    expect(before.xmax).toBe('0');
    const attempts = await db('transaction_attempts').where({ transaction_pk: first.claim.pk }).count({ n: '*' });
    expect(Number(attempts[0].n)).toBe(1);
  });

  it('When a concurrent claim of the same transactionId commits while the statement waits on its key, then the statement answers no row at all (the caller runs it again) and the second run finds the record', async () => {
    const m = bet('race');
    const statement = claimOrFindStatement(m, { amount: 10 });
    const other = await db.transaction();
    try {
      // The other claim holds the key uncommitted: this statement waits on it (ON CONFLICT).
      await other.raw(statement.sql, statement.bindings);
      const waiting = claimOrFindTransaction(db, m, { amount: 10 });
      await waitUntilBlocked();
      await other.commit();
      expect(await waiting).toEqual({ existing: null });
    } catch (err) {
      await other.rollback().catch(() => undefined);
      throw err;
    }
    const rerun = await claimOrFindTransaction(db, m, { amount: 10 });
    expect(rerun).toEqual({ existing: expect.objectContaining({ status: 'PENDING', category: 'CASH_OUT' }) });
    // The race made one record, one attempt.
    expect((await runPrepared(db, { sql: 'SELECT count(*)::int AS n FROM transactions WHERE provider_id = ? AND transaction_id = ?', bindings: [owner.providerId, m.transactionId] })).rows).toEqual([{ n: 1 }]);
  });
});

/** Until a backend of this test's application waits on a transaction lock (the key's insertion). */
async function waitUntilBlocked(): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const rows = (await db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ? AND wait_event_type = 'Lock'`, [APP])).rows;
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the statement never waited on the concurrent claim');
}
