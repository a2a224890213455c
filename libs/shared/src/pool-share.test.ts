import { createKnex, type Knex } from './db';
import { currentContext, runWithContext } from './context';
import { finishingWork, sharePoolByTenant } from './pool-share';

/** Real PostgreSQL: a pool of 4 where one tenant may hold 2 connections at once. */
describe('sharePoolByTenant', () => {
  let db: Knex;
  beforeAll(async () => {
    db = createKnex(process.env.DATABASE_URL!, 4, 'pool-share-test');
    sharePoolByTenant(db, 2, () => currentContext()?.groupId, 2000);
    // All four connections open before the races below: opening one on a loaded machine can take
    // longer than the 400 ms by which the other tenant's statement must beat the slow ones.
    await Promise.all(Array.from({ length: 4 }, () => db.raw('select pg_sleep(0.05)')));
  });
  afterAll(() => db.destroy());
  const as = <T>(who: string, fn: () => PromiseLike<T>): Promise<T> => runWithContext({ requestId: who, groupId: who }, async () => fn());

  it('When one tenant runs more slow statements than its share, then another tenant is served before they finish', async () => {
    const done: string[] = [];
    const slow = Array.from({ length: 4 }, (_, i) => as('a', () => db.raw('select pg_sleep(0.5)')).then(() => done.push(`a${i}`)));
    await new Promise((r) => setTimeout(r, 100));
    await as('b', () => db.raw('select 1')).then(() => done.push('b'));
    await Promise.all(slow);
    // b had a free connection at once; without the cap all four would have gone to a.
    expect(done[0]).toBe('b');
    expect(done.length).toBe(5);
  });

  it('When a tenant holds its whole share inside transactions, then its next one waits for them, not for the time-out', async () => {
    const order: string[] = [];
    const started = Date.now();
    const trx = (label: string) =>
      as('c', () =>
        db.transaction(async (t) => {
          await t.raw('select pg_sleep(0.2)');
          order.push(label);
        }),
      );
    await Promise.all([trx('1'), trx('2'), trx('3')]);
    expect(order.sort()).toEqual(['1', '2', '3']);
    // Two at a time: the third ran after one of the first two, well inside the 2 s time-out.
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('When a tenant holds its whole share, then its finishing writes (a casino answer to record) do not queue behind it', async () => {
    const done: string[] = [];
    const slow = Array.from({ length: 2 }, (_, i) => as('d', () => db.raw('select pg_sleep(0.5)')).then(() => done.push(`claim${i}`)));
    await new Promise((r) => setTimeout(r, 100));
    await as('d', () =>
      finishingWork(async () => {
        await db.raw('select 1');
      }),
    ).then(() => done.push('outcome'));
    await Promise.all(slow);
    expect(done[0]).toBe('outcome');
  });
});
