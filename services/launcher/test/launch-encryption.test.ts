import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { compactDecrypt } from 'jose';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { startPlatform, type TestPlatform } from '../../../test/platform';
import { adminDelete, adminPut } from '../../../test/provision';
import { eventually } from '../../../test/faults/support/money';
import { casinoPlayer, launch, launchQuery, rawQueryOf, redirectOf } from './launch-support';

/**
 * Spec Launch, encrypted launch parameters: with a published RSA key the frontend gets sessionId and
 * its own parameters in the clear and everything forwarded inside `payload`, a JWE only the game
 * provider's private key opens. Admin changes (rotation, opt-out) reach the launcher over the change
 * bus in milliseconds; the tests poll for them with a deadline that only bounds a worker stalled by a
 * loaded machine, far under the 30 s cache lifetime, so a change the bus never carried still fails.
 */
const PROPAGATION_DEADLINE_MS = 10_000;
let p: TestPlatform;
let sandbox: CasinoSandbox;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
  sandbox = await startCasinoSandbox();
});
afterAll(async () => {
  await p.stop();
  await sandbox.close();
});

interface RsaPair {
  publicKeyPem: string;
  privateKey: KeyObject;
}

function rsaPair(): RsaPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey };
}

async function publishKey(g: GameWorld, pair: RsaPair): Promise<void> {
  const res = await adminPut(p, `game-providers/${g.groupId}/launch-encryption-key`, { publicKeyPem: pair.publicKeyPem });
  expect(res.status).toBe(200);
}

/** What the game frontend does with `payload`: decrypt with its private key. */
async function openPayload(payload: string, privateKey: KeyObject) {
  const { plaintext, protectedHeader } = await compactDecrypt(payload, privateKey);
  return { query: new TextDecoder().decode(plaintext), protectedHeader };
}

const FORWARDED_NAMES = ['providerId', 'gameId', 'currency', 'language', 'backtoHome', 'foo', 'note'];

