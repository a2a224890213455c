import { createLaunchToken, startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { BROWSER_ACCEPT, casinoPlayer, launch, launchQuery, strangerLaunchKey, type LaunchResult } from './launch-support';

/**
 * Spec Launch rule 7 and docs/integrating-a-casino.md: a launch that fails answers {"error": CODE} (an HTML page
 * with the same status for a browser), never a redirect, and opens no session.
 */
let p: TestPlatform;
let sandbox: CasinoSandbox;
let g: GameWorld;
let inactiveCasino: GameWorld;
let inactiveGame: GameWorld;
let inactiveGroup: GameWorld;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
  sandbox = await startCasinoSandbox();
  g = await startGameWorld(p, { sandbox });
  inactiveCasino = await startGameWorld(p, { sandbox, casinoStatus: 'INACTIVE' });
  inactiveGame = await startGameWorld(p, { sandbox, gameStatus: 'INACTIVE' });
  inactiveGroup = await startGameWorld(p, { sandbox, groupStatus: 'INACTIVE' });
});
afterAll(async () => {
  await p.stop();
  await sandbox.close();
});

const now = () => Math.floor(Date.now() / 1000);

interface Attempt {
  query: string;
  /** The player the token names: no session may exist for them afterwards. */
  playerId?: string;
  token?: string;
}

/** A launch of the main world with one launch parameter replaced (undefined removes it). */
async function withParam(over: Record<string, string | undefined>): Promise<Attempt> {
  const { token, playerId } = await casinoPlayer(g);
  return { query: launchQuery(g, token, over), playerId, token };
}

/** A launch of `world` whose token carries these claims instead of the good ones. */
async function withToken(world: GameWorld, over: Parameters<typeof casinoPlayer>[1] = {}, query: Record<string, string | undefined> = {}): Promise<Attempt> {
  const { token, playerId } = await casinoPlayer(world, over);
  return { query: launchQuery(world, token, query), playerId, token };
}

const cases: [string, number, string, () => Promise<Attempt>][] = [
  ['the token is missing', 400, 'Bad Request', () => withParam({ token: undefined })],
  ['the token is empty', 400, 'Bad Request', () => withParam({ token: '' })],
  ['providerId is missing', 400, 'Bad Request', () => withParam({ providerId: undefined })],
  ['gameId is missing', 400, 'Bad Request', () => withParam({ gameId: undefined })],
  ['currency is missing', 400, 'Bad Request', () => withParam({ currency: undefined })],
  ['language is missing', 400, 'Bad Request', () => withParam({ language: undefined })],
  ['gameId is not a number', 400, 'Bad Request', () => withParam({ gameId: 'crash' })],
  ['gameId has decimals', 400, 'Bad Request', () => withParam({ gameId: '12.5' })],
  ['gameId is zero', 400, 'Bad Request', () => withParam({ gameId: '0' })],
  ['gameId is negative', 400, 'Bad Request', () => withParam({ gameId: '-7' })],
  ['gameId is beyond an integer', 400, 'Bad Request', () => withParam({ gameId: '99999999999' })],
  ['currency is empty', 400, 'Bad Request', () => withParam({ currency: '' })],
  ['currency is not a code', 400, 'Bad Request', () => withParam({ currency: 'EU R<' })],
  ['backtoHome is not a URL', 400, 'Bad Request', () => withParam({ backtoHome: 'lobby please' })],
  ['backtoHome is a javascript: link', 400, 'Bad Request', () => withParam({ backtoHome: 'javascript:alert(1)' })],
  ['language holds a NUL character', 400, 'Bad Request', () => withParam({ language: 'e\u0000n' })],
  ['providerId holds a NUL character', 400, 'Bad Request', () => withParam({ providerId: `${g.providerId}\u0000` })],
  [
    'providerId is sent twice',
    400,
    'Bad Request',
    async () => {
      const a = await withParam({});
      return { ...a, query: `${a.query}&providerId=${encodeURIComponent(g.providerId)}` };
    },
  ],
  ['the token is garbage', 401, 'INVALID_LAUNCH_TOKEN', () => withParam({ token: 'not-a-jwe' })],
  ['the token is a JWE of another key', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { launchKey: strangerLaunchKey() })],
  ['the token expired', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { exp: now() - 60 })],
  ['the token has no exp', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { claims: { exp: undefined } })],
  ['the token names another casino', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { providerId: uniqueId('cas') })],
  ['the token is for another currency', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { currency: 'USD' })],
  ['the token is for another game', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { gameId: g.gameId + 1 })],
  ['the token has no playerId', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { claims: { playerId: undefined } })],
  ['the token has no walletToken', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { claims: { walletToken: undefined } })],
  ['the token playerId contains a colon', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { playerId: `${uniqueId('player')}:x` })],
  ['the token playerId holds a NUL character', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { playerId: `${uniqueId('player')}\u0000` })],
  ['the token username holds a NUL character', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { username: 'Lucky\u0000Luke' })],
  ['the token jti holds a NUL character', 401, 'INVALID_LAUNCH_TOKEN', () => withToken(g, { jti: `${uniqueId('jti')}\u0000` })],
  ['the casino is unknown', 404, 'PROVIDER_NOT_FOUND', () => withParam({ providerId: uniqueId('cas') })],
  ['the casino is inactive', 403, 'PROVIDER_NOT_ACTIVE', () => withToken(inactiveCasino)],
  ['the game is unknown', 404, 'GAME_NOT_FOUND', () => withParam({ gameId: String(uniqueGameId()) })],
  ['the game is inactive', 403, 'GAME_NOT_ACTIVE', () => withToken(inactiveGame)],
  ['the game provider is inactive', 403, 'GAME_NOT_ACTIVE', () => withToken(inactiveGroup)],
];

