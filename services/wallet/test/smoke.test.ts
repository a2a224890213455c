import { startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld } from '../../../test/game';

describe('wallet smoke', () => {
  let p: TestPlatform;
  let g: GameWorld;
  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
    g = await startGameWorld(p);
  });
  afterAll(async () => {
    await p.stop();
    await g.sandbox.close();
  });

  it('When a player bets and wins, then balances and records agree', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const v = await g.call('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}&currency=eur`);
    expect(v.status).toBe(200);
    const out = await g.call('POST', '/api/balance/cash-out', { sessionId: pl.sessionId, gameId: g.gameId, currency: 'EUR', roundId: 'r1', transactionId: 't1', amount: 10, game: { gameData: { b: 1, a: 2 } } });
    expect(out.body).toEqual({ id: pl.playerId, balance: 90, username: pl.playerId });
    const inn = await g.call('POST', '/api/balance/cash-in', { sessionId: pl.sessionId, gameId: g.gameId, currency: 'EUR', roundId: 'r1', transactionId: 't2', amount: 25.5, reason: 'NORMAL_WIN', appliedMultiplier: 2.55, previousTransactionId: 't1', betAmount: 10 });
    expect(inn.status).toBe(200);
    expect(inn.body.balance).toBe(115.5);
    const round = await p.db.primary('rounds').where({ provider_id: g.providerId, round_id: 'r1' }).first();
    expect(round.status).toBe('SETTLED');
    expect(round.game_data).toEqual({ b: 1, a: 2 });
  });
});
