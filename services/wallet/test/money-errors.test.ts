import { startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld, type Player } from '../../../test/game';
import { applied, betBody, countRecords, transactionRow, winBody } from './money-support';

/** The spec's money route handling table and body validation, against the sandbox casino. */
describe('money route errors', () => {
  let p: TestPlatform;
  let g: GameWorld;
  let pl: Player;
  beforeAll(async () => {
    // 1 s: ordinary casino calls answer in time even from a worker stalled on a loaded machine; the
    // delays meant to time out (1500 ms) stay well over it.
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'], env: { CASINO_TIMEOUT_MS: '1000' } });
    g = await startGameWorld(p);
    pl = await g.launchPlayer({ balance: 1000 });
  });
  afterEach(() => g.sandbox.clearFaults());
  afterAll(async () => {
    await p.stop();
    await g.sandbox.close();
  });

  const debitFault = (fault: Parameters<GameWorld['sandbox']['setFault']>[1], times = 1) =>
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, fault, times);

  it.each([
    ['the casino answers 5xx to the debit', 500, 'CASHOUT_FAILED', { kind: 'error', status: 500 }],
    ['the casino rejects the player token', 403, 'AUTHENTICATION_TOKEN_EXPIRED', { kind: 'tokenExpired' }],
    ['the casino answers 200 without a balance', 502, 'INVALID_PROVIDER_RESPONSE', { kind: 'malformed', body: 'no-balance' }],
    ['the casino answers 200 with something that is not JSON', 502, 'INVALID_PROVIDER_RESPONSE', { kind: 'malformed', body: 'not-json' }],
    ['the casino answers later than the time-out', 408, 'INTEGRATION_TIMED_OUT', { kind: 'delay', ms: 1500 }],
    ['the casino hangs up without answering', 502, 'PROVIDER_API_FAILURE', { kind: 'reset', applyFirst: false }],
  ] as const)('When %s, then the cash-out answers %i %s, stores the code and opens no round', async (_what, status, code, fault) => {
    debitFault(fault as never);
    const bet = betBody(g, pl);
    const res = await g.call('POST', '/api/balance/cash-out', bet);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: code, message: expect.any(String) });
    const row = await transactionRow(p, g, bet.transactionId);
    expect(row).toMatchObject({ status: 'FAILED', error_code: code });
    expect(row.error_message.length).toBeGreaterThan(5);
    expect(await p.db.primary('rounds').where({ provider_id: g.providerId, round_id: bet.roundId }).first()).toBeUndefined();
    if (fault.kind === 'delay') {
      // The slow casino still applies the debit after the relay gave up: let it land here, not in
      // the middle of the next test's balance arithmetic (the ambiguity itself is the next test's).
      for (let i = 0; i < 200 && applied(g, bet.transactionId) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(applied(g, bet.transactionId)).toBe(1);
    }
  });

  it('When a debit timed out after the casino applied it, then repeating it with the same transactionId settles the ambiguity with one debit', async () => {
    debitFault({ kind: 'delay', ms: 1500, applyFirst: true });
    const bet = betBody(g, pl, { amount: 3 });
    const balanceBefore = g.sandbox.getPlayer(g.providerId, pl.playerId)!.balance;
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(408);
    const again = await g.call('POST', '/api/balance/cash-out', bet);
    expect(again.status).toBe(200);
    expect(again.body.balance).toBe(balanceBefore - 3);
    expect(applied(g, bet.transactionId)).toBe(1);
    expect(await p.db.primary('rounds').where({ provider_id: g.providerId, round_id: bet.roundId }).first()).toMatchObject({ status: 'OPEN' });
  });

  it('When the connection resets after the casino applied the debit, then the repeat completes it without a second debit', async () => {
    debitFault({ kind: 'reset', applyFirst: true });
    const bet = betBody(g, pl, { amount: 4 });
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(502);
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
    expect(applied(g, bet.transactionId)).toBe(1);
  });

  it('When a cash-in times out, then it is FAILED with INTEGRATION_TIMED_OUT and the player is owed it until a retry succeeds', async () => {
    const bet = betBody(g, pl);
    await g.call('POST', '/api/balance/cash-out', bet);
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'credit' }, { kind: 'delay', ms: 1500 }, 1);
    const win = winBody(g, pl, bet);
    const res = await g.call('POST', '/api/balance/cash-in', win);
    expect(res.status).toBe(408);
    expect(await transactionRow(p, g, win.transactionId)).toMatchObject({ status: 'FAILED', error_code: 'INTEGRATION_TIMED_OUT' });
    expect((await g.call('POST', '/api/balance/cash-in/retry', win)).status).toBe(200);
    expect(applied(g, win.transactionId)).toBe(1);
  });

  it('When the session is unknown, then money routes answer 403 SESSION_EXPIRED', async () => {
    const res = await g.call('POST', '/api/balance/cash-out', betBody(g, { ...pl, sessionId: 'no-such-session' }));
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('SESSION_EXPIRED');
  });

  it('When the body names another game or currency than the session, then 400 SESSION_GAME_MISMATCH / SESSION_CURRENCY_MISMATCH', async () => {
    const game = await g.call('POST', '/api/balance/cash-out', betBody(g, pl, { gameId: g.gameId + 1 }));
    expect(game.status).toBe(400);
    expect(game.body.error).toBe('SESSION_GAME_MISMATCH');
    const currency = await g.call('POST', '/api/balance/cash-out', betBody(g, pl, { currency: 'USD' }));
    expect(currency.body.error).toBe('SESSION_CURRENCY_MISMATCH');
    const lower = await g.call('POST', '/api/balance/cash-out', betBody(g, pl, { currency: pl.currency.toLowerCase() }));
    expect(lower.status).toBe(200);
  });

  describe('body validation: 400 Bad Request, the casino is not called and nothing is written', () => {
    const bet = () => betBody(g, pl);
    const win = () => winBody(g, pl, { roundId: 'r-validation', transactionId: 'b-validation', amount: 1 });
    const cases: [string, string, () => Record<string, unknown>][] = [
      ['amount with 3 decimals (10.005)', '/api/balance/cash-out', () => ({ ...bet(), amount: 10.005 })],
      ['a negative amount', '/api/balance/cash-out', () => ({ ...bet(), amount: -1 })],
      ['an amount as a string', '/api/balance/cash-out', () => ({ ...bet(), amount: '10' })],
      ['a missing amount', '/api/balance/cash-out', () => ({ ...bet(), amount: undefined })],
      ['a huge amount', '/api/balance/cash-out', () => ({ ...bet(), amount: 1e300 })],
      ['a transactionId with a colon', '/api/balance/cash-out', () => ({ ...bet(), transactionId: 'a:b' })],
      ['a roundId with a colon', '/api/balance/cash-out', () => ({ ...bet(), roundId: 'r:1' })],
      ['a missing sessionId', '/api/balance/cash-out', () => ({ ...bet(), sessionId: undefined })],
      ['a gameId as a string', '/api/balance/cash-out', () => ({ ...bet(), gameId: String(g.gameId) })],
      ['gameData that is not an object', '/api/balance/cash-out', () => ({ ...bet(), game: { gameData: 'x' } })],
      ['a reason not in the table', '/api/balance/cash-in', () => ({ ...win(), reason: 'JACKPOT' })],
      ['a missing appliedMultiplier', '/api/balance/cash-in', () => ({ ...win(), appliedMultiplier: undefined })],
      ['a negative appliedMultiplier', '/api/balance/cash-in', () => ({ ...win(), appliedMultiplier: -1 })],
      ['a betAmount with 3 decimals', '/api/balance/cash-in', () => ({ ...win(), betAmount: 1.001 })],
      ['a missing reason on retry', '/api/balance/cash-in/retry', () => ({ ...win(), reason: undefined })],
      ['an array body', '/api/balance/cash-in', () => [win()] as unknown as Record<string, unknown>],
      ['a NUL in transactionId', '/api/balance/cash-out', () => ({ ...bet(), transactionId: 'a\u0000b' })],
      ['a NUL in language', '/api/balance/cash-out', () => ({ ...bet(), language: 'e\u0000n' })],
      ['a NUL in a gameData key', '/api/balance/cash-out', () => ({ ...bet(), game: { gameData: { 'k\u0000': 1 } } })],
      ['a NUL deep inside gameData', '/api/balance/cash-out', () => ({ ...bet(), game: { gameData: JSON.parse('{"a":'.repeat(500) + '"x\\u0000"' + '}'.repeat(500)) } })],
      // PostgreSQL would store each as U+FFFD: distinct ids would become one record, the second a replay moving no money.
      ['an unpaired surrogate in transactionId', '/api/balance/cash-out', () => ({ ...bet(), transactionId: 'bet-\ud800' })],
      ['an unpaired surrogate in roundId', '/api/balance/cash-in', () => ({ ...win(), roundId: 'round-\udc00' })],
      ['an unpaired surrogate inside gameData', '/api/balance/cash-out', () => ({ ...bet(), game: { gameData: { note: 'x\ud83d' } } })],
      // JSON.parse('99999999999999.99') is ...98: the game's cent cannot be read back exactly.
      ['an amount too large for a JSON number to hold its cents', '/api/balance/cash-out', () => ({ ...bet(), amount: JSON.parse('99999999999999.99') as number })],
    ];
    it.each(cases)('When the body has %s', async (_what, path, body) => {
      const calls = g.sandbox.countCalls({ providerId: g.providerId });
      const records = await countRecords(p, g);
      const res = await g.call('POST', path, body());
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Bad Request');
      expect(g.sandbox.countCalls({ providerId: g.providerId })).toBe(calls);
      expect(await countRecords(p, g)).toEqual(records);
    });
  });

  describe('balance read', () => {
    it('When the balance is read twice, then the casino is asked twice and its balance is rounded half-up', async () => {
      const before = g.sandbox.countCalls({ providerId: g.providerId, operation: 'balance' });
      g.sandbox.setBalance(g.providerId, pl.playerId, '10.125');
      g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'balance' }, { kind: 'balanceAsString', decimals: 3 }, 1);
      const first = await g.call('GET', `/api/account?sessionId=${pl.sessionId}&currency=${pl.currency}`);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ id: pl.playerId, balance: 10.13, username: pl.playerId });
      await g.call('GET', `/api/account?sessionId=${pl.sessionId}`);
      expect(g.sandbox.countCalls({ providerId: g.providerId, operation: 'balance' })).toBe(before + 2);
      g.sandbox.setBalance(g.providerId, pl.playerId, 1000);
    });

    it('When the balance read names another currency or no session, then 400', async () => {
      expect((await g.call('GET', `/api/account?sessionId=${pl.sessionId}&currency=XXX`)).body.error).toBe('SESSION_CURRENCY_MISMATCH');
      expect((await g.call('GET', '/api/account')).body.error).toBe('Bad Request');
    });
  });
});
