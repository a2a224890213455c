import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { http, startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminGet } from '../../../test/provision';
import { casinoPlayer, launch, launchQuery, sessionIdOf, type LaunchResult } from './launch-support';

/**
 * Spec rule 7 and docs/integrating-a-casino.md: the player's walletToken is sealed wherever it rests (PostgreSQL and
 * Redis) and never comes back in any answer of any route, even when a casino echoes it.
 */
let p: TestPlatform;
let sandbox: CasinoSandbox;
let g: GameWorld;

beforeAll(async () => {
  p = await startPlatform(); // every service: reporting and admin answers are checked too
  sandbox = await startCasinoSandbox();
  g = await startGameWorld(p, { sandbox });
});
afterAll(async () => {
  await p.stop();
  await sandbox.close();
});

/** The secret in the forms a careless encoder might leave it in. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
}

/** Everything a client sees of an answer: status line aside, every header and the body. */
function seen(res: LaunchResult): string {
  return `${[...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${res.text}`;
}

async function launchedPlayer(world: GameWorld) {
  const player = await casinoPlayer(world, { username: 'Lucky Luke' });
  const res = await launch(p, `${launchQuery(world, player.token)}&backtoHome=https%3A%2F%2Fcasino.example%2Flobby`);
  return { ...player, launch: res, sessionId: sessionIdOf(res) };
}

