import { createKnex, isAppError, type Knex } from '@relay/shared';
import { withTimeout } from '../src/data/pagedList';

describe('Reporting query time limit', () => {
  let db: Knex;

  beforeAll(() => {
    db = createKnex(process.env.DATABASE_URL!, 2, 'test-reporting-timeout');
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('When a report runs past its time limit, then it is cancelled in PostgreSQL and answered 503 SERVICE_UNAVAILABLE', async () => {
    const marker = `timeout-probe-${process.pid}-${Date.now()}`;
    const error = await withTimeout(db.raw(`SELECT pg_sleep(20), '${marker}'`), 100).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
    // The statement does not keep a database connection busy after the answer: the cancel reaches
    // PostgreSQL in milliseconds; 10 s of polling leaves room for a loaded machine and still ends long
    // before the statement would have finished on its own.
    const running = async () => (await db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE ? AND state = 'active' AND pid <> pg_backend_pid()`, [`%'${marker}'%`])).rows[0].n as number;
    for (const until = Date.now() + 10_000; (await running()) > 0 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await running()).toBe(0);
  });
});
