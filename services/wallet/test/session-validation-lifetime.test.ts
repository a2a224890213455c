import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { startGameWorld, type GameWorld, type Player } from '../../../test/game';
import { startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';

/**
 * Spec, Session states: a session lives SESSION_TTL_SECONDS from launch, never extended by activity;
 * afterwards every session-scoped call answers 403 SESSION_EXPIRED, except the cash-in retry route,
 * which still resolves the session from the archive. Here a session lives 2 seconds.
 */
const TTL_MS = 2000;
let p: TestPlatform;
let sandbox: CasinoSandbox;
let g: GameWorld;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'], env: { SESSION_TTL_SECONDS: String(TTL_MS / 1000) } });
  sandbox = await startCasinoSandbox();
  g = await startGameWorld(p, { sandbox });
});
afterAll(async () => {
  await p.stop();
  await sandbox.close();
});

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
const validate = (pl: Player) => g.call('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}`);

function bet(pl: Player) {
  return { sessionId: pl.sessionId, gameId: g.gameId, currency: pl.currency, roundId: uniqueId('round'), transactionId: uniqueId('bet'), amount: 10 };
}

function settle(pl: Player, b: ReturnType<typeof bet>) {
  return { ...b, transactionId: uniqueId('win'), amount: 25, reason: 'NORMAL_WIN', appliedMultiplier: 2.5, previousTransactionId: b.transactionId, betAmount: b.amount };
}

describe('Session lifetime', () => {
  test('When SESSION_TTL_SECONDS has passed since launch, then validation answers 403 SESSION_EXPIRED, however busy the session was', async () => {
    const launchedAt = Date.now();
    const pl = await g.launchPlayer();
    const launchAnswered = Date.now(); // a loaded machine may take a while to launch
    const first = await validate(pl);
    expect(first.status).toBe(200);
    const expiresAt = Date.parse(first.body.data.expiresAt);
    expect(expiresAt - launchedAt).toBeGreaterThanOrEqual(TTL_MS - 50);
    expect(expiresAt - launchAnswered).toBeLessThanOrEqual(TTL_MS + 1000);

    // Activity all through its life: validations, balance reads, a bet (timed from its end, not the
    // launch, so a slow launch does not push the last use past it).
    await sleepUntil(expiresAt - 1300);
    expect((await g.call('GET', `/api/account?sessionId=${pl.sessionId}`)).status).toBe(200);
    expect((await g.call('POST', '/api/balance/cash-out', bet(pl))).status).toBe(200);
    await sleepUntil(expiresAt - 600);
    const late = await validate(pl);
    expect(late.status).toBe(200);
    expect(late.body.data.expiresAt).toBe(first.body.data.expiresAt); // never extended

    await sleepUntil(expiresAt + 500);
    const expired = await validate(pl);
    expect(expired.status).toBe(403);
    expect(expired.body).toEqual({ statusCode: 403, message: expect.any(String), error: 'SESSION_EXPIRED', data: null });
  });

  test('When the session expired, then the wallet routes answer 403 SESSION_EXPIRED too and the casino is not called', async () => {
    const pl = await g.launchPlayer();
    // The session's end first: on a loaded machine the bet may take a good part of its 2 s.
    const expiresAt = Date.parse((await validate(pl)).body.data.expiresAt);
    const b = bet(pl);
    expect((await g.call('POST', '/api/balance/cash-out', b)).status).toBe(200);
    await sleepUntil(expiresAt + 500);

    const before = sandbox.countCalls({ playerId: pl.playerId });
    for (const res of [
      await g.call('GET', `/api/account?sessionId=${pl.sessionId}`),
      await g.call('POST', '/api/balance/cash-out', bet(pl)),
      await g.call('POST', '/api/balance/cash-in', settle(pl, b)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('SESSION_EXPIRED');
    }
    expect(sandbox.countCalls({ playerId: pl.playerId })).toBe(before);
  });

  test('When a credit is owed after the session expired, then plain cash-in gets SESSION_EXPIRED while the retry route credits the player', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const expiresAt = Date.parse((await validate(pl)).body.data.expiresAt);
    const b = bet(pl);
    expect((await g.call('POST', '/api/balance/cash-out', b)).body.balance).toBe(90);
    await sleepUntil(expiresAt + 500);

    const win = settle(pl, b);
    const plain = await g.call('POST', '/api/balance/cash-in', win);
    expect(plain.status).toBe(403);
    expect(plain.body.error).toBe('SESSION_EXPIRED');
    expect(sandbox.countCalls({ playerId: pl.playerId, operation: 'credit' })).toBe(0);

    const retry = await g.call('POST', '/api/balance/cash-in/retry', win);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ id: pl.playerId, balance: 115, username: pl.playerId });
    const tx = await p.db.primary('transactions').where({ provider_id: g.providerId, transaction_id: win.transactionId }).first();
    expect(tx).toMatchObject({ status: 'SUCCESS', is_retry: true, category: 'CASH_IN' });
    const round = await p.db.primary('rounds').where({ provider_id: g.providerId, round_id: b.roundId }).first();
    expect(round.status).toBe('SETTLED');

    expect((await validate(pl)).status).toBe(403); // resolved for that call only
  });

  test('When the session left the archive, then even the retry route answers 403 SESSION_EXPIRED', async () => {
    const pl = await g.launchPlayer();
    const b = bet(pl);
    expect((await g.call('POST', '/api/balance/cash-out', b)).status).toBe(200);
    // Sessions cannot end early (services may hold them until expiresAt): let it expire for real,
    // then move its archive window into the past.
    const { expires_at: expiresAt } = await p.db.primary('sessions').where({ session_id: pl.sessionId }).first('expires_at');
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt.getTime() - Date.now()) + 300));
    await p.db.primary('sessions').where({ session_id: pl.sessionId }).update({ archive_until: new Date(Date.now() - 1000) });
    const retry = await g.call('POST', '/api/balance/cash-in/retry', settle(pl, b));
    expect(retry.status).toBe(403);
    expect(retry.body.error).toBe('SESSION_EXPIRED');
  });

  test('When the retry route names a session that never existed, then 403 SESSION_EXPIRED', async () => {
    const pl = await g.launchPlayer();
    const b = bet(pl);
    const res = await g.call('POST', '/api/balance/cash-in/retry', { ...settle(pl, b), sessionId: 'never-launched' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('SESSION_EXPIRED');
  });
});
