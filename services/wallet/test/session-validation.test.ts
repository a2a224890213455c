import { randomUUID } from 'node:crypto';
import { startCasinoSandbox, type CasinoSandbox, type Fault } from '@relay/casino-sandbox';
import { startGameWorld, type GameWorld, type Player } from '../../../test/game';
import { http, startPlatform, uniqueGameId, type TestPlatform } from '../../../test/platform';
import { adminDelete, adminPut } from '../../../test/provision';

/**
 * Spec, Validate session and the session validation errors: a 200 means the session exists for
 * that game and currency, the caller owns the game, and the casino just confirmed the player's
 * token with exactly one balance call. Every failure is an envelope error.
 */
const CASINO_TIMEOUT_MS = 1000;
let p: TestPlatform;
let sandbox: CasinoSandbox;
let g: GameWorld;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'], env: { CASINO_TIMEOUT_MS: String(CASINO_TIMEOUT_MS) } });
  sandbox = await startCasinoSandbox();
  g = await startGameWorld(p, { sandbox });
});
afterAll(async () => {
  await p.stop();
  await sandbox.close();
});

type Answer = Awaited<ReturnType<typeof http>>;

function validate(world: GameWorld, sessionId: string, query: Record<string, string | number> = { gameId: world.gameId }): Promise<Answer> {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return world.call('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}?${q}`);
}

/** Balance calls the casino received for one player. */
const balanceCalls = (world: GameWorld, pl: Player) => sandbox.countCalls({ operation: 'balance', providerId: world.providerId, playerId: pl.playerId });

/** Validates and reports how many casino calls that one validation made. */
async function validateCounting(world: GameWorld, pl: Player, query?: Record<string, string | number>): Promise<{ res: Answer; calls: number }> {
  const before = balanceCalls(world, pl);
  const res = await validate(world, pl.sessionId, query);
  return { res, calls: balanceCalls(world, pl) - before };
}

function expectEnvelopeError(res: Answer, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ statusCode: status, message: expect.any(String), error: code, data: null });
  expect(res.body.message.length).toBeGreaterThan(0);
}

/**
 * Admin changes reach every service over the change bus in milliseconds: retries until `status`. The
 * deadline only bounds a worker stalled by a loaded machine; it stays far under the services' 30 s
 * cache lifetime, so a change the bus never carried still gets the old answer.
 */
async function afterAdminChange(request: () => Promise<Answer>, status: number): Promise<Answer> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await request();
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function casinoFault(world: GameWorld, pl: Player, fault: Fault): Promise<void> {
  sandbox.setFault({ providerId: world.providerId, playerId: pl.playerId, operation: 'balance' }, fault);
}

