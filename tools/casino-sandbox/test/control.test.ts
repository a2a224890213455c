import { compactDecrypt } from 'jose';
import { randomBytes } from 'node:crypto';
import { startCasinoSandbox, createLaunchToken, type CasinoSandbox } from '@relay/casino-sandbox';
import { balanceBody, debitBody, rawPost } from './support';

const P = 'sbx-control-casino';
let sandbox: CasinoSandbox;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}/_control${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

beforeAll(async () => {
  sandbox = await startCasinoSandbox(); // no secret: signatures not checked until one is set
});

afterAll(async () => {
  await sandbox.close();
});

describe('sandbox control API', () => {
  it('When a separate process scripts the sandbox over HTTP, then players, balances, faults and records follow', async () => {
    expect(await api('POST', '/players', { providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: '20.50', username: 'Bo' })).toMatchObject({ status: 201, body: { balance: 20.5, username: 'Bo' } });
    expect((await api('GET', `/players/${P}/p1`)).body).toMatchObject({ providerId: P, playerId: 'p1', balance: 20.5 });
    expect((await api('GET', `/players/${P}/p1`)).body).not.toHaveProperty('walletToken');
    expect((await api('GET', `/players/${P}/nobody`)).status).toBe(404);

    expect(await rawPost(`${sandbox.walletUrl}/debit`, debitBody(P, 'p1', 'wt-1', 'tx-ctl-1', 0.5), { signature: null })).toMatchObject({ status: 200, body: { balance: 20 } });
    expect((await api('GET', `/journal?providerId=${P}`)).body).toMatchObject({ count: 1, entries: [{ transactionId: 'tx-ctl-1', amount: 0.5, balanceAfter: 20 }] });
    expect((await api('GET', `/ledger?providerId=${P}`)).body.players).toEqual([expect.objectContaining({ playerId: 'p1', balance: 20 })]);
    expect((await api('GET', '/calls?operation=debit')).body.count).toBe(1);

    expect((await api('POST', '/faults', { match: { operation: 'balance' }, fault: { kind: 'error', status: 503 }, times: 1 })).status).toBe(201);
    expect((await api('GET', '/faults')).body.faults).toHaveLength(1);
    expect((await rawPost(`${sandbox.walletUrl}/balance`, balanceBody(P, 'p1', 'wt-1'))).status).toBe(503);
    expect((await api('POST', '/faults', { fault: { kind: 'tokenExpired' } })).status).toBe(201);
    expect((await api('DELETE', '/faults')).status).toBe(200);
    expect((await rawPost(`${sandbox.walletUrl}/balance`, balanceBody(P, 'p1', 'wt-1'))).status).toBe(200);

    expect((await api('PUT', `/players/${P}/p1/balance`, { balance: 3 })).body).toMatchObject({ balance: 3 });
    expect((await rawPost(`${sandbox.walletUrl}/round-ended`, { providerId: P, groupId: 'g', roundId: 'r' })).status).toBe(200);
    expect((await api('GET', '/round-ended')).body).toMatchObject({ count: 1, notifications: [{ providerId: P, roundId: 'r' }] });
  });

  it('When a secret is set over HTTP, then unsigned calls of that casino are refused', async () => {
    await api('POST', '/players', { providerId: P, playerId: 'p9', walletToken: 'wt-9', balance: 1 });
    expect((await api('POST', '/secrets', { providerId: P, secret: 'http-secret' })).status).toBe(200);
    expect(await rawPost(`${sandbox.walletUrl}/balance`, balanceBody(P, 'p9', 'wt-9'), { signature: null })).toEqual({ status: 401, body: { error: 'BAD_SIGNATURE' } });
    expect((await rawPost(`${sandbox.walletUrl}/balance`, balanceBody(P, 'p9', 'wt-9'), { secret: 'http-secret' })).status).toBe(200);
    await api('POST', '/secrets', { providerId: P, secret: null });
    expect((await rawPost(`${sandbox.walletUrl}/balance`, balanceBody(P, 'p9', 'wt-9'), { signature: null })).status).toBe(200);
  });

  it('When control input is invalid, then 400 BAD_REQUEST, never a 500', async () => {
    expect(await api('POST', '/players', { providerId: P, playerId: 'p1', walletToken: 'x', balance: -1 })).toMatchObject({ status: 400, body: { error: 'BAD_REQUEST' } });
    expect((await api('POST', '/faults', { fault: { kind: 'explode' } })).status).toBe(400);
    expect((await api('POST', '/launch-token', { launchKey: 'short', providerId: P, playerId: 'p', walletToken: 'w' })).status).toBe(400);
    const res = await fetch(`${sandbox.url}/_control/players`, { method: 'POST', body: '{not json' });
    expect(res.status).toBe(400);
    expect((await api('GET', '/nothing-here')).status).toBe(404);
    expect((await fetch(`${sandbox.walletUrl}/transfer`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(`${sandbox.walletUrl}/debit`, { method: 'POST', body: 'x'.repeat(70_000) })).status).toBe(413);
  });

  it('When the sandbox is reset, then players, records and faults are gone', async () => {
    await api('POST', '/faults', { fault: { kind: 'reset' } });
    expect((await api('POST', '/reset')).status).toBe(200);
    expect((await api('GET', '/ledger')).body.players).toEqual([]);
    expect((await api('GET', '/calls')).body.count).toBe(0);
    expect((await api('GET', '/faults')).body.faults).toEqual([]);
  });
});

describe('launch token (docs/integrating-a-casino.md)', () => {
  const launchKey = randomBytes(32).toString('base64url');

  it('When a launch token is created, then it is a dir/A256GCM compact JWE whose plaintext holds the claims', async () => {
    const token = await createLaunchToken({ launchKey, providerId: P, playerId: 'p1', walletToken: 'wt-1', username: 'Ann', currency: 'EUR', gameId: 7, jti: 'j-1' });
    expect(token.split('.')).toHaveLength(5);
    const { plaintext, protectedHeader } = await compactDecrypt(token, Buffer.from(launchKey, 'base64url'));
    expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM' });
    const claims = JSON.parse(new TextDecoder().decode(plaintext));
    expect(claims).toMatchObject({ providerId: P, playerId: 'p1', walletToken: 'wt-1', username: 'Ann', currency: 'EUR', gameId: 7, jti: 'j-1' });
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it('When claims are overridden for a negative test, then the token carries exactly them', async () => {
    const token = await createLaunchToken({ launchKey, providerId: P, playerId: 'p1', walletToken: 'wt-1', exp: 1000, claims: { walletToken: undefined, extra: true } });
    const claims = JSON.parse(new TextDecoder().decode((await compactDecrypt(token, Buffer.from(launchKey, 'base64url'))).plaintext));
    expect(claims).not.toHaveProperty('walletToken');
    expect(claims).toMatchObject({ exp: 1000, extra: true });
  });

  it('When the launch key is not 32 bytes, then creating a token fails', async () => {
    await expect(createLaunchToken({ launchKey: randomBytes(16).toString('base64url'), providerId: P, playerId: 'p1', walletToken: 'w' })).rejects.toThrow('32 bytes');
  });

  it('When a token is requested over the control API, then it decrypts with the launch key', async () => {
    const { status, body } = await api('POST', '/launch-token', { launchKey, providerId: P, playerId: 'p2', walletToken: 'wt-2', gameId: 3 });
    expect(status).toBe(200);
    const claims = JSON.parse(new TextDecoder().decode((await compactDecrypt(body.token, Buffer.from(launchKey, 'base64url'))).plaintext));
    expect(claims).toMatchObject({ playerId: 'p2', gameId: 3 });
  });
});
