import { startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { applied, attempts, betBody, transactionRow, winBody } from './money-support';
import { eventually } from '../../../test/faults/support/money';

/** Every row of the spec's Transaction state table, against the sandbox casino. */
describe('transaction states', () => {
  let p: TestPlatform;
  let g: GameWorld;
  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'], env: { CASINO_TIMEOUT_MS: '2000' } });
    g = await startGameWorld(p);
  });
  afterEach(() => g.sandbox.clearFaults());
  afterAll(async () => {
    await p.stop();
    await g.sandbox.close();
  });

  it('When a cash-out is received and the casino accepts it, then the record goes PENDING -> SUCCESS with the balance and completedAt', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl, { amount: 12.34 });
    const res = await g.call('POST', '/api/balance/cash-out', bet);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: pl.playerId, balance: 87.66, username: pl.playerId });
    const row = await transactionRow(p, g, bet.transactionId);
    expect(row).toMatchObject({ status: 'SUCCESS', category: 'CASH_OUT', amount: '12.34', balance: '87.66', attempt: 1, error_code: null, is_retry: false });
    expect(row.completed_at).toBeInstanceOf(Date);
    const audit = await attempts(p, g, bet.transactionId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ attempt: 1, outcome: 'SUCCESS', casino_status: 200 });
    expect(audit[0].request).toMatchObject({ transactionId: bet.transactionId, amount: 12.34 });
  });

  it('When the casino refuses the debit, then the record is FAILED with errorCode and errorMessage, and no round opens', async () => {
    const pl = await g.launchPlayer({ balance: 5 });
    const bet = betBody(g, pl, { amount: 10 });
    const res = await g.call('POST', '/api/balance/cash-out', bet);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('FUND_WITHDRAW_FAILED');
    const row = await transactionRow(p, g, bet.transactionId);
    expect(row).toMatchObject({ status: 'FAILED', error_code: 'FUND_WITHDRAW_FAILED' });
    expect(row.error_message).toMatch(/INSUFFICIENT_FUNDS/);
    expect(row.completed_at).toBeInstanceOf(Date);
    expect(await p.db.primary('rounds').where({ provider_id: g.providerId, round_id: bet.roundId }).first()).toBeUndefined();
  });

  it('When a SUCCESS transactionId is sent again, then the stored answer is replayed with 200 and the casino is not called', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    const first = await g.call('POST', '/api/balance/cash-out', bet);
    const callsBefore = g.sandbox.countCalls({ providerId: g.providerId, transactionId: bet.transactionId });
    g.sandbox.setBalance(g.providerId, pl.playerId, 500); // a replay must not show the casino's new balance
    const again = await g.call('POST', '/api/balance/cash-out', { ...bet, amount: 99 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(g.sandbox.countCalls({ providerId: g.providerId, transactionId: bet.transactionId })).toBe(callsBefore);
    expect(applied(g, bet.transactionId)).toBe(1);
  });

  it('When a FAILED transactionId is sent again, then a fresh attempt with the new body gets whatever the casino now answers', async () => {
    const pl = await g.launchPlayer({ balance: 5 });
    const bet = betBody(g, pl, { amount: 10 });
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(400);
    g.sandbox.setBalance(g.providerId, pl.playerId, 50);
    const retry = await g.call('POST', '/api/balance/cash-out', { ...bet, amount: 7.5 });
    expect(retry.status).toBe(200);
    expect(retry.body.balance).toBe(42.5);
    const row = await transactionRow(p, g, bet.transactionId);
    expect(row).toMatchObject({ status: 'SUCCESS', amount: '7.50', attempt: 2, error_code: null, error_message: null });
    const audit = await attempts(p, g, bet.transactionId);
    expect(audit.map((a) => [a.attempt, a.outcome, a.error_code])).toEqual([
      [1, 'FAILED', 'FUND_WITHDRAW_FAILED'],
      [2, 'SUCCESS', null],
    ]);
    expect(audit[0].request.amount).toBe(10); // what was asked the first time stays on record
  });

  it('When a PENDING transactionId younger than the window is sent again, then it answers 409 TRANSACTION_IN_FLIGHT with Retry-After', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, { kind: 'delay', ms: 1000 });
    const first = g.call('POST', '/api/balance/cash-out', bet);
    // Claimed PENDING before the casino is asked: once the casino holds it, the repeat is in flight.
    await eventually(() => g.sandbox.countCalls({ transactionId: bet.transactionId }) === 1, 10_000, 'the debit to wait on the casino');
    const second = await g.call('POST', '/api/balance/cash-out', bet);
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('TRANSACTION_IN_FLIGHT');
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await first).status).toBe(200);
    expect(applied(g, bet.transactionId)).toBe(1);
    // The identical request after the first finished replays it.
    expect((await g.call('POST', '/api/balance/cash-out', bet)).body).toEqual((await first).body);
  });

  it('When a PENDING transactionId older than the window is sent again, then it is treated as abandoned and attempted afresh', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    // An attempt that never got an answer: a PENDING record claimed 61 seconds ago (a crashed process).
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, { kind: 'malformed' }, 1);
    await g.call('POST', '/api/balance/cash-out', bet);
    await p.db.primary('transactions').where({ provider_id: g.providerId, transaction_id: bet.transactionId }).update({
      status: 'PENDING',
      error_code: null,
      completed_at: null,
      claimed_at: p.db.primary.raw("now() - interval '61 seconds'"),
    });
    const res = await g.call('POST', '/api/balance/cash-out', bet);
    expect(res.status).toBe(200);
    expect(await transactionRow(p, g, bet.transactionId)).toMatchObject({ status: 'SUCCESS', attempt: 2 });

    // ...and one claimed 5 seconds ago is still in flight.
    const other = betBody(g, pl);
    await g.call('POST', '/api/balance/cash-out', other);
    await p.db.primary('transactions').where({ provider_id: g.providerId, transaction_id: other.transactionId }).update({
      status: 'PENDING',
      claimed_at: p.db.primary.raw("now() - interval '5 seconds'"),
    });
    const busy = await g.call('POST', '/api/balance/cash-out', other);
    expect(busy.status).toBe(409);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(54);
  });

  it('When a credit fails and is retried with the same transactionId, then exactly one credit reaches the player', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    await g.call('POST', '/api/balance/cash-out', bet);
    const win = winBody(g, pl, bet, { amount: 30 });
    g.sandbox.setFault({ providerId: g.providerId, operation: 'credit', playerId: pl.playerId }, { kind: 'error', status: 503 }, 1);
    const failed = await g.call('POST', '/api/balance/cash-in', win);
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe('PROVIDER_API_FAILURE');
    expect(await transactionRow(p, g, win.transactionId)).toMatchObject({ status: 'FAILED', error_code: 'PROVIDER_API_FAILURE' });
    const retry = await g.call('POST', '/api/balance/cash-in/retry', win);
    expect(retry.status).toBe(200);
    expect(retry.body.balance).toBe(120);
    expect(await transactionRow(p, g, win.transactionId)).toMatchObject({ status: 'SUCCESS', is_retry: true, attempt: 2 });
    expect(applied(g, win.transactionId)).toBe(1);
  });

  it('When a transactionId of a debit is reused for a credit, then it is refused and nothing moves', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl);
    await g.call('POST', '/api/balance/cash-out', bet);
    const res = await g.call('POST', '/api/balance/cash-in', winBody(g, pl, bet, { transactionId: bet.transactionId }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    expect(g.sandbox.journal({ providerId: g.providerId, playerId: pl.playerId })).toHaveLength(1);
  });

  it('When a FAILED transactionId is sent again for another player, then it is refused and neither player is charged', async () => {
    const a = await g.launchPlayer({ balance: 5 });
    const b = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, a, { amount: 10 });
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(400); // A cannot afford it: FAILED
    const stolen = await g.call('POST', '/api/balance/cash-out', { ...bet, sessionId: b.sessionId });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('Bad Request');
    expect(await transactionRow(p, g, bet.transactionId)).toMatchObject({ status: 'FAILED', player_id: a.playerId, attempt: 1 });
    expect(g.sandbox.getPlayer(g.providerId, b.playerId)!.balance).toBe(100);
    expect(applied(g, bet.transactionId)).toBe(0);
  });
});
