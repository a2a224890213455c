import { http, startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminDelete, adminGet, adminPut } from '../../../test/provision';

let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
});
afterAll(async () => {
  await p.stop();
});

const casinoBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Casino Royale',
  walletUrl: 'https://wallet.casino.example/relay',
  ...overrides,
});

async function storedSecrets(providerId: string): Promise<{ walletSecret: string; launchKey: string; raw: string }> {
  const row = await p.db.primary('casinos').where({ provider_id: providerId }).first('wallet_secret_enc', 'launch_key_enc');
  const box = p.runtimes.admin!.secrets;
  return { walletSecret: box.open(row.wallet_secret_enc), launchKey: box.open(row.launch_key_enc), raw: JSON.stringify(row) };
}

describe('PUT /admin/v1/casinos/{providerId}', () => {
  test('When a casino is created without secrets, then both are generated, returned once, and stored sealed', async () => {
    const providerId = uniqueId('cas');
    const res = await adminPut(p, `casinos/${providerId}`, casinoBody({ refundOnCreditFail: true }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
    const data = res.body.data;
    expect(data).toMatchObject({
      providerId,
      name: 'Casino Royale',
      walletUrl: 'https://wallet.casino.example/relay',
      status: 'ACTIVE',
      refundOnCreditFail: true,
      creditOnDisconnect: false,
    });
    expect(data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Buffer.from(data.launchKey, 'base64url')).toHaveLength(32);
    expect(data.walletSecret.length).toBeGreaterThanOrEqual(32);

    const stored = await storedSecrets(providerId);
    expect(stored).toMatchObject({ walletSecret: data.walletSecret, launchKey: data.launchKey });
    expect(stored.raw).not.toContain(data.walletSecret);
    expect(stored.raw).not.toContain(data.launchKey);

    const read = await adminGet(p, `casinos/${providerId}`);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('walletSecret');
    expect(read.body.data).not.toHaveProperty('launchKey');
    expect(read.text).not.toContain(data.walletSecret);
    expect(read.text).not.toContain(data.launchKey);
  });

  test('When secrets are supplied, then they are stored and never echoed', async () => {
    const providerId = uniqueId('cas');
    const walletSecret = 'a-casino-chosen-secret-0123456789';
    const launchKey = Buffer.alloc(32, 7).toString('base64url');
    const res = await adminPut(p, `casinos/${providerId}`, casinoBody({ walletSecret, launchKey }));
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('walletSecret');
    expect(res.body.data).not.toHaveProperty('launchKey');
    expect(res.text).not.toContain(walletSecret);
    expect(res.text).not.toContain(launchKey);
    await expect(storedSecrets(providerId)).resolves.toMatchObject({ walletSecret, launchKey });
  });

  test('When a casino is replaced without secrets, then every field is replaced and the stored secrets are kept', async () => {
    const providerId = uniqueId('cas');
    const created = (await adminPut(p, `casinos/${providerId}`, casinoBody({ creditOnDisconnect: true }))).body.data;
    const res = await adminPut(p, `casinos/${providerId}`, { name: 'Renamed', walletUrl: 'http://127.0.0.1:4000/w', status: 'INACTIVE' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ providerId, name: 'Renamed', walletUrl: 'http://127.0.0.1:4000/w', status: 'INACTIVE', creditOnDisconnect: false });
    expect(res.body.data).not.toHaveProperty('walletSecret');
    expect(res.body.data.createdAt).toBe(created.createdAt);
    await expect(storedSecrets(providerId)).resolves.toMatchObject({ walletSecret: created.walletSecret, launchKey: created.launchKey });
  });

  test('When a replace supplies a new launch key, then it rotates that key only', async () => {
    const providerId = uniqueId('cas');
    const created = (await adminPut(p, `casinos/${providerId}`, casinoBody())).body.data;
    const launchKey = Buffer.alloc(32, 9).toString('base64url');
    expect((await adminPut(p, `casinos/${providerId}`, casinoBody({ launchKey }))).status).toBe(200);
    await expect(storedSecrets(providerId)).resolves.toMatchObject({ walletSecret: created.walletSecret, launchKey });
  });

  test.each([
    ['no name', { walletUrl: 'https://w.example' }, 'name'],
    ['an empty name', casinoBody({ name: '  ' }), 'name'],
    ['a relative walletUrl', casinoBody({ walletUrl: '/wallet' }), 'walletUrl'],
    ['a non-http walletUrl', casinoBody({ walletUrl: 'ftp://w.example/x' }), 'walletUrl'],
    ['credentials in the walletUrl', casinoBody({ walletUrl: 'https://u:p@w.example/x' }), 'walletUrl'],
    ['a short walletSecret', casinoBody({ walletSecret: 'short' }), 'walletSecret'],
    ['a launchKey of 16 bytes', casinoBody({ launchKey: Buffer.alloc(16).toString('base64url') }), 'launchKey'],
    ['a launchKey that is not base64url', casinoBody({ launchKey: `${'!'.repeat(43)}` }), 'launchKey'],
    ['an unknown status', casinoBody({ status: 'PAUSED' }), 'status'],
    ['a non-boolean flag', casinoBody({ refundOnCreditFail: 'yes' }), 'refundOnCreditFail'],
  ])('When the body has %s, then 400 Bad Request names the field', async (_what, body, field) => {
    const res = await adminPut(p, `casinos/${uniqueId('cas')}`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  test('When the body providerId differs from the path, then 400', async () => {
    const res = await adminPut(p, `casinos/${uniqueId('cas')}`, casinoBody({ providerId: 'someone-else' }));
    expect(res.status).toBe(400);
  });

  test('When the providerId contains a colon, then 400 and nothing is stored', async () => {
    const res = await adminPut(p, 'casinos/bad:id', casinoBody());
    expect(res.status).toBe(400);
    expect(await p.db.primary('casinos').where({ provider_id: 'bad:id' }).first()).toBeUndefined();
  });

  test('When the body is not JSON, then 400 Bad Request in the envelope style', async () => {
    const res = await http('PUT', `${p.baseUrl}/admin/v1/casinos/${uniqueId('cas')}`, { token: p.adminToken, raw: '{"name":' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', data: null });
  });
});

describe('GET /admin/v1/casinos', () => {
  test('When casinos exist, then the list shows them newest first without secrets, with page meta', async () => {
    const first = uniqueId('cas');
    const second = uniqueId('cas');
    await adminPut(p, `casinos/${first}`, casinoBody());
    await adminPut(p, `casinos/${second}`, casinoBody());
    const res = await adminGet(p, 'casinos?limit=500');
    expect(res.status).toBe(200);
    const ids = res.body.data.map((c: { providerId: string }) => c.providerId);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    expect(ids.indexOf(first)).toBeGreaterThanOrEqual(0);
    expect(res.body.meta).toMatchObject({ page: 1, limit: 500 });
    for (const casino of res.body.data) {
      expect(casino).not.toHaveProperty('walletSecret');
      expect(casino).not.toHaveProperty('launchKey');
    }
  });

  test('When limit is out of range, then 400', async () => {
    expect((await adminGet(p, 'casinos?limit=0')).status).toBe(400);
  });

  test('When the casino does not exist, then 404 PROVIDER_NOT_FOUND', async () => {
    const res = await adminGet(p, `casinos/${uniqueId('missing')}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'PROVIDER_NOT_FOUND', data: null });
  });
});

describe('DELETE /admin/v1/casinos/{providerId}', () => {
  test('When a casino is deleted, then it answers 200 with data null and later calls get PROVIDER_NOT_FOUND', async () => {
    const providerId = uniqueId('cas');
    await adminPut(p, `casinos/${providerId}`, casinoBody());
    const res = await adminDelete(p, `casinos/${providerId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ statusCode: 200, message: expect.any(String), data: null });
    expect((await adminGet(p, `casinos/${providerId}`)).body.error).toBe('PROVIDER_NOT_FOUND');
    const again = await adminDelete(p, `casinos/${providerId}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('PROVIDER_NOT_FOUND');
  });
});
