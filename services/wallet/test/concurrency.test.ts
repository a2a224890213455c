import { startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { applied, attempts, betBody, transactionRow } from './money-support';

describe('concurrent identical money calls', () => {
  let p: TestPlatform;
  let g: GameWorld;
  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
    g = await startGameWorld(p);
  });
  afterEach(() => g.sandbox.clearFaults());
  afterAll(async () => {
    await p.stop();
    await g.sandbox.close();
  });

  it('When 50 identical cash-outs arrive at once, then the casino is debited exactly once and the rest get 409 or the replay', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl, { amount: 10 });
    // A casino that takes a moment, so most duplicates arrive while the first is in flight.
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, { kind: 'delay', ms: 200 });
    const results = await Promise.all(Array.from({ length: 50 }, () => g.call('POST', '/api/balance/cash-out', bet)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    for (const ok of results.filter((r) => r.status === 200)) expect(ok.body).toEqual({ id: pl.playerId, balance: 90, username: pl.playerId });
    for (const busy of results.filter((r) => r.status === 409)) expect(busy.body.error).toBe('TRANSACTION_IN_FLIGHT');
    expect(g.sandbox.countCalls({ providerId: g.providerId, transactionId: bet.transactionId, operation: 'debit' })).toBe(1);
    expect(applied(g, bet.transactionId)).toBe(1);
    expect(g.sandbox.getPlayer(g.providerId, pl.playerId)!.balance).toBe(90);
    expect(await transactionRow(p, g, bet.transactionId)).toMatchObject({ status: 'SUCCESS', attempt: 1 });
    expect(await attempts(p, g, bet.transactionId)).toHaveLength(1);
  });

  it('When 50 identical cash-outs race a FAILED record, then only one fresh attempt reaches the casino', async () => {
    const pl = await g.launchPlayer({ balance: 5 });
    const bet = betBody(g, pl, { amount: 10 });
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(400);
    g.sandbox.setBalance(g.providerId, pl.playerId, 100);
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, { kind: 'delay', ms: 200 });
    const results = await Promise.all(Array.from({ length: 50 }, () => g.call('POST', '/api/balance/cash-out', bet)));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(applied(g, bet.transactionId)).toBe(1);
    expect(g.sandbox.countCalls({ providerId: g.providerId, transactionId: bet.transactionId, operation: 'debit' })).toBe(2);
    expect(await attempts(p, g, bet.transactionId)).toHaveLength(2);
  });

  it('When many different bets of one player arrive at once, then every one is debited exactly once', async () => {
    const pl = await g.launchPlayer({ balance: 1000 });
    const bets = Array.from({ length: 40 }, () => betBody(g, pl, { amount: 1.25 }));
    const results = await Promise.all(bets.map((b) => g.call('POST', '/api/balance/cash-out', b)));
    expect(results.map((r) => r.status)).toEqual(bets.map(() => 200));
    expect(g.sandbox.getPlayer(g.providerId, pl.playerId)!.balance).toBe(950);
    for (const b of bets) expect(applied(g, b.transactionId)).toBe(1);
  });
});