describe('GET /api/v1/sessions/{sessionId}: a valid session', () => {
  test('When the session is live for that game and currency, then 200 "Session is valid" with exactly the Session fields', async () => {
    const launchedAt = Date.now();
    const pl = await g.launchPlayer({ language: 'de' });
    const { res, calls } = await validateCounting(g, pl, { gameId: g.gameId, currency: 'EUR' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      statusCode: 200,
      message: 'Session is valid',
      data: {
        valid: true,
        sessionId: pl.sessionId,
        gameId: g.gameId,
        gameName: `Game ${g.gameId}`,
        groupId: g.groupId,
        providerId: g.providerId,
        playerId: pl.playerId,
        currency: 'EUR',
        language: 'de',
        expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
    const expiresAt = Date.parse(res.body.data.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(launchedAt + 86400_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86400_000);
    expect(calls).toBe(1);
  });

  test('When a session is validated, then the casino gets exactly one signed balance call naming the session', async () => {
    const pl = await g.launchPlayer();
    const { calls } = await validateCounting(g, pl);
    expect(calls).toBe(1);
    const [call] = sandbox.calls({ operation: 'balance', playerId: pl.playerId });
    expect(call.signature).toBe('valid');
    expect(call.body).toEqual({ providerId: g.providerId, playerId: pl.playerId, sessionId: pl.sessionId, gameId: g.gameId, currency: 'EUR' });
  });

  test('When a session is validated three times, then the casino is called three times, once per validation', async () => {
    const pl = await g.launchPlayer();
    for (let i = 0; i < 3; i++) expect((await validateCounting(g, pl)).calls).toBe(1);
    expect(balanceCalls(g, pl)).toBe(3);
  });

  test.each([
    ['eur', 'EUR'],
    ['EUR', 'eur'],
    ['Eur', 'eUR'],
  ])('When the currency sent is %s and the session is %s, then they match case-insensitively', async (sent, session) => {
    const pl = await g.launchPlayer({ currency: session });
    const res = await validate(g, pl.sessionId, { gameId: g.gameId, currency: sent });
    expect(res.status).toBe(200);
    expect(res.body.data.currency).toBe(session);
  });

  test('When no currency is sent, then the currency is not checked', async () => {
    const pl = await g.launchPlayer();
    expect((await validate(g, pl.sessionId, { gameId: g.gameId })).status).toBe(200);
  });

  test('When the Redis copy of a session is gone, then the session is answered from PostgreSQL (and cached again)', async () => {
    const pl = await g.launchPlayer();
    const key = `${p.config.REDIS_KEY_PREFIX}:session:${pl.sessionId}`;
    expect(await p.redis.del(key)).toBe(1);
    const { res, calls } = await validateCounting(g, pl);
    expect(res.status).toBe(200);
    expect(res.body.data.sessionId).toBe(pl.sessionId);
    expect(calls).toBe(1);
    expect(await p.redis.exists(key)).toBe(1);
  });
});

describe('GET /api/v1/sessions/{sessionId}: refused before the casino is called', () => {
  test('When gameId is missing, then 400 Bad Request', async () => {
    const pl = await g.launchPlayer();
    const { res, calls } = await validateCounting(g, pl, { currency: 'EUR' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
    expect(calls).toBe(0);
  });

  test.each(['crash', '1.5', '0', '-1'])('When gameId is %s, then 400 Bad Request', async (gameId) => {
    const pl = await g.launchPlayer();
    const { res, calls } = await validateCounting(g, pl, { gameId });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
    expect(calls).toBe(0);
  });

  test('When the session was opened for another game of the same game provider, then 400 SESSION_GAME_MISMATCH', async () => {
    const otherGameId = uniqueGameId();
    expect((await adminPut(p, `games/${otherGameId}`, { name: 'Other', groupId: g.groupId, frontendUrl: 'https://other.example.com/' })).status).toBe(200);
    const pl = await g.launchPlayer();
    const { res, calls } = await validateCounting(g, pl, { gameId: otherGameId });
    expectEnvelopeError(res, 400, 'SESSION_GAME_MISMATCH');
    expect(calls).toBe(0);
  });

  test('When the currency sent is not the session currency, then 400 SESSION_CURRENCY_MISMATCH', async () => {
    const pl = await g.launchPlayer({ currency: 'EUR' });
    const { res, calls } = await validateCounting(g, pl, { gameId: g.gameId, currency: 'USD' });
    expectEnvelopeError(res, 400, 'SESSION_CURRENCY_MISMATCH');
    expect(calls).toBe(0);
  });

  test('When the session never existed, then 403 SESSION_EXPIRED', async () => {
    const before = sandbox.countCalls();
    expectEnvelopeError(await validate(g, 'no-such-session'), 403, 'SESSION_EXPIRED');
    expectEnvelopeError(await validate(g, 'x'.repeat(150)), 403, 'SESSION_EXPIRED');
    expect(sandbox.countCalls()).toBe(before);
  });

  test('When the session id holds a NUL character, then validation answers 403 SESSION_EXPIRED and the balance read 400, never a 500', async () => {
    const pl = await g.launchPlayer();
    expectEnvelopeError(await validate(g, `${pl.sessionId}\u0000`), 403, 'SESSION_EXPIRED');
    const balance = await g.call('GET', `/api/account?sessionId=${encodeURIComponent(`${pl.sessionId}\u0000`)}`);
    // In a query string a NUL is refused as bad input before any route runs.
    expect(balance.status).toBe(400);
    expect(balance.body.error).toBe('Bad Request');
    expect(balanceCalls(g, pl)).toBe(0);
  });

  test('When another game provider validates the session, then 403 GAME_NOT_OWNED_BY_GROUP whatever gameId and currency it sends', async () => {
    const other = await startGameWorld(p, { sandbox });
    const pl = await g.launchPlayer();
    for (const query of [{ gameId: g.gameId }, { gameId: other.gameId }, { gameId: g.gameId, currency: 'USD' }] as Record<string, string | number>[]) {
      const before = balanceCalls(g, pl);
      expectEnvelopeError(await validate(other, pl.sessionId, query), 403, 'GAME_NOT_OWNED_BY_GROUP');
      expect(balanceCalls(g, pl)).toBe(before);
    }
    expect((await validate(g, pl.sessionId)).status).toBe(200); // still the owner's
  });

  test('When the game is moved to another game provider after launch, then within a second its sessions are the new owner\'s: its money calls succeed and are recorded under it, the old owner gets 403 GAME_NOT_OWNED_BY_GROUP', async () => {
    const from = await startGameWorld(p, { sandbox });
    const to = await startGameWorld(p, { sandbox });
    const pl = await from.launchPlayer({ balance: 100 });
    const money = (world: GameWorld, path: string, body: object) => world.call('POST', `/api/balance/${path}`, body);
    const bet = (n: number) => ({ sessionId: pl.sessionId, gameId: from.gameId, currency: 'EUR', roundId: `moved-${n}-${pl.playerId}`, transactionId: `bet-${n}-${pl.playerId}`, amount: 10 });
    const win = (n: number, amount: number) => ({ ...bet(n), transactionId: `win-${n}-${pl.playerId}`, amount, reason: 'NORMAL_WIN', appliedMultiplier: amount / 10, previousTransactionId: bet(n).transactionId, betAmount: 10 });
    const round = (n: number) => p.db.primary('rounds').where({ provider_id: from.providerId, round_id: bet(n).roundId }).first();
    const credits = (transactionId: string) => sandbox.journal({ providerId: from.providerId, transactionId }).length;

    // Before the move: two bets (100 -> 80); the first win fails at the casino (FAILED, nothing credited).
    expect((await money(from, 'cash-out', bet(1))).status).toBe(200);
    expect((await money(from, 'cash-out', bet(2))).status).toBe(200);
    sandbox.setFault({ providerId: from.providerId, playerId: pl.playerId, operation: 'credit' }, { kind: 'error', status: 503 }, 1);
    expect((await money(from, 'cash-in', win(2, 30))).status).toBe(502);
    expect(credits(win(2, 30).transactionId)).toBe(0);
    // A round of the old owner's other game, same casino, player and roundId pattern as the moved game's.
    const otherGame = { provider_id: from.providerId, round_id: `moved-3-${pl.playerId}`, group_id: from.groupId, game_id: from.gameId + 1, player_id: pl.playerId, session_id: 'another-session', currency: 'EUR', language: 'en', status: 'OPEN', bet_amount: '5.00', bet_transaction_id: 'another-bet', opened_at: new Date() };
    await p.db.primary('rounds').insert({ id: randomUUID(), ...otherGame });

    const put = await adminPut(p, `games/${from.gameId}`, { name: 'Moved', groupId: to.groupId, frontendUrl: from.frontendUrl });
    expect(put.status).toBe(200);
    const res = await afterAdminChange(() => validate(to, pl.sessionId, { gameId: from.gameId }), 200);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ sessionId: pl.sessionId, gameId: from.gameId, groupId: to.groupId, providerId: from.providerId });
    expectEnvelopeError(await validate(from, pl.sessionId, { gameId: from.gameId }), 403, 'GAME_NOT_OWNED_BY_GROUP');

    // The new owner's replay of a bet placed before the move: the stored answer, the casino not called.
    const debits = sandbox.countCalls({ operation: 'debit', providerId: from.providerId, playerId: pl.playerId });
    const replay = await money(to, 'cash-out', bet(1));
    expect(replay.status).toBe(200);
    expect(replay.body.balance).toBe(90);
    expect(sandbox.countCalls({ operation: 'debit', providerId: from.providerId, playerId: pl.playerId })).toBe(debits);

    // The win owed on a bet placed before the move is paid through the new owner and settles its round.
    const paid = await money(to, 'cash-in', win(1, 25));
    expect(paid.status).toBe(200);
    expect(paid.body.balance).toBe(105);
    expect(await round(1)).toMatchObject({ group_id: from.groupId, status: 'SETTLED', settle_transaction_id: win(1, 25).transactionId, payout_amount: '25.00' });
    // The win that failed before the move is attempted afresh with the same transactionId: credited once.
    const retried = await money(to, 'cash-in', win(2, 30));
    expect(retried.status).toBe(200);
    expect(retried.body.balance).toBe(135);
    expect(credits(win(2, 30).transactionId)).toBe(1);
    expect(await round(2)).toMatchObject({ status: 'SETTLED', settle_transaction_id: win(2, 30).transactionId });

    const rows = await p.db.primary('transactions').where({ provider_id: from.providerId, player_id: pl.playerId }).orderBy('created_at').select('transaction_id', 'group_id', 'status', 'attempt');
    expect(rows).toEqual([
      { transaction_id: bet(1).transactionId, group_id: from.groupId, status: 'SUCCESS', attempt: 1 },
      { transaction_id: bet(2).transactionId, group_id: from.groupId, status: 'SUCCESS', attempt: 1 },
      { transaction_id: win(2, 30).transactionId, group_id: from.groupId, status: 'SUCCESS', attempt: 2 },
      { transaction_id: win(1, 25).transactionId, group_id: to.groupId, status: 'SUCCESS', attempt: 1 },
    ]);

    // A credit naming the old owner's round of another game leaves that round alone.
    const foreign = await money(to, 'cash-in', { ...win(3, 10), roundId: otherGame.round_id, previousTransactionId: 'another-bet' });
    expect(foreign.status).toBe(200);
    expect(await p.db.primary('rounds').where({ provider_id: from.providerId, round_id: otherGame.round_id }).first()).toMatchObject({ status: 'OPEN', settle_transaction_id: null });

    // The old owner can neither bet nor settle on the moved game any more.
    for (const [path, body] of [['cash-out', bet(4)], ['cash-in', win(4, 10)]] as const) {
      const old = await money(from, path, body);
      expect(old.status).toBe(403);
      expect(old.body.error).toBe('GAME_NOT_OWNED_BY_GROUP');
    }
  });

  test('When the game is disabled after launch, then within a second 403 GAME_NOT_ACTIVE', async () => {
    const world = await startGameWorld(p, { sandbox });
    const pl = await world.launchPlayer();
    expect((await validate(world, pl.sessionId)).status).toBe(200);
    const put = await adminPut(p, `games/${world.gameId}`, { name: 'Off', groupId: world.groupId, frontendUrl: world.frontendUrl, status: 'INACTIVE' });
    expect(put.status).toBe(200);
    await afterAdminChange(() => validate(world, pl.sessionId), 403);
    const { res, calls } = await validateCounting(world, pl);
    expectEnvelopeError(res, 403, 'GAME_NOT_ACTIVE');
    expect(calls).toBe(0);
  });

  test('When the session references a game that is no longer registered, then 404 GAME_NOT_FOUND', async () => {
    // The admin API cannot delete a game, so the row goes directly; configs cascade, sessions keep their game id.
    const world = await startGameWorld(p, { sandbox });
    const pl = await world.launchPlayer();
    expect(await p.db.primary('games').where({ game_id: world.gameId }).del()).toBe(1);
    await p.runtimes.wallet!.bus.publish({ kind: 'game', key: String(world.gameId) });
    const res = await afterAdminChange(() => validate(world, pl.sessionId), 404);
    expectEnvelopeError(res, 404, 'GAME_NOT_FOUND');
    expect(balanceCalls(world, pl)).toBe(0);
  });

  test('When the casino is disabled after launch, then within a second 403 PROVIDER_NOT_ACTIVE', async () => {
    const world = await startGameWorld(p, { sandbox });
    const pl = await world.launchPlayer();
    const put = await adminPut(p, `casinos/${world.providerId}`, { name: 'Off', walletUrl: world.walletUrl, status: 'INACTIVE' });
    expect(put.status).toBe(200);
    await afterAdminChange(() => validate(world, pl.sessionId), 403);
    const { res, calls } = await validateCounting(world, pl);
    expectEnvelopeError(res, 403, 'PROVIDER_NOT_ACTIVE');
    expect(calls).toBe(0);
  });

  test('When the casino is removed after launch, then within a second 404 PROVIDER_NOT_FOUND', async () => {
    const world = await startGameWorld(p, { sandbox });
    const pl = await world.launchPlayer();
    expect((await validate(world, pl.sessionId)).status).toBe(200);
    expect((await adminDelete(p, `casinos/${world.providerId}`)).status).toBe(200);
    await afterAdminChange(() => validate(world, pl.sessionId), 404);
    const { res, calls } = await validateCounting(world, pl);
    expectEnvelopeError(res, 404, 'PROVIDER_NOT_FOUND');
    expect(calls).toBe(0);
  });

  test('When no game provider token is sent, then 403 AUTHENTICATION_FAILED', async () => {
    const pl = await g.launchPlayer();
    const res = await http('GET', `${p.baseUrl}/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}`);
    expectEnvelopeError(res, 403, 'AUTHENTICATION_FAILED');
    expect(balanceCalls(g, pl)).toBe(0);
  });
});

describe('GET /api/v1/sessions/{sessionId}: the casino answers', () => {
  test.each<[string, number, string, Fault]>([
    ['rejects the token (401 TOKEN_EXPIRED)', 403, 'AUTHENTICATION_TOKEN_EXPIRED', { kind: 'tokenExpired' }],
    ['rejects the token with 403 TOKEN_EXPIRED', 403, 'AUTHENTICATION_TOKEN_EXPIRED', { kind: 'tokenExpired', status: 403 }],
    ['does not answer in time', 408, 'INTEGRATION_TIMED_OUT', { kind: 'delay', ms: 3000 }],
    ['fails with 500', 502, 'PROVIDER_API_FAILURE', { kind: 'error', status: 500 }],
    ['fails with 503', 502, 'PROVIDER_API_FAILURE', { kind: 'error', status: 503 }],
    ['refuses with another 4xx', 502, 'PROVIDER_API_FAILURE', { kind: 'error', status: 400, error: 'REFUSED' }],
    ['hangs up', 502, 'PROVIDER_API_FAILURE', { kind: 'reset' }],
    ['answers 200 that is not JSON', 502, 'INVALID_PROVIDER_RESPONSE', { kind: 'malformed', body: 'not-json' }],
    ['answers 200 without a balance', 502, 'INVALID_PROVIDER_RESPONSE', { kind: 'malformed', body: 'no-balance' }],
    ['answers 200 with a negative balance', 502, 'INVALID_PROVIDER_RESPONSE', { kind: 'malformed', body: 'negative-balance' }],
    ['answers 200 with an empty body', 502, 'INVALID_PROVIDER_RESPONSE', { kind: 'malformed', body: 'empty' }],
  ])('When the casino %s, then %i %s after exactly one casino call', async (_what, status, code, fault) => {
    const pl = await g.launchPlayer();
    await casinoFault(g, pl, fault);
    const started = Date.now();
    const { res, calls } = await validateCounting(g, pl);
    expectEnvelopeError(res, status, code);
    expect(calls).toBe(1);
    // A sanity bound, not a speed check: answered at the 1 s time-out, not after the casino's 3 s.
    if (code === 'INTEGRATION_TIMED_OUT') expect(Date.now() - started).toBeLessThan(3000);
  });

  test('When the casino no longer knows the player token (relaunched elsewhere), then 403 AUTHENTICATION_TOKEN_EXPIRED', async () => {
    const pl = await g.launchPlayer();
    sandbox.addPlayer({ providerId: g.providerId, playerId: pl.playerId, walletToken: 'a-newer-token', balance: 100 });
    expectEnvelopeError(await validate(g, pl.sessionId), 403, 'AUTHENTICATION_TOKEN_EXPIRED');
  });

  test('When the casino wallet is unreachable, then 502 PROVIDER_API_FAILURE', async () => {
    const world = await startGameWorld(p, { sandbox, walletUrl: 'http://127.0.0.1:9/wallet' });
    const pl = await world.launchPlayer();
    expectEnvelopeError(await validate(world, pl.sessionId), 502, 'PROVIDER_API_FAILURE');
  });
});
