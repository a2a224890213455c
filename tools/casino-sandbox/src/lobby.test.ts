import { randomBytes } from 'node:crypto';
import { compactDecrypt } from 'jose';
import { startCasinoSandbox, type CasinoSandbox } from './index';

const P = 'sbx-lobby-casino';
const launchKey = randomBytes(32).toString('base64url');
let sandbox: CasinoSandbox;

const lobbyConfig = { launcherUrl: 'http://relay.example:8080/', providerId: P, launchKey, gameId: 42, currency: 'EUR', casinoName: 'Lobby <Test>' };

async function send(method: string, path: string, body?: string, type = 'application/x-www-form-urlencoded') {
  const res = await fetch(`${sandbox.url}${path}`, { method, redirect: 'manual', headers: body ? { 'content-type': type } : {}, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function walletBalance(playerId: string, walletToken: string) {
  return sandbox.handle('balance', Buffer.from(JSON.stringify({ providerId: P, playerId, walletToken, sessionId: 's', gameId: 42, currency: 'EUR' })), {});
}

beforeAll(async () => {
  sandbox = await startCasinoSandbox(); // no secret: the wallet calls below are unsigned
});

afterAll(async () => {
  await sandbox.close();
});

describe('sandbox lobby', () => {
  it('When the lobby is not configured, then the page says so and Play launches nothing', async () => {
    const fresh = await startCasinoSandbox();
    try {
      expect((await fetch(`${fresh.url}/lobby`)).status).toBe(503);
      expect((await fetch(`${fresh.url}/lobby/play`, { method: 'POST', body: 'playerId=x', redirect: 'manual' })).status).toBe(503);
      expect((await fetch(`${fresh.url}/_control/lobby`)).status).toBe(404);
    } finally {
      await fresh.close();
    }
  });

  it('When players exist, then the lobby lists this casino\'s players with their balances, escaped', async () => {
    sandbox.lobby.configure(lobbyConfig);
    sandbox.addPlayer({ providerId: P, playerId: 'ann', walletToken: 'wt-ann', balance: '12.5', username: '<b>Ann</b>' });
    sandbox.addPlayer({ providerId: P, playerId: 'odd', walletToken: 'wt-odd', balance: '7.125' });
    sandbox.addPlayer({ providerId: 'another-casino', playerId: 'zed', walletToken: 'wt-zed', balance: 1 });

    const page = await send('GET', '/lobby');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Lobby &lt;Test&gt;');
    expect(page.text).toContain('&lt;b&gt;Ann&lt;/b&gt;');
    expect(page.text).not.toContain('<b>Ann</b>');
    expect(page.text).toContain('12.50 EUR');
    expect(page.text).toContain('7.125 EUR'); // more than cents is shown exactly, not rounded
    expect(page.text).not.toContain('zed');
    expect(page.text).not.toContain('wt-ann');
    expect((await send('GET', '/')).headers.get('location')).toBe('/lobby');
  });

  it('When Play is pressed, then the browser goes to the relay launch with a fresh single-use token and the old wallet token expires', async () => {
    sandbox.lobby.configure(lobbyConfig);
    sandbox.addPlayer({ providerId: P, playerId: 'bea', walletToken: 'wt-bea-old', balance: '30.01', username: 'Bea' });

    const res = await send('POST', '/lobby/play', 'playerId=bea');
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('http://relay.example:8080/launch');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      token: expect.any(String),
      providerId: P,
      gameId: '42',
      currency: 'EUR',
      language: 'en',
      backtoHome: `${sandbox.url}/lobby`,
    });

    const { plaintext, protectedHeader } = await compactDecrypt(location.searchParams.get('token')!, Buffer.from(launchKey, 'base64url'));
    expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM' });
    const claims = JSON.parse(Buffer.from(plaintext).toString('utf8'));
    expect(claims).toMatchObject({ providerId: P, playerId: 'bea', username: 'Bea', currency: 'EUR', gameId: 42, jti: expect.any(String), exp: expect.any(Number) });
    expect(claims.walletToken).not.toBe('wt-bea-old');

    const withNew = await walletBalance('bea', claims.walletToken);
    expect(withNew).toMatchObject({ kind: 'answer', status: 200 });
    expect(JSON.parse((withNew as { text: string }).text)).toEqual({ balance: 30.01, username: 'Bea' });
    expect(await walletBalance('bea', 'wt-bea-old')).toMatchObject({ status: 401 });
  });

  it('When Play names a player the casino does not have, or the method is wrong, then nothing is launched', async () => {
    sandbox.lobby.configure(lobbyConfig);
    const unknown = await send('POST', '/lobby/play', 'playerId=%3Cscript%3E');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('&lt;script&gt;');
    expect((await send('GET', '/lobby/play')).status).toBe(405);
    expect((await send('DELETE', '/lobby')).status).toBe(405);
  });

  it('When the lobby is configured over the control API, then it answers without the launch key and refuses bad input', async () => {
    const put = await send('PUT', '/_control/lobby', JSON.stringify({ ...lobbyConfig, gameName: 'Dice' }), 'application/json');
    expect(put.status).toBe(200);
    expect(JSON.parse(put.text)).toEqual({ launcherUrl: lobbyConfig.launcherUrl, providerId: P, gameId: 42, currency: 'EUR', language: 'en', casinoName: 'Lobby <Test>', gameName: 'Dice', url: `${sandbox.url}/lobby` });
    expect((await send('GET', '/_control/lobby')).text).not.toContain(launchKey);

    expect((await send('PUT', '/_control/lobby', '{', 'application/json')).status).toBe(400);
    expect((await send('PUT', '/_control/lobby', JSON.stringify({ ...lobbyConfig, launchKey: 'short' }), 'application/json')).status).toBe(400);
    expect((await send('PUT', '/_control/lobby', JSON.stringify({ ...lobbyConfig, launcherUrl: 'javascript:alert(1)' }), 'application/json')).status).toBe(400);
  });
});
