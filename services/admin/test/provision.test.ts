import { startPlatform, type TestPlatform } from '../../../test/platform';
import { adminGet, provisionWorld } from '../../../test/provision';

let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
});
afterAll(async () => {
  await p.stop();
});

describe('provisionWorld (the integration tests\' provisioning helper)', () => {
  test('When called without options, then it creates an active game provider, token, game and casino', async () => {
    const w = await provisionWorld(p);
    expect(w.providerToken).toMatch(/^grp_/);
    expect(Buffer.from(w.launchKey, 'base64url')).toHaveLength(32);
    expect((await adminGet(p, `game-providers/${w.groupId}`)).body.data).toMatchObject({ status: 'ACTIVE', tokens: [{ tokenId: w.tokenId }] });
    expect((await adminGet(p, `games/${w.gameId}`)).body.data).toMatchObject({ groupId: w.groupId, frontendUrl: 'https://game.example.com/play?skin=dark', status: 'ACTIVE' });
    expect((await adminGet(p, `casinos/${w.providerId}`)).body.data).toMatchObject({ walletUrl: 'http://127.0.0.1:9/wallet', status: 'ACTIVE' });
  });

  test('When options are given, then each reaches the record it names', async () => {
    const w = await provisionWorld(p, {
      walletUrl: 'http://127.0.0.1:5555/w',
      casinoStatus: 'INACTIVE',
      groupStatus: 'INACTIVE',
      gameStatus: 'INACTIVE',
      frontendUrl: 'https://other.example/g',
      refundOnCreditFail: true,
      creditOnDisconnect: true,
    });
    expect(w.frontendUrl).toBe('https://other.example/g');
    expect((await adminGet(p, `game-providers/${w.groupId}`)).body.data.status).toBe('INACTIVE');
    expect((await adminGet(p, `games/${w.gameId}`)).body.data).toMatchObject({ status: 'INACTIVE', frontendUrl: 'https://other.example/g' });
    expect((await adminGet(p, `casinos/${w.providerId}`)).body.data).toMatchObject({
      walletUrl: 'http://127.0.0.1:5555/w',
      status: 'INACTIVE',
      refundOnCreditFail: true,
      creditOnDisconnect: true,
    });
  });
});
