import { startGameWorld, type GameWorld } from '../game';
import { startPlatform, uniqueId, type TestPlatform } from '../platform';

/**
 * A replay of a SUCCESS is what every game sends after an outage, all at once: it must cost reads
 * only. No row lock (the tuple's xmax stays), no new row version, no attempt row, no WAL and so no
 * wait for a commit to disk. WAL is counted for the whole cluster, so this file runs in the serial
 * phase of `npm test`, alone on the database server.
 */
let p: TestPlatform;
let world: GameWorld;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
  world = await startGameWorld(p);
}, 60000);
afterAll(async () => {
  await p?.stop();
  await world?.sandbox.close();
});

const walLsn = async () => (await p.db.primary.raw('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn as string;
const walBytes = async (from: string, to: string) => Number((await p.db.primary.raw('SELECT pg_wal_lsn_diff(?::pg_lsn, ?::pg_lsn) AS d', [to, from])).rows[0].d);

describe('replays', () => {
  it('When a successful cash-out is repeated 200 times, then each answer is the stored one and PostgreSQL writes nothing: no lock, no row version, no attempt, no WAL', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    const body = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 12.34 };
    const first = await world.call('POST', '/api/balance/cash-out', body);
    expect(first.status).toBe(200);
    expect(first.body.balance).toBe(87.66);
    world.sandbox.setBalance(world.providerId, player.playerId, 5); // the casino moves on; the replay must not ask it

    const tuple = () =>
      p.db.primary('transactions').where({ provider_id: world.providerId, transaction_id: body.transactionId }).first(p.db.primary.raw('xmax::text AS xmax'), p.db.primary.raw('ctid::text AS ctid'), 'attempt');
    // The idempotency key the replay is found by (007_ledger_partitions): no lock on it either.
    const keyTuple = () =>
      p.db.primary('transaction_keys').where({ provider_id: world.providerId, transaction_id: body.transactionId }).first(p.db.primary.raw('xmax::text AS xmax'), p.db.primary.raw('ctid::text AS ctid'));
    const attempts = async () => Number((await p.db.primary('transaction_attempts as a').join('transactions as t', 't.id', 'a.transaction_pk').where({ 't.transaction_id': body.transactionId }).count({ n: '*' }))[0].n);
    const before = await tuple();
    const keyBefore = await keyTuple();
    const attemptsBefore = await attempts();
    const casinoCalls = world.sandbox.countCalls({ providerId: world.providerId });

    // Three windows of 200 replays; the quietest shows what a replay writes (background work of
    // the server, a checkpoint or autovacuum, can land in any one window).
    const perWindow: number[] = [];
    for (let w = 0; w < 3; w++) {
      const from = await walLsn();
      for (let i = 0; i < 200; i += 20) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => world.call('POST', '/api/balance/cash-out', body)));
        for (const a of answers) expect({ status: a.status, body: a.body }).toEqual({ status: 200, body: first.body });
      }
      perWindow.push(await walBytes(from, await walLsn()));
    }
    expect(await tuple()).toEqual(before);
    expect(before.xmax).toBe('0');
    expect(await keyTuple()).toEqual(keyBefore);
    expect(keyBefore.xmax).toBe('0');
    expect(await attempts()).toBe(attemptsBefore);
    expect(world.sandbox.countCalls({ providerId: world.providerId })).toBe(casinoCalls);
    // A replay that took a row lock wrote a lock record and a commit record: over 100 bytes each.
    expect(Math.min(...perWindow)).toBeLessThan(2000);
  }, 60000);

  it('When 20 identical new cash-outs arrive at once, then the casino is debited once and every 200 carries the same answer', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    const body = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 1 };
    const answers = await Promise.all(Array.from({ length: 20 }, () => world.call('POST', '/api/balance/cash-out', body)));
    for (const a of answers) expect([200, 409]).toContain(a.status);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of ok) expect(a.body).toEqual({ id: player.playerId, balance: 99, username: expect.any(String) });
    expect(world.sandbox.journal({ providerId: world.providerId, transactionId: body.transactionId }).length).toBe(1);
  });
});