describe('The wallet token at rest', () => {
  test('When a player launches, then the session row holds the wallet token only sealed, and the relay can still use it', async () => {
    const pl = await launchedPlayer(g);
    const row = await p.db.primary('sessions').where({ session_id: pl.sessionId }).first();
    expect(row.player_id).toBe(pl.playerId);
    for (const form of encodings(pl.walletToken)) expect(row.wallet_token_enc).not.toContain(form);
    for (const form of encodings(pl.walletToken)) expect(JSON.stringify(row)).not.toContain(form);

    const valid = await g.call('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}`);
    expect(valid.status).toBe(200); // the sandbox accepts only the player's real walletToken
    const [call] = sandbox.calls({ playerId: pl.playerId, operation: 'balance' });
    expect(call.status).toBe(200);
    expect(call.signature).toBe('valid');
  });

  test('When a session is cached in Redis, then the cached copy holds the wallet token only sealed', async () => {
    const pl = await launchedPlayer(g);
    const cached = await p.redis.get(`${p.config.REDIS_KEY_PREFIX}:session:${pl.sessionId}`);
    expect(cached).not.toBeNull();
    for (const form of encodings(pl.walletToken)) expect(cached).not.toContain(form);
  });

  test('When a player launches, then the session lives one day and is archived two months beyond', async () => {
    const pl = await launchedPlayer(g);
    const row = await p.db.primary('sessions').where({ session_id: pl.sessionId }).first();
    const created = (row.created_at as Date).getTime();
    const expires = (row.expires_at as Date).getTime();
    expect(expires - created).toBe(86400 * 1000);
    expect((row.archive_until as Date).getTime() - expires).toBe(60 * 86400 * 1000);
  });
});

describe('The wallet token in answers', () => {
  test('When a player goes through launch, validation, balance, a bet, a win, reporting and admin, then no answer carries the wallet token', async () => {
    const pl = await launchedPlayer(g);
    const answers: LaunchResult[] = [pl.launch];
    const roundId = uniqueId('round');
    const bet = uniqueId('bet');
    const win = uniqueId('win');
    const money = { sessionId: pl.sessionId, gameId: g.gameId, currency: 'EUR', roundId };
    const cashIn = { ...money, transactionId: win, amount: 20, reason: 'NORMAL_WIN', appliedMultiplier: 2, previousTransactionId: bet, betAmount: 10 };

    answers.push(await g.call('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}&currency=EUR`));
    answers.push(await g.call('GET', `/api/account?sessionId=${pl.sessionId}&currency=EUR`));
    answers.push(await g.call('POST', '/api/balance/cash-out', { ...money, transactionId: bet, amount: 10 }));
    answers.push(await g.call('POST', '/api/balance/cash-in', cashIn));
    answers.push(await g.call('POST', '/api/balance/cash-in/retry', cashIn)); // a replay
    answers.push(await g.call('GET', `/api/v1/rounds?playerId=${pl.playerId}`));
    answers.push(await g.call('GET', `/api/v1/rounds/${g.providerId}/${roundId}`));
    answers.push(await g.call('GET', `/api/v1/transactions?playerId=${pl.playerId}`));
    answers.push(await g.call('GET', `/api/v1/transactions/${g.providerId}/${bet}`));
    answers.push(await g.call('GET', `/api/v1/transactions/${g.providerId}/${win}`));
    answers.push(await g.call('GET', '/api/v1/providers/ids'));
    answers.push(await g.call('GET', '/api/v1/provider-catalog'));
    answers.push(await adminGet(p, 'casinos'));
    answers.push(await adminGet(p, `casinos/${g.providerId}`));
    answers.push(await adminGet(p, `game-providers/${g.groupId}`));
    answers.push(await adminGet(p, `games/${g.gameId}`));
    answers.push(await http('GET', `${p.baseUrl}/metrics`, { token: p.adminToken }));

    expect(answers.map((a) => a.status)).toEqual([302, ...answers.slice(1).map(() => 200)]);
    for (const res of answers) for (const form of encodings(pl.walletToken)) expect(seen(res)).not.toContain(form);
  });

  test('When the casino echoes the wallet token in its error answers, then neither the relay answers nor the records carry it', async () => {
    const pl = await launchedPlayer(g);
    const echo = (operation: 'balance' | 'debit' | 'credit', status: number) =>
      sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation }, { kind: 'error', status, error: pl.walletToken }, 1);
    const roundId = uniqueId('round');
    const bet = uniqueId('bet');
    const refused = uniqueId('bet');
    const win = uniqueId('win');
    const money = { sessionId: pl.sessionId, gameId: g.gameId, currency: 'EUR', roundId };
    const answers: LaunchResult[] = [];

    echo('balance', 500);
    answers.push(await g.call('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}`));
    echo('balance', 400);
    answers.push(await g.call('GET', `/api/account?sessionId=${pl.sessionId}`));
    echo('debit', 400);
    answers.push(await g.call('POST', '/api/balance/cash-out', { ...money, roundId: uniqueId('round'), transactionId: refused, amount: 10 }));
    answers.push(await g.call('POST', '/api/balance/cash-out', { ...money, transactionId: bet, amount: 10 }));
    echo('credit', 503);
    answers.push(await g.call('POST', '/api/balance/cash-in', { ...money, transactionId: win, amount: 0, reason: 'BET_LOST', appliedMultiplier: 0, previousTransactionId: bet, betAmount: 10 }));
    answers.push(await g.call('GET', `/api/v1/transactions?playerId=${pl.playerId}`));
    answers.push(await g.call('GET', `/api/v1/transactions/${g.providerId}/${refused}`));
    answers.push(await g.call('GET', `/api/v1/transactions/${g.providerId}/${win}`));

    expect(answers.map((a) => a.status)).toEqual([502, 502, 400, 200, 502, 200, 200, 200]);
    for (const res of answers) for (const form of encodings(pl.walletToken)) expect(seen(res)).not.toContain(form);

    const transactions = await p.db.primary.raw(`SELECT row_to_json(t)::text AS json FROM transactions t WHERE player_id = ?`, [pl.playerId]);
    const attempts = await p.db.primary.raw(
      `SELECT row_to_json(a)::text AS json FROM transaction_attempts a JOIN transactions t ON t.id = a.transaction_pk WHERE t.player_id = ?`,
      [pl.playerId],
    );
    const stored = [...transactions.rows, ...attempts.rows].map((r: { json: string }) => r.json);
    expect(stored.length).toBeGreaterThan(0);
    for (const json of stored) expect(json).not.toContain(pl.walletToken);
  });
});