describe('GET /launch with encrypted launch parameters', () => {
  test('When the game provider published a key, then the forwarded parameters travel only inside an RSA-OAEP-256/A256GCM payload', async () => {
    const g = await startGameWorld(p, { sandbox }); // frontendUrl ?skin=dark
    const pair = rsaPair();
    await publishKey(g, pair);
    const { token } = await casinoPlayer(g);
    const extras = 'backtoHome=https%3A%2F%2Fcasino.example%2Flobby&foo=bar&note=h%C3%A9llo%20w%C3%B6rld&skin=light';
    const res = await launch(p, `${launchQuery(g, token)}&${extras}`);
    const location = redirectOf(res);

    expect(`${location.origin}${location.pathname}`).toBe('https://game.example.com/play');
    expect([...location.searchParams.keys()]).toEqual(['skin', 'sessionId', 'payload']);
    expect(location.searchParams.get('skin')).toBe('dark');
    for (const name of [...FORWARDED_NAMES, 'token']) expect(location.searchParams.has(name)).toBe(false);
    expect(res.headers.get('location')).not.toContain(token);

    const payload = location.searchParams.get('payload') as string;
    expect(payload.split('.')).toHaveLength(5);
    const opened = await openPayload(payload, pair.privateKey);
    expect(opened.protectedHeader).toEqual({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'application/x-www-form-urlencoded' });
    expect(opened.query).toBe(
      `providerId=${encodeURIComponent(g.providerId)}&gameId=${g.gameId}&currency=EUR&language=en&backtoHome=https%3A%2F%2Fcasino.example%2Flobby&foo=bar&note=h%C3%A9llo%20w%C3%B6rld`,
    );
    const inside = new URLSearchParams(opened.query);
    expect(inside.get('note')).toBe('héllo wörld');
    expect(inside.has('skin')).toBe(false); // the frontendUrl's own value wins and is in the clear
    expect(inside.has('token')).toBe(false);
    expect(inside.has('sessionId')).toBe(false);

    const valid = await g.call('GET', `/api/v1/sessions/${location.searchParams.get('sessionId')}?gameId=${g.gameId}`);
    expect(valid.status).toBe(200);
  });

  test('When every launch parameter is fixed by the frontendUrl, then there is nothing to forward and no payload', async () => {
    const fixed = await startGameWorld(p, {
      sandbox,
      frontendUrl: `https://game.example.com/play?providerId=x&gameId=1&currency=EUR&language=en`,
    });
    await publishKey(fixed, rsaPair());
    const { token } = await casinoPlayer(fixed);
    const location = redirectOf(await launch(p, launchQuery(fixed, token)));
    expect(location.searchParams.has('payload')).toBe(false);
    expect(location.searchParams.has('sessionId')).toBe(true);
  });

  test('When the key is rotated, then the next payload opens only with the new key', async () => {
    const g = await startGameWorld(p, { sandbox });
    const oldPair = rsaPair();
    const newPair = rsaPair();
    await publishKey(g, oldPair);
    const before = redirectOf(await launch(p, launchQuery(g, (await casinoPlayer(g)).token)));
    await openPayload(before.searchParams.get('payload') as string, oldPair.privateKey);

    await publishKey(g, newPair);
    let payload = '';
    const opensWithNewKey = async () => {
      payload = redirectOf(await launch(p, launchQuery(g, (await casinoPlayer(g)).token))).searchParams.get('payload') as string;
      return openPayload(payload, newPair.privateKey).then(() => true, () => false);
    };
    await eventually(opensWithNewKey, PROPAGATION_DEADLINE_MS, 'the launcher to use the new key');
    expect((await openPayload(payload, newPair.privateKey)).query).toContain(`gameId=${g.gameId}`);
    await expect(openPayload(payload, oldPair.privateKey)).rejects.toThrow();
  });

  test('When the game provider opts out, then the parameters are forwarded in the clear again', async () => {
    const g = await startGameWorld(p, { sandbox });
    await publishKey(g, rsaPair());
    expect(redirectOf(await launch(p, launchQuery(g, (await casinoPlayer(g)).token))).searchParams.has('payload')).toBe(true);

    expect((await adminDelete(p, `game-providers/${g.groupId}/launch-encryption-key`)).status).toBe(200);
    let location = new URL('about:blank');
    const inTheClear = async () => {
      location = redirectOf(await launch(p, `${launchQuery(g, (await casinoPlayer(g)).token)}&foo=bar`));
      return !location.searchParams.has('payload');
    };
    await eventually(inTheClear, PROPAGATION_DEADLINE_MS, 'the launcher to forward in the clear');
    expect(location.searchParams.has('payload')).toBe(false);
    expect(location.searchParams.get('providerId')).toBe(g.providerId);
    expect(location.searchParams.get('gameId')).toBe(String(g.gameId));
    expect(location.searchParams.get('currency')).toBe('EUR');
    expect(location.searchParams.get('language')).toBe('en');
    expect(location.searchParams.get('foo')).toBe('bar');
  });

  test('When one game provider publishes a key, then the games of another one keep clear parameters', async () => {
    const encrypted = await startGameWorld(p, { sandbox });
    const clear = await startGameWorld(p, { sandbox });
    await publishKey(encrypted, rsaPair());
    // Once the key is in use for its owner, the other game provider still launches in the clear.
    await eventually(async () => redirectOf(await launch(p, launchQuery(encrypted, (await casinoPlayer(encrypted)).token))).searchParams.has('payload'), PROPAGATION_DEADLINE_MS, 'the key to be in use');
    const location = redirectOf(await launch(p, launchQuery(clear, (await casinoPlayer(clear)).token)));
    expect(location.searchParams.has('payload')).toBe(false);
    expect(location.searchParams.get('providerId')).toBe(clear.providerId);
  });

  test('When a casino sends a payload parameter of its own to an encrypting game, then only the relay payload reaches the frontend', async () => {
    const g = await startGameWorld(p, { sandbox });
    const pair = rsaPair();
    await publishKey(g, pair);
    const location = redirectOf(await launch(p, `${launchQuery(g, (await casinoPlayer(g)).token)}&payload=forged`));
    const payloads = location.searchParams.getAll('payload');
    expect(payloads).toHaveLength(1);
    expect((await openPayload(payloads[0], pair.privateKey)).query).not.toContain('forged');
    expect(rawQueryOf(location)).not.toContain('forged');
  });
});