function expectNoRedirect(res: LaunchResult, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('location')).toBeNull();
}

async function sessionsOf(playerId: string | undefined): Promise<number> {
  if (!playerId || playerId.includes('\u0000')) return 0; // PostgreSQL text cannot even hold that
  const [row] = await p.db.primary('sessions').where({ player_id: playerId }).count({ n: '*' });
  return Number(row.n);
}

describe('GET /launch failures', () => {
  test.each(cases)('When %s, then %i %s as JSON, no redirect and no session', async (_what, status, code, attempt) => {
    const a = await attempt();
    const res = await launch(p, a.query);
    expectNoRedirect(res, status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.error).toBe(code);
    expect(Object.keys(res.body).every((k) => ['error', 'message'].includes(k))).toBe(true);
    if (a.token) expect(res.text).not.toContain(a.token);
    expect(await sessionsOf(a.playerId)).toBe(0);
  });

  test.each(cases)('When %s and the browser prefers text/html, then an HTML page with %i %s', async (_what, status, code, attempt) => {
    const a = await attempt();
    const res = await launch(p, a.query, { accept: BROWSER_ACCEPT });
    expectNoRedirect(res, status);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/^<!doctype html>/i);
    expect(res.text).toContain(code);
    if (a.token) expect(res.text).not.toContain(a.token);
  });

  test.each([
    ['application/json', /^application\/json/],
    ['*/*', /^application\/json/],
    ['text/html', /^text\/html/],
    ['application/json;q=0.5, text/html', /^text\/html/],
    ['text/html;q=0.1, application/json', /^application\/json/],
  ])('When a failed launch comes with Accept %s, then the answer is %s', async (accept, type) => {
    const res = await launch(p, launchQuery(g, 'not-a-jwe'), { accept });
    expectNoRedirect(res, 401);
    expect(res.headers.get('content-type')).toMatch(type);
  });
});

describe('GET /launch single-use tokens (jti)', () => {
  test('When a token with a jti is launched twice, then the second launch is refused with 401 INVALID_LAUNCH_TOKEN', async () => {
    const jti = uniqueId('jti');
    const { token, playerId } = await casinoPlayer(g, { jti });
    expect((await launch(p, launchQuery(g, token))).status).toBe(302);
    const again = await launch(p, launchQuery(g, token));
    expectNoRedirect(again, 401);
    expect(again.body.error).toBe('INVALID_LAUNCH_TOKEN');
    expect(await sessionsOf(playerId)).toBe(1);
  });

  test('When a fresh token reuses a spent jti, then it is refused, while another jti passes', async () => {
    const jti = uniqueId('jti');
    const first = await casinoPlayer(g, { jti });
    expect((await launch(p, launchQuery(g, first.token))).status).toBe(302);
    const reused = await casinoPlayer(g, { jti });
    expect((await launch(p, launchQuery(g, reused.token))).body.error).toBe('INVALID_LAUNCH_TOKEN');
    const fresh = await casinoPlayer(g, { jti: uniqueId('jti') });
    expect((await launch(p, launchQuery(g, fresh.token))).status).toBe(302);
  });

  test('When two casinos use the same jti, then each may launch once', async () => {
    const other = await startGameWorld(p, { sandbox });
    const jti = uniqueId('jti');
    const a = await casinoPlayer(g, { jti });
    const b = await casinoPlayer(other, { jti });
    expect((await launch(p, launchQuery(g, a.token))).status).toBe(302);
    expect((await launch(p, launchQuery(other, b.token))).status).toBe(302);
  });

  test('When the same jti is launched concurrently, then exactly one launch succeeds', async () => {
    const { token } = await casinoPlayer(g, { jti: uniqueId('jti') });
    const answers = await Promise.all(Array.from({ length: 5 }, () => launch(p, launchQuery(g, token))));
    expect(answers.map((r) => r.status).sort()).toEqual([302, 401, 401, 401, 401]);
  });

  test('When a launch with a jti fails for another reason, then the jti is not spent', async () => {
    const jti = uniqueId('jti');
    const { token } = await casinoPlayer(g, { jti });
    expect((await launch(p, launchQuery(g, token, { gameId: String(uniqueGameId()) }))).status).toBe(404);
    expect((await launch(p, launchQuery(g, token))).status).toBe(302);
  });
});

describe('GET /launch claims that agree', () => {
  test('When the token carries currency and gameId equal to the parameters (currency in another case), then the launch passes', async () => {
    const token = await createLaunchToken({
      launchKey: g.launchKey,
      providerId: g.providerId,
      playerId: uniqueId('player'),
      walletToken: uniqueId('wallet-token'),
      currency: 'eur',
      gameId: String(g.gameId),
    });
    expect((await launch(p, launchQuery(g, token))).status).toBe(302);
  });
});
