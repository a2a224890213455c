import { createServer, type Server } from 'node:http';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { startPlatform, type TestPlatform } from '../../../test/platform';
import { casinoPlayer, closedPort, launch, launchQuery, rawQueryOf, redirectOf, sessionIdOf } from './launch-support';

/** Spec, Launch: the redirect rules 1-6 (rule 7, failures, is in launch-errors.test.ts). */
let p: TestPlatform;
let sandbox: CasinoSandbox;
let g: GameWorld;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
  sandbox = await startCasinoSandbox();
  g = await startGameWorld(p, { sandbox }); // frontendUrl https://game.example.com/play?skin=dark
});
afterAll(async () => {
  await p.stop();
  await sandbox.close();
});

const validate = (world: GameWorld, sessionId: string) => world.call('GET', `/api/v1/sessions/${sessionId}?gameId=${world.gameId}`);

describe('GET /launch redirect', () => {
  test('When a casino launches a player, then the answer is a 302 to the registered frontendUrl, never cached', async () => {
    const { token } = await casinoPlayer(g);
    const res = await launch(p, launchQuery(g, token));
    const location = redirectOf(res);
    expect(`${location.origin}${location.pathname}`).toBe('https://game.example.com/play');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  test('When the frontendUrl has a port, a deep path and a fragment, then the target keeps all of them', async () => {
    const world = await startGameWorld(p, { sandbox, frontendUrl: 'https://cdn.example.com:8443/games/crash/index.html?skin=dark&v=2#/start' });
    const { token } = await casinoPlayer(world);
    const location = redirectOf(await launch(p, launchQuery(world, token)));
    expect(location.origin).toBe('https://cdn.example.com:8443');
    expect(location.pathname).toBe('/games/crash/index.html');
    expect(location.hash).toBe('#/start');
    expect(rawQueryOf(location).startsWith('skin=dark&v=2&')).toBe(true);
  });

  test('When a casino launches a player, then sessionId is added in the clear and names a live session', async () => {
    const { playerId, token } = await casinoPlayer(g);
    const location = redirectOf(await launch(p, launchQuery(g, token)));
    expect(location.searchParams.getAll('sessionId')).toHaveLength(1);
    const sessionId = location.searchParams.get('sessionId') as string;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{24,}$/);
    const valid = await validate(g, sessionId);
    expect(valid.status).toBe(200);
    expect(valid.body.data.playerId).toBe(playerId);
  });

  test('When a casino launches a player, then the token is dropped from the redirect', async () => {
    const { token } = await casinoPlayer(g);
    const res = await launch(p, launchQuery(g, token));
    const location = redirectOf(res);
    expect(location.searchParams.has('token')).toBe(false);
    expect(res.headers.get('location')).not.toContain(token);
    expect(res.text).not.toContain(token);
  });

  test('When a casino sends the launch parameters and extras, then each is forwarded verbatim and in order', async () => {
    const { token } = await casinoPlayer(g);
    const forwarded = [
      `providerId=${encodeURIComponent(g.providerId)}`,
      `gameId=${g.gameId}`,
      'currency=EUR',
      'language=en',
      'backtoHome=https%3A%2F%2Fcasino.example%2Flobby%3Fa%3D1%26b%3D2',
      'foo=bar',
    ];
    const location = redirectOf(await launch(p, [`token=${token}`, ...forwarded].join('&')));
    const pairs = rawQueryOf(location).split('&');
    expect(pairs.filter((pair) => !pair.startsWith('sessionId='))).toEqual(['skin=dark', ...forwarded]);
    expect(location.searchParams.get('backtoHome')).toBe('https://casino.example/lobby?a=1&b=2');
    expect(location.searchParams.get('foo')).toBe('bar');
    expect(location.searchParams.get('gameId')).toBe(String(g.gameId));
  });

  test('When forwarded values are unicode, encoded, empty or repeated, then each reaches the frontend byte for byte', async () => {
    const { token } = await casinoPlayer(g);
    const extras = [
      'note=h%C3%A9llo%20w%C3%B6rld', // %20, not '+'
      'spaced=a+b', // a form-encoded space stays as the casino wrote it
      'emoji=%F0%9F%8E%B0%E2%9C%93',
      'plus=1%2B1',
      'amp=Tom%20%26%20Jerry%3D%3F',
      'tilde=~user',
      'empty=',
      'dup=1',
      'dup=2',
      'na%C3%AFve=yes',
    ];
    const location = redirectOf(await launch(p, `${launchQuery(g, token)}&${extras.join('&')}`));
    const pairs = rawQueryOf(location).split('&');
    expect(pairs.slice(-extras.length)).toEqual(extras);
    const q = location.searchParams;
    expect(q.get('note')).toBe('héllo wörld');
    expect(q.get('spaced')).toBe('a b');
    expect(q.get('emoji')).toBe('🎰✓');
    expect(q.get('plus')).toBe('1+1');
    expect(q.get('amp')).toBe('Tom & Jerry=?');
    expect(q.get('empty')).toBe('');
    expect(q.getAll('dup')).toEqual(['1', '2']);
    expect(q.get('naïve')).toBe('yes');
  });

  test('When the casino sends skin=light and the frontendUrl has ?skin=dark, then the frontendUrl wins', async () => {
    const { token } = await casinoPlayer(g);
    const location = redirectOf(await launch(p, `${launchQuery(g, token)}&skin=light`));
    expect(location.searchParams.getAll('skin')).toEqual(['dark']);
  });

  test('When the frontendUrl fixes a launch parameter itself, then its value wins there too, while the session keeps the casino value', async () => {
    const world = await startGameWorld(p, { sandbox, frontendUrl: 'https://game.example.com/play?language=fr&skin=dark' });
    const { token } = await casinoPlayer(world);
    const res = await launch(p, launchQuery(world, token, { language: 'en' }));
    const location = redirectOf(res);
    expect(location.searchParams.getAll('language')).toEqual(['fr']);
    const valid = await validate(world, sessionIdOf(res));
    expect(valid.body.data.language).toBe('en');
  });

  test('When the casino sends a sessionId of its own, then only the relay sessionId reaches the frontend', async () => {
    const { token } = await casinoPlayer(g);
    const location = redirectOf(await launch(p, `${launchQuery(g, token)}&sessionId=forged-by-casino`));
    const ids = location.searchParams.getAll('sessionId');
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toBe('forged-by-casino');
    expect((await validate(g, ids[0])).status).toBe(200);
  });

  describe('backtoHome', () => {
    let lobby: Server;
    let lobbyHits = 0;
    let lobbyUrl: string;
    beforeAll(async () => {
      lobby = createServer((_req, res) => {
        lobbyHits++;
        res.end('lobby');
      });
      await new Promise<void>((resolve) => lobby.listen(0, '127.0.0.1', resolve));
      lobbyUrl = `http://127.0.0.1:${(lobby.address() as { port: number }).port}/lobby?from=game`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => lobby.close(() => resolve()));
    });

    test('When the casino sends backtoHome, then it is only a forwarded link: neither the launch nor the game routes ever follow it', async () => {
      const { token } = await casinoPlayer(g);
      const res = await launch(p, launchQuery(g, token, { backtoHome: lobbyUrl }));
      const location = redirectOf(res);
      expect(`${location.origin}${location.pathname}`).toBe('https://game.example.com/play');
      expect(location.searchParams.get('backtoHome')).toBe(lobbyUrl);
      const sessionId = sessionIdOf(res);
      expect((await validate(g, sessionId)).status).toBe(200);
      expect((await g.call('GET', `/api/account?sessionId=${sessionId}`)).status).toBe(200);
      expect(lobbyHits).toBe(0);
    });
  });
});

describe('GET /launch and the casino wallet', () => {
  test('When players launch, then the casino wallet is not called at all', async () => {
    const before = sandbox.countCalls();
    for (let i = 0; i < 3; i++) {
      const { token } = await casinoPlayer(g);
      redirectOf(await launch(p, launchQuery(g, token)));
    }
    expect(sandbox.countCalls()).toBe(before);
  });

  test('When the casino wallet is down, then the player still enters the game (and only validation sees the outage)', async () => {
    const port = await closedPort();
    const world = await startGameWorld(p, { sandbox, walletUrl: `http://127.0.0.1:${port}/wallet` });
    const before = sandbox.countCalls();
    const { token } = await casinoPlayer(world);
    const res = await launch(p, launchQuery(world, token));
    expect(res.status).toBe(302);
    const valid = await validate(world, sessionIdOf(res));
    expect(valid.status).toBe(502);
    expect(valid.body.error).toBe('PROVIDER_API_FAILURE');
    expect(sandbox.countCalls()).toBe(before);
  });
});
