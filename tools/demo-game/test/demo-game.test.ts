import { createLogger } from '@relay/shared';
import { http, startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { adminPut } from '../../../test/provision';
import { startDemoGame, type DemoGame } from '../src';

/**
 * The demo game backend against the real platform (in-process, real PostgreSQL and Redis) and the
 * sandbox casino: the JSON endpoints its page calls, and the money rules a game must follow.
 */
let platform: TestPlatform;
let world: GameWorld;
let game: DemoGame;
let strictGame: DemoGame;

const EUR = { minBet: 0.1, maxBet: 50, defaultBet: 1, betSuggestions: [1, 5], maxWin: 60 };

beforeAll(async () => {
  // A short casino time-out, so a slow casino is a 408 the game has to resolve; 1 s, so an ordinary
  // casino call by a worker stalled on a loaded machine still answers in time.
  platform = await startPlatform({ env: { CASINO_TIMEOUT_MS: '1000' } });
  world = await startGameWorld(platform);
  const saved = await adminPut(platform, `casinos/${world.providerId}/games/${world.gameId}/currencies/EUR`, EUR);
  expect(saved.status).toBe(200);
  const config = { relayUrl: platform.baseUrl, providerToken: world.providerToken, gameId: world.gameId, port: 0, host: '127.0.0.1' };
  const logger = createLogger({ service: 'demo-game', level: 'silent' });
  game = await startDemoGame({ ...config, allowForcedOutcome: true }, logger);
  strictGame = await startDemoGame({ ...config, allowForcedOutcome: false }, logger);
}, 60000);

afterAll(async () => {
  await game?.close();
  await strictGame?.close();
  await world?.sandbox.close();
  await platform?.stop();
});

const bet = (g: DemoGame, body: Record<string, unknown>) => http('POST', `${g.url}demo/bet`, { body });
const journal = (playerId: string) => world.sandbox.journal({ providerId: world.providerId, playerId });

describe('demo game backend', () => {
  it('When the page opens a session, then the player, balance and limits come from the relay, and the provider token never leaves the backend', async () => {
    const player = await world.launchPlayer({ balance: 42.5, username: 'Dee' });
    const res = await http('GET', `${game.url}demo/session?sessionId=${player.sessionId}&currency=eur`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ playerId: player.playerId, username: 'Dee', currency: 'EUR', balance: 42.5, limits: EUR, forcedOutcomeAllowed: true });
    expect(res.body.chances).toEqual([
      { chance: 25, multiplier: 3.96 },
      { chance: 50, multiplier: 1.98 },
      { chance: 75, multiplier: 1.32 },
    ]);
    expect(res.text).not.toContain(world.providerToken);
    expect(res.text).not.toContain(player.walletToken);

    const page = await http('GET', game.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).not.toContain(world.providerToken);
  });

  it('When the session is unknown or the page names another currency, then the relay\'s refusal reaches the page', async () => {
    expect(await http('GET', `${game.url}demo/session?sessionId=no-such-session`)).toMatchObject({ status: 403, body: { error: 'SESSION_EXPIRED' } });
    const player = await world.launchPlayer();
    expect(await http('GET', `${game.url}demo/session?sessionId=${player.sessionId}&currency=USD`)).toMatchObject({ status: 400, body: { error: 'SESSION_CURRENCY_MISMATCH' } });
    expect(await bet(game, { sessionId: 'no-such-session', amount: 1, chance: 50 })).toMatchObject({ status: 403, body: { error: 'SESSION_EXPIRED' } });
  });

  it('When a random round is played, then the cash-in carries the reason, multiplier and bet the roll decided, and the balance adds up', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    const res = await bet(game, { sessionId: player.sessionId, amount: 2.5, chance: 75 });
    expect(res.status).toBe(200);
    const round = res.body;
    expect(round.won).toBe(round.roll <= 75);
    expect(round).toMatchObject({ betAmount: 2.5, multiplier: 1.32, payout: round.won ? 3.3 : 0, balance: round.won ? 100.8 : 97.5, settled: true, roundEnded: true });

    const [credit] = world.sandbox.calls({ operation: 'credit', playerId: player.playerId });
    expect(credit.body).toMatchObject({
      roundId: round.roundId,
      transactionId: `${round.roundId}-settle`,
      previousTransactionId: `${round.roundId}-bet`,
      betAmount: 2.5,
      ...(round.won ? { reason: 'NORMAL_WIN', amount: 3.3, appliedMultiplier: 1.32 } : { reason: 'BET_LOST', amount: 0, appliedMultiplier: 0 }),
    });
    expect(world.sandbox.roundEnded({ providerId: world.providerId, roundId: round.roundId })).toHaveLength(1);
  });

  it('When a win is above the casino\'s maxWin, then the credit is capped at maxWin', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    const res = await bet(game, { sessionId: player.sessionId, amount: 50, chance: 25, forceOutcome: 'WIN' });
    expect(res.body).toMatchObject({ won: true, payout: 60, capped: true, balance: 110 });
  });

  it('When a forced outcome is sent to a game started without DEMO_ALLOW_FORCED_OUTCOME, then it is refused and no money moves', async () => {
    const player = await world.launchPlayer();
    expect(await bet(strictGame, { sessionId: player.sessionId, amount: 1, chance: 50, forceOutcome: 'WIN' })).toMatchObject({ status: 400, body: { error: 'FORCED_OUTCOME_DISABLED' } });
    expect((await http('GET', `${strictGame.url}demo/session?sessionId=${player.sessionId}`)).body.forcedOutcomeAllowed).toBe(false);
    expect(journal(player.playerId)).toHaveLength(0);
  });

  it.each([
    ['below minBet', { amount: 0.05, chance: 50 }, 'BET_OUT_OF_RANGE'],
    ['above maxBet', { amount: 50.01, chance: 50 }, 'BET_OUT_OF_RANGE'],
    ['three decimals', { amount: 1.005, chance: 50 }, 'INVALID_BET'],
    ['a chance the game does not offer', { amount: 1, chance: 99 }, 'BAD_REQUEST'],
    ['a string amount', { amount: '1', chance: 50 }, 'BAD_REQUEST'],
  ])('When the bet has %s, then it is refused before the casino is called', async (_label, body, code) => {
    const player = await world.launchPlayer();
    expect(await bet(game, { sessionId: player.sessionId, ...body })).toMatchObject({ status: 400, body: { error: code } });
    expect(world.sandbox.countCalls({ operation: 'debit', playerId: player.playerId })).toBe(0);
  });

  it('When the player cannot afford the stake, then the casino\'s refusal is shown and no round is opened', async () => {
    const player = await world.launchPlayer({ balance: 1 });
    expect(await bet(game, { sessionId: player.sessionId, amount: 5, chance: 50 })).toMatchObject({ status: 400, body: { error: 'INSUFFICIENT_FUNDS' } });
    const history = await http('GET', `${game.url}demo/history?sessionId=${player.sessionId}`);
    expect(history.body.rounds).toEqual([]);
    expect(history.body.transactions).toEqual([expect.objectContaining({ category: 'CASH_OUT', status: 'FAILED', errorCode: 'FUND_WITHDRAW_FAILED' })]);
  });

  it('When the casino has no bet limits for the session currency, then betting is closed', async () => {
    const player = await world.launchPlayer({ currency: 'USD' });
    expect((await http('GET', `${game.url}demo/session?sessionId=${player.sessionId}`)).body).toMatchObject({ currency: 'USD', limits: null });
    expect(await bet(game, { sessionId: player.sessionId, amount: 1, chance: 50 })).toMatchObject({ status: 409, body: { error: 'NO_BET_LIMITS' } });
    expect(world.sandbox.countCalls({ operation: 'debit', playerId: player.playerId })).toBe(0);
  });

  it('When the casino fails the credit once, then the game repeats it on the retry route with the same transactionId and the player is paid once', async () => {
    const player = await world.launchPlayer({ balance: 10 });
    world.sandbox.setFault({ playerId: player.playerId, operation: 'credit' }, { kind: 'error', status: 503 }, 1);
    const res = await bet(game, { sessionId: player.sessionId, amount: 4, chance: 50, forceOutcome: 'WIN' });
    expect(res.body).toMatchObject({ won: true, payout: 7.92, balance: 13.92, settled: true });
    const credits = world.sandbox.calls({ operation: 'credit', playerId: player.playerId });
    expect(credits.map((c) => [c.status, c.transactionId, c.body?.isRetry])).toEqual([
      [503, `${res.body.roundId}-settle`, false],
      [200, `${res.body.roundId}-settle`, true],
    ]);
    expect(journal(player.playerId).map((e) => [e.operation, e.amount])).toEqual([
      ['debit', 4],
      ['credit', 7.92],
    ]);
  });

  it('When the casino answers the debit too late, then the game repeats it with the same transactionId and the stake is taken once', async () => {
    const player = await world.launchPlayer({ balance: 10 });
    world.sandbox.setFault({ playerId: player.playerId, operation: 'debit' }, { kind: 'delay', ms: 1600, applyFirst: true }, 1);
    const res = await bet(game, { sessionId: player.sessionId, amount: 3, chance: 50, forceOutcome: 'LOSS' });
    expect(res.body).toMatchObject({ won: false, balance: 7, settled: true });
    expect(world.sandbox.countCalls({ operation: 'debit', playerId: player.playerId })).toBeGreaterThanOrEqual(2);
    expect(journal(player.playerId).map((e) => [e.operation, e.amount])).toEqual([
      ['debit', 3],
      ['credit', 0],
    ]);
  });

  it('When the history is read, then it shows this player\'s rounds and transactions only', async () => {
    const mine = await world.launchPlayer({ balance: 20 });
    const other = await world.launchPlayer({ balance: 20 });
    const won = (await bet(game, { sessionId: mine.sessionId, amount: 1, chance: 50, forceOutcome: 'WIN' })).body;
    await bet(game, { sessionId: other.sessionId, amount: 1, chance: 50, forceOutcome: 'LOSS' });

    const history = await http('GET', `${game.url}demo/history?sessionId=${mine.sessionId}`);
    expect(history.status).toBe(200);
    expect(history.body.rounds).toEqual([expect.objectContaining({ roundId: won.roundId, status: 'SETTLED', betAmount: 1, payoutAmount: 1.98, settleReason: 'NORMAL_WIN' })]);
    expect(history.body.transactions.map((t: { category: string }) => t.category).sort()).toEqual(['CASH_IN', 'CASH_OUT']);
    expect(history.text).not.toContain(other.playerId);
  });
});
