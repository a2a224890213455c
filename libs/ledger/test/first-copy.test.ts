import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { COUNTS_DISARMED_SQL, dropDatabase, dropSubscription, ensureSubscription, LAG_SQL, replicationBarrier } from '@relay/shared';
import { armCounts, awaitCounts, countTriggersSql, migrateReporting, migrateToLatest } from '../src';
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
  const counted = (c: pg.Client) => c.query<{ pending: boolean; transactions: string | null; cash_outs: string | null }>(
    `SELECT ${COUNTS_DISARMED_SQL} AS pending, (SELECT sum(n)::text FROM ledger_counts_transactions) AS transactions,
            (SELECT sum(n)::text FROM ledger_counts_players) AS cash_outs`,
  ).then((r) => r.rows[0]);
  /** Polls `sql` (one row, one column `ok`) on `c` until it reads true. */
  const until = async (c: pg.Client, sql: string) => {
    for (let i = 0; i < 600; i += 1) {
      if ((await c.query<{ ok: boolean }>(sql)).rows[0].ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`never: ${sql}`);
  };

  it('then the copy and the changes applied before its counts are made count nothing, the replica is not caught up until they are, and then they match the rows', async () => {
    await migrateReporting(reporting);
    await migrateToLatest(money);
    const m = new pg.Client({ connectionString: money });
    const r = new pg.Client({ connectionString: reporting });
    await m.connect();
    await r.connect();
    try {
      await insertTransactions(m, [['t1', 'CASH_OUT', 'SUCCESS', 'p1'], ['t2', 'CASH_OUT', 'SUCCESS', 'p2'], ['t3', 'CASH_IN', 'PENDING', 'p1']]);
      // As prepareDatabases subscribes (it would then wait for the counts itself).
      expect(await ensureSubscription(money, reporting, { beforeFirstCopy: countsOffForFirstCopy })).toBe('created');
      expect((await counted(r)).pending).toBe(true);

      // The copy ends; a change the apply worker applies after it, before the counts are made.
      // (Every table, so that the freshness read below depends on the mark alone.)
      await until(r, `SELECT count(*) > 0 AND bool_and(srsubstate = 'r') AS ok FROM pg_subscription_rel`);
      await insertTransactions(m, [['t4', 'CASH_OUT', 'SUCCESS', 'p3']]);
      await until(r, `SELECT count(*) = 4 AS ok FROM transactions`);
      expect(await counted(r)).toEqual({ pending: true, transactions: null, cash_outs: null });
      // Not caught up while the mark is there, whatever the heartbeat says.
      expect((await r.query<{ copying: boolean }>(LAG_SQL)).rows[0].copying).toBe(true);

      expect(await armCounts(r)).toBe('armed');
      expect(await counted(r)).toEqual({ pending: false, transactions: '4', cash_outs: '3' });
      expect((await r.query<{ copying: boolean }>(LAG_SQL)).rows[0].copying).toBe(false);
      expect(await armCounts(r)).toBe('already');
      expect(await awaitCounts(reporting, 1000)).toBe(true);

      // From now on the triggers count what the apply worker applies.
      await insertTransactions(m, [['t5', 'CASH_OUT', 'SUCCESS', 'p4']]);
      await replicationBarrier(m, r);
      expect(await counted(r)).toEqual({ pending: false, transactions: '5', cash_outs: '4' });

      // A bulk load or a repair that switches the triggers off by hand is not taken for a copy.
      await r.query(countTriggersSql(false));
      expect((await counted(r)).pending).toBe(false);
      expect(await armCounts(r)).toBe('already');
      await r.query(countTriggersSql(true));
    } finally {
      await m.end();
      await r.end();
    }
  }, 120_000);

  it('then two callers making the counts at once do not deadlock: one makes them, the other finds them made', async () => {
    const r1 = new pg.Client({ connectionString: reporting });
    const r2 = new pg.Client({ connectionString: reporting });
    await r1.connect();
    await r2.connect();
    try {
      // A first copy's state again: the triggers off and the mark written.
      await r1.query('BEGIN');
      await countsOffForFirstCopy(r1);
      await r1.query('COMMIT');
      const states = await Promise.all([armCounts(r1), armCounts(r2)]);
      expect(states.sort()).toEqual(['already', 'armed']);
      expect(await counted(r1)).toEqual({ pending: false, transactions: '5', cash_outs: '4' });
    } finally {
      await r1.end();
      await r2.end();
    }
  }, 60_000);
});
