import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { COUNTS_DISARMED_SQL, dropDatabase, dropSubscription, ensureSubscription, LAG_SQL, replicationBarrier, withClient } from '@relay/shared';
import { armCounts, awaitCounts, COUNT_TRIGGERS, migrateReporting, migrateToLatest } from '../src';
import { countsOffForFirstCopy } from '../src/first-copy';

/**
 * A new subscription's first copy runs with the count triggers off (one transaction per table: a
 * row trigger's upserts of the same count row would pile up versions nothing can prune), and the
 * counts are made from the copied rows once both ledger tables are copied.
 */
describe('When a reporting database is subscribed to a money database that already holds rows', () => {
  const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const name = `relay_test_first_copy_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const money = `${base}/${name}`;
  const reporting = `${base}/${name}_reporting`;

  afterAll(async () => {
    await dropSubscription(money, reporting).catch(() => undefined);
    await dropDatabase(reporting);
    await dropDatabase(money);
  });

  const insertTransactions = async (c: pg.Client, rows: [string, 'CASH_OUT' | 'CASH_IN', 'SUCCESS' | 'PENDING', string][]) => {
    for (const [id, category, status, player] of rows) {
      await c.query(
        `INSERT INTO transactions (id, provider_id, transaction_id, category, status, group_id, game_id, player_id, session_id, round_id,
                                   amount, currency, language, request_fingerprint)
         VALUES (gen_random_uuid(), 'c1', $1, $2, $3, 'g1', 1, $4, 's', 'r', 2.5, 'EUR', 'en', 'f')`,
        [id, category, status, player],
      );
    }
  };
  const counted = (c: pg.Client) => c.query<{ off: boolean; transactions: string | null; cash_outs: string | null }>(
    `SELECT ${COUNTS_DISARMED_SQL} AS off, (SELECT sum(n)::text FROM ledger_counts_transactions) AS transactions,
            (SELECT sum(n)::text FROM ledger_counts_players) AS cash_outs`,
  ).then((r) => r.rows[0]);

  it('then the readiness check names the trigger the counts switch off', () => {
    expect(COUNT_TRIGGERS.transactions).toContain('transactions_counted');
    expect(COUNTS_DISARMED_SQL).toContain(`tgname = 'transactions_counted'`);
  });

  it('then the copy counts nothing, the reporting database is not fresh until its counts are made, and they match the rows', async () => {
    await migrateReporting(reporting);
    await migrateToLatest(money);
    await withClient(money, (c) => insertTransactions(c, [['t1', 'CASH_OUT', 'SUCCESS', 'p1'], ['t2', 'CASH_OUT', 'SUCCESS', 'p2'], ['t3', 'CASH_IN', 'PENDING', 'p1']]));

    // As prepareDatabases subscribes (it would then wait for the counts itself).
    expect(await ensureSubscription(money, reporting, { beforeFirstCopy: countsOffForFirstCopy })).toBe('created');
    await withClient(reporting, async (c) => {
      // Subscribed, counts off: whatever the heartbeat says, the replica reads as still copying.
      expect((await counted(c)).off).toBe(true);
      const lag = (await c.query<{ copying: boolean }>(LAG_SQL)).rows[0];
      if (lag) expect(lag.copying).toBe(true);
    });

    expect(await awaitCounts(reporting, 60_000)).toBe(true);
    await withClient(reporting, async (c) => {
      expect(await counted(c)).toEqual({ off: false, transactions: '3', cash_outs: '2' });
      expect((await c.query<{ copying: boolean }>(LAG_SQL)).rows[0].copying).toBe(false);
      expect(await armCounts(c)).toBe('already');
    });

    // From now on the triggers count what the apply worker applies.
    const m = new pg.Client({ connectionString: money });
    const r = new pg.Client({ connectionString: reporting });
    await m.connect();
    await r.connect();
    try {
      await insertTransactions(m, [['t4', 'CASH_OUT', 'SUCCESS', 'p3']]);
      await replicationBarrier(m, r);
      expect(await counted(r)).toEqual({ off: false, transactions: '4', cash_outs: '3' });
    } finally {
      await m.end();
      await r.end();
    }
  }, 120_000);
});
