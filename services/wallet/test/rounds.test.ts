import { startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { adminPut } from '../../../test/provision';
import { betBody, roundRow, transactionRow, winBody } from './money-support';
import { eventually } from '../../../test/faults/support/money';

/** Every row of the spec's Round state table, and which cash-in reasons settle a round. */
describe('round states', () => {
  let p: TestPlatform;
  let g: GameWorld;
  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
    g = await startGameWorld(p, { creditOnDisconnect: true, refundOnCreditFail: true });
  });
  afterAll(async () => {
    await p.stop();
    await g.sandbox.close();
  });

  it('When a cash-out succeeds, then an OPEN round holds the stake and gameData exactly as submitted', async () => {
    const pl = await g.launchPlayer();
    const gameData = { zeta: 1, alpha: [3, 2, 1], nested: { b: 'x', a: null }, unicode: 'ståke €' };
    const bet = betBody(g, pl, { amount: 2.5, language: 'de', game: { gameData, meta: { ignored: true } } });
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
    const round = await roundRow(p, g, bet.roundId);
    expect(round).toMatchObject({ status: 'OPEN', bet_amount: '2.50', bet_transaction_id: bet.transactionId, player_id: pl.playerId, language: 'de', payout_amount: null });
    expect(JSON.stringify(round.game_data)).toBe(JSON.stringify(gameData)); // key order kept too
    // gameData is never forwarded to the casino.
    const call = g.sandbox.calls({ transactionId: bet.transactionId })[0];
    expect(call.body).not.toHaveProperty('game');
    expect(JSON.stringify(call.body)).not.toContain('alpha');
  });

  it('When a settling cash-in succeeds, then the round records payout, multiplier, reason, outcome, settlementData and settledAt', async () => {
    const pl = await g.launchPlayer();
    const bet = betBody(g, pl);
    await g.call('POST', '/api/balance/cash-out', bet);
    const settlementData = { crashPoint: 2.31, seed: 'abc' };
    const win = winBody(g, pl, bet, { amount: 23.1, appliedMultiplier: 2.31, game: { outcome: 'WIN', settlementData } });
    expect((await g.call('POST', '/api/balance/cash-in', win)).status).toBe(200);
    const round = await roundRow(p, g, bet.roundId);
    expect(round).toMatchObject({
      status: 'SETTLED',
      payout_amount: '23.10',
      applied_multiplier: '2.31',
      settle_transaction_id: win.transactionId,
      settle_reason: 'NORMAL_WIN',
      outcome: 'WIN',
    });
    expect(round.settlement_data).toEqual(settlementData);
    expect(round.settled_at).toBeInstanceOf(Date);
    expect(await transactionRow(p, g, win.transactionId)).toMatchObject({ previous_transaction_id: bet.transactionId, bet_amount: '10.00', reason: 'NORMAL_WIN' });
  });

  it('When a settling cash-in succeeds while its cash-out is still waiting on the casino, then the round opens already settled by it', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    // The casino holds the debit 2.5 s: time for the cash-in below on a loaded machine.
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, { kind: 'delay', ms: 2500 }, 1);
    const debit = g.call('POST', '/api/balance/cash-out', bet);
    await eventually(() => g.sandbox.countCalls({ transactionId: bet.transactionId }) === 1, 10_000, 'the debit to wait on the casino');
    const settlementData = { crashPoint: 1.5 };
    const win = winBody(g, pl, bet, { amount: 15, appliedMultiplier: 1.5, game: { outcome: 'WIN', settlementData } });
    expect((await g.call('POST', '/api/balance/cash-in', win)).status).toBe(200);
    expect(await roundRow(p, g, bet.roundId)).toBeUndefined(); // nothing to settle yet
    expect((await debit).status).toBe(200);
    const round = await roundRow(p, g, bet.roundId);
    expect(round).toMatchObject({
      status: 'SETTLED',
      bet_amount: '10.00',
      bet_transaction_id: bet.transactionId,
      payout_amount: '15.00',
      applied_multiplier: '1.5',
      settle_transaction_id: win.transactionId,
      settle_reason: 'NORMAL_WIN',
      outcome: 'WIN',
    });
    expect(round.settlement_data).toEqual(settlementData);
    expect(round.settled_at).toEqual((await transactionRow(p, g, win.transactionId)).completed_at);
  });

  it('When a failed cash-out is refunded and then repeated with success, then its round opens settled by the refund; a credit that settles no bet leaves it OPEN', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, { kind: 'error', status: 500 }, 1);
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(500);
    const refund = winBody(g, pl, bet, { amount: 10, reason: 'CASHOUT_FAILED', appliedMultiplier: 1 });
    expect((await g.call('POST', '/api/balance/cash-in', refund)).status).toBe(200);
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'SETTLED', settle_transaction_id: refund.transactionId, settle_reason: 'CASHOUT_FAILED', payout_amount: '10.00' });

    const other = betBody(g, pl);
    const freebet = winBody(g, pl, other, { amount: 3, reason: 'FREEBET_WIN', previousTransactionId: undefined });
    expect((await g.call('POST', '/api/balance/cash-in', freebet)).status).toBe(200);
    expect((await g.call('POST', '/api/balance/cash-out', other)).status).toBe(200);
    expect(await roundRow(p, g, other.roundId)).toMatchObject({ status: 'OPEN', settle_transaction_id: null, payout_amount: null });
  });

  it('When a second cash-in reaches a settled round, then the credit is recorded and moves money but the round keeps its first settlement', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    await g.call('POST', '/api/balance/cash-out', bet);
    await g.call('POST', '/api/balance/cash-in', winBody(g, pl, bet, { amount: 0, reason: 'BET_LOST', appliedMultiplier: 0 }));
    const second = winBody(g, pl, bet, { amount: 15 });
    const res = await g.call('POST', '/api/balance/cash-in', second);
    expect(res.status).toBe(200);
    expect(res.body.balance).toBe(105);
    expect(await transactionRow(p, g, second.transactionId)).toMatchObject({ status: 'SUCCESS' });
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'SETTLED', settle_reason: 'BET_LOST', payout_amount: '0.00' });
  });

  it('When a second cash-out reuses an open roundId, then money still moves and the round is left as it was', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl, { amount: 10, game: { gameData: { first: true } } });
    await g.call('POST', '/api/balance/cash-out', bet);
    const again = betBody(g, pl, { roundId: bet.roundId, amount: 5, game: { gameData: { first: false } } });
    const res = await g.call('POST', '/api/balance/cash-out', again);
    expect(res.status).toBe(200);
    expect(res.body.balance).toBe(85);
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ bet_amount: '10.00', bet_transaction_id: bet.transactionId, game_data: { first: true } });
    expect(await transactionRow(p, g, again.transactionId)).toMatchObject({ status: 'SUCCESS', round_id: bet.roundId });
  });

  it('When a freebet or disconnect credit arrives without a bet, then it is a transaction only and no round is created', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    for (const reason of ['FREEBET_WIN', 'FREEBET_LOST', 'DISCONNECT_NORMAL_WIN', 'DISCONNECT_REVERSE_FUND', 'DISCONNECT_FREEBET_WIN']) {
      const body = winBody(g, pl, { roundId: `${reason}-${pl.playerId}`, transactionId: 'none', amount: 0 }, {
        reason,
        amount: reason.endsWith('LOST') ? 0 : 3,
        appliedMultiplier: reason.includes('WIN') ? 1.5 : 0,
        previousTransactionId: undefined,
        awardId: reason.includes('FREEBET') ? 'award-1' : undefined,
        campaignId: reason.includes('FREEBET') ? 'camp-1' : undefined,
        isLastFreebet: reason.includes('FREEBET') ? true : undefined,
      });
      const res = await g.call('POST', '/api/balance/cash-in', body);
      expect({ reason, status: res.status }).toEqual({ reason, status: 200 });
      expect(await roundRow(p, g, body.roundId)).toBeUndefined();
      const tx = await transactionRow(p, g, body.transactionId);
      expect(tx).toMatchObject({ status: 'SUCCESS', reason, category: 'CASH_IN' });
      if (reason.includes('FREEBET')) {
        expect(tx).toMatchObject({ award_id: 'award-1', campaign_id: 'camp-1', is_last_freebet: true });
        const sent = g.sandbox.calls({ transactionId: body.transactionId })[0].body!;
        expect(sent).toMatchObject({ awardId: 'award-1', campaignId: 'camp-1', isLastFreebet: true, isRetry: false });
      }
    }
  });

  it('When every bet-settling reason is used, then each settles its round', async () => {
    const pl = await g.launchPlayer({ balance: 1000 });
    for (const reason of ['NORMAL_WIN', 'BET_LOST', 'REVERSE_FUND', 'ROUND_CHANGED', 'PHASE_CHANGED', 'TIMEOUT_EXCEEDED', 'CASHOUT_FAILED', 'INTEGRATION_TIMED_OUT', 'INTERNAL_ERROR']) {
      const bet = betBody(g, pl, { amount: 1 });
      await g.call('POST', '/api/balance/cash-out', bet);
      const res = await g.call('POST', '/api/balance/cash-in', winBody(g, pl, bet, { reason, amount: reason === 'BET_LOST' ? 0 : 1, appliedMultiplier: reason === 'NORMAL_WIN' ? 1 : 0 }));
      expect({ reason, status: res.status }).toEqual({ reason, status: 200 });
      expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'SETTLED', settle_reason: reason });
    }
  });

  it('When a casino has not enabled refunds on credit fail or credits on disconnect, then those reasons are refused before the casino', async () => {
    const plain = await startGameWorld(p, { sandbox: g.sandbox });
    const pl = await plain.launchPlayer();
    const bet = betBody(plain, pl);
    await plain.call('POST', '/api/balance/cash-out', bet);
    const before = g.sandbox.countCalls({ providerId: plain.providerId });
    for (const reason of ['CASHOUT_FAILED', 'DISCONNECT_NORMAL_WIN', 'DISCONNECT_REVERSE_FUND']) {
      const res = await plain.call('POST', '/api/balance/cash-in', winBody(plain, pl, bet, { reason, appliedMultiplier: 0 }));
      expect({ reason, status: res.status, error: res.body.error }).toEqual({ reason, status: 400, error: 'Bad Request' });
    }
    expect(g.sandbox.countCalls({ providerId: plain.providerId })).toBe(before);
  });

  it("When another player's credit names a player's open round, then the credit is recorded but that round is not settled", async () => {
    const a = await g.launchPlayer({ balance: 100 });
    const b = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, a);
    await g.call('POST', '/api/balance/cash-out', bet);
    const wrong = await g.call('POST', '/api/balance/cash-in', winBody(g, b, bet, { amount: 0, reason: 'BET_LOST', appliedMultiplier: 0 }));
    expect(wrong.status).toBe(200);
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'OPEN', player_id: a.playerId });
    expect((await g.call('POST', '/api/balance/cash-in', winBody(g, a, bet, { amount: 25 }))).status).toBe(200);
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'SETTLED', payout_amount: '25.00', settle_reason: 'NORMAL_WIN' });
  });

  it('When a casino switches a refund reason off, then an earlier successful credit with it is still replayed', async () => {
    const w = await startGameWorld(p, { sandbox: g.sandbox, refundOnCreditFail: true });
    const pl = await w.launchPlayer({ balance: 100 });
    const bet = betBody(w, pl);
    await w.call('POST', '/api/balance/cash-out', bet);
    const refund = winBody(w, pl, bet, { reason: 'CASHOUT_FAILED', amount: 10, appliedMultiplier: 0 });
    const first = await w.call('POST', '/api/balance/cash-in', refund);
    expect(first.status).toBe(200);
    expect((await adminPut(p, `casinos/${w.providerId}`, { name: 'no refunds', walletUrl: w.walletUrl, refundOnCreditFail: false })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    const again = await w.call('POST', '/api/balance/cash-in', refund);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const fresh = await w.call('POST', '/api/balance/cash-in', { ...refund, transactionId: `${refund.transactionId}-2` });
    expect(fresh.status).toBe(400);
  });
});
