import { generateKeyPairSync } from 'node:crypto';
import { hashToken, type Change } from '@relay/shared';
import { http, startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminDelete, adminGet, adminPost, adminPut, provisionWorld } from '../../../test/provision';

let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
});
afterAll(async () => {
  await p.stop();
});

const rsaPublicPem = (bits: number, type: 'spki' | 'pkcs1' = 'spki') =>
  generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ type, format: 'pem' }).toString();

async function newGroup(): Promise<string> {
  const groupId = uniqueId('grp');
  expect((await adminPut(p, `game-providers/${groupId}`, { name: 'Crash Games Ltd' })).status).toBe(200);
  return groupId;
}

/** Changes as another process (the gateway) sees them on the bus. */
function watchChanges(): Change[] {
  const seen: Change[] = [];
  p.runtimes.gateway!.bus.onChange((c) => c && seen.push(c));
  return seen;
}

describe('PUT /admin/v1/game-providers/{groupId}', () => {
  test('When a game provider is created, then it is stored ACTIVE and answered without launch key', async () => {
    const groupId = uniqueId('grp');
    const res = await adminPut(p, `game-providers/${groupId}`, { name: 'Crash Games Ltd' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ groupId, name: 'Crash Games Ltd', status: 'ACTIVE', launchEncryption: false, rateLimitPerSecond: null });
  });

  test('When its status is changed, then gateways hear of it on the change bus and refuse its token', async () => {
    const world = await provisionWorld(p);
    await http('GET', `${p.baseUrl}/api/v1/providers/ids`, { token: world.providerToken }); // warms the gateway cache
    const seen = watchChanges();
    const res = await adminPut(p, `game-providers/${world.groupId}`, { name: 'Crash Games Ltd', status: 'INACTIVE' });
    expect(res.body.data.status).toBe('INACTIVE');
    await waitFor(() => seen.some((c) => c.kind === 'group' && c.key === world.groupId));
    const refused = await http('GET', `${p.baseUrl}/api/v1/providers/ids`, { token: world.providerToken });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('GROUP_NOT_ACTIVE');
  });

  test.each([
    ['no name', {}],
    ['an unknown status', { name: 'x', status: 'active' }],
    ['a negative rate limit', { name: 'x', rateLimitPerSecond: -1 }],
  ])('When the body has %s, then 400 Bad Request', async (_what, body) => {
    const res = await adminPut(p, `game-providers/${uniqueId('grp')}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
  });

  test('When the game provider does not exist, then GET answers 404 GROUP_NOT_FOUND', async () => {
    const res = await adminGet(p, `game-providers/${uniqueId('missing')}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('GROUP_NOT_FOUND');
  });
});

describe('game provider tokens', () => {
  test('When a token is created, then 201 shows it once and only its SHA-256 is stored', async () => {
    const groupId = await newGroup();
    const res = await adminPost(p, `game-providers/${groupId}/tokens`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ statusCode: 201, data: { tokenId: expect.any(String), token: expect.stringMatching(/^grp_[\w-]{43}$/) } });
    const { tokenId, token } = res.body.data;
    const row = await p.db.primary('provider_tokens').where({ token_id: tokenId }).first();
    expect(row).toMatchObject({ group_id: groupId, token_hash: hashToken(token), revoked_at: null });
    expect(JSON.stringify(row)).not.toContain(token);

    const read = await adminGet(p, `game-providers/${groupId}`);
    expect(read.body.data.tokens).toEqual([{ tokenId, createdAt: expect.any(String), revokedAt: null }]);
    expect(read.text).not.toContain(token);
  });

  test('When a token is revoked, then it is marked revoked, gateways hear of it, and it no longer authenticates', async () => {
    const world = await provisionWorld(p);
    // Reporting is not running here: the gateway authenticates, then fails to reach it.
    const before = await http('GET', `${p.baseUrl}/api/v1/providers/ids`, { token: world.providerToken });
    expect(before.status).not.toBe(403);
    const seen = watchChanges();
    const res = await adminDelete(p, `game-providers/${world.groupId}/tokens/${world.tokenId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    const row = await p.db.primary('provider_tokens').where({ token_id: world.tokenId }).first();
    expect(row.revoked_at).toBeInstanceOf(Date);
    await waitFor(() => seen.some((c) => c.kind === 'token' && c.key === hashToken(world.providerToken)));
    const after = await http('GET', `${p.baseUrl}/api/v1/providers/ids`, { token: world.providerToken });
    expect(after.status).toBe(403);
    expect(after.body.error).toBe('AUTHENTICATION_FAILED');
    // Revoking again is harmless and keeps the first revocation time.
    expect((await adminDelete(p, `game-providers/${world.groupId}/tokens/${world.tokenId}`)).status).toBe(200);
    const again = await p.db.primary('provider_tokens').where({ token_id: world.tokenId }).first();
    expect(again.revoked_at).toEqual(row.revoked_at);
  });

  test('When the token is unknown or belongs to another game provider, then 404 TOKEN_NOT_FOUND', async () => {
    const world = await provisionWorld(p);
    const other = await newGroup();
    for (const path of [`game-providers/${world.groupId}/tokens/${uniqueId('tok')}`, `game-providers/${other}/tokens/${world.tokenId}`]) {
      const res = await adminDelete(p, path);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('TOKEN_NOT_FOUND');
    }
  });

  test('When the game provider does not exist, then token routes answer 404 GROUP_NOT_FOUND', async () => {
    const missing = uniqueId('missing');
    expect((await adminPost(p, `game-providers/${missing}/tokens`)).body.error).toBe('GROUP_NOT_FOUND');
    expect((await adminDelete(p, `game-providers/${missing}/tokens/x`)).body.error).toBe('GROUP_NOT_FOUND');
  });
});

describe('launch encryption key', () => {
  test('When a 2048-bit RSA public key is set, then it is stored as SPKI PEM and can be rotated and removed', async () => {
    const groupId = await newGroup();
    const first = rsaPublicPem(2048);
    const res = await adminPut(p, `game-providers/${groupId}/launch-encryption-key`, { publicKeyPem: first });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ groupId, publicKeyPem: first, modulusLength: 2048 });
    expect((await adminGet(p, `game-providers/${groupId}`)).body.data).toMatchObject({ launchEncryption: true, launchPublicKeyPem: first });

    // A PKCS#1 block is accepted and normalised, so the launcher reads one format.
    const second = generateKeyPairSync('rsa', { modulusLength: 3072 }).publicKey;
    const pkcs1 = second.export({ type: 'pkcs1', format: 'pem' }).toString();
    const rotated = await adminPut(p, `game-providers/${groupId}/launch-encryption-key`, { publicKeyPem: pkcs1 });
    expect(rotated.body.data).toMatchObject({ modulusLength: 3072, publicKeyPem: second.export({ type: 'spki', format: 'pem' }).toString() });
    const row = await p.db.primary('game_providers').where({ group_id: groupId }).first('launch_public_key_pem');
    expect(row.launch_public_key_pem).toContain('BEGIN PUBLIC KEY');

    const removed = await adminDelete(p, `game-providers/${groupId}/launch-encryption-key`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toBeNull();
    expect((await adminGet(p, `game-providers/${groupId}`)).body.data).toMatchObject({ launchEncryption: false, launchPublicKeyPem: null });
  });

  const ecPublic = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const rsaPrivate = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  test.each([
    ['a 1024-bit RSA key', () => rsaPublicPem(1024)],
    ['a private key', rsaPrivate],
    ['a public key with a private key appended', () => rsaPublicPem(2048) + rsaPrivate()],
    ['an EC key', ecPublic],
    ['text that is no key', () => '-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n'],
    ['an empty string', () => ''],
  ])('When the key is %s, then 400 INVALID_PUBLIC_KEY and nothing changes', async (_what, pem) => {
    const groupId = await newGroup();
    const res = await adminPut(p, `game-providers/${groupId}/launch-encryption-key`, { publicKeyPem: pem() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'INVALID_PUBLIC_KEY', data: null });
    expect(res.text).not.toContain('PRIVATE KEY');
    expect((await adminGet(p, `game-providers/${groupId}`)).body.data.launchEncryption).toBe(false);
  });

  test('When the body has no publicKeyPem, then 400 Bad Request', async () => {
    const res = await adminPut(p, `game-providers/${await newGroup()}/launch-encryption-key`, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
  });

  test('When the game provider does not exist, then 404 GROUP_NOT_FOUND', async () => {
    const missing = uniqueId('missing');
    expect((await adminPut(p, `game-providers/${missing}/launch-encryption-key`, { publicKeyPem: rsaPublicPem(2048) })).body.error).toBe('GROUP_NOT_FOUND');
    expect((await adminDelete(p, `game-providers/${missing}/launch-encryption-key`)).body.error).toBe('GROUP_NOT_FOUND');
  });
});

/**
 * Polls until `condition` holds. The change arrives in milliseconds; the deadline only bounds a
 * worker stalled by a loaded machine, and stays far under the caches' 30 s lifetime, so a change
 * that was never published still fails here.
 */
async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
