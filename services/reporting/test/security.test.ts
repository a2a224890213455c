import { http, startPlatform, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { get, insertRound, insertTransaction } from './fixtures';

/** The checks every reporting route shares: who may call it, and what another game provider sees. */
describe('Reporting access', () => {
  let p: TestPlatform;
  let world: World;
  let other: World;
  let roundId: string;
  let transactionId: string;

  const listRoutes = ['/api/v1/rounds', '/api/v1/transactions', '/api/v1/providers/ids', '/api/v1/provider-catalog'];
  const detailRoutes = () => [`/api/v1/rounds/${world.providerId}/${roundId}`, `/api/v1/transactions/${world.providerId}/${transactionId}`];

  beforeAll(async () => {
    p = await startPlatform();
    world = await provisionWorld(p);
    other = await provisionWorld(p);
    roundId = (await insertRound(p.db.primary, { groupId: world.groupId, providerId: world.providerId, gameId: world.gameId })).round_id as string;
    transactionId = (await insertTransaction(p.db.primary, { groupId: world.groupId, providerId: world.providerId, roundId, gameId: world.gameId })).transaction_id as string;
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('When a reporting route is called without a token or with an unknown one, then 403 AUTHENTICATION_FAILED in the envelope', async () => {
    for (const path of [...listRoutes, ...detailRoutes()]) {
      for (const token of [undefined, 'not-a-token']) {
        const res = await http('GET', `${p.baseUrl}${path}`, { token });
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ statusCode: 403, error: 'AUTHENTICATION_FAILED', data: null });
      }
    }
  });

  it('When the reporting service is reached directly without a gateway identity, then it refuses', async () => {
    const direct = p.services.reporting!.url;
    for (const path of [...listRoutes, ...detailRoutes()]) {
      const res = await http('GET', `${direct}${path}`, { token: world.providerToken });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('AUTHENTICATION_FAILED');
    }
    const admin = await http('GET', `${direct}/api/v1/rounds`, { headers: await p.identityHeader({ kind: 'admin' }) });
    expect(admin.status).toBe(403);
  });

  it('When the owner asks, then it sees its records; when another game provider asks, then it sees none of them', async () => {
    const [ownRounds, ownTxs] = await Promise.all([get(p, '/api/v1/rounds', world.providerToken), get(p, '/api/v1/transactions', world.providerToken)]);
    expect(ownRounds.body.data.map((x: { roundId: string }) => x.roundId)).toEqual([roundId]);
    expect(ownTxs.body.data.map((x: { transactionId: string }) => x.transactionId)).toEqual([transactionId]);
    for (const path of detailRoutes()) expect((await get(p, path, world.providerToken)).status).toBe(200);

    const [rounds, txs] = await Promise.all([get(p, '/api/v1/rounds', other.providerToken), get(p, '/api/v1/transactions', other.providerToken)]);
    expect(rounds.body).toMatchObject({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    expect(txs.body).toMatchObject({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    const filtered = await get(p, `/api/v1/rounds?providerId=${world.providerId}&roundId=${roundId}`, other.providerToken);
    expect(filtered.body.data).toEqual([]);
    const [roundRes, txRes] = await Promise.all(detailRoutes().map((path) => get(p, path, other.providerToken)));
    expect(roundRes).toMatchObject({ status: 404, body: { error: 'ROUND_NOT_FOUND' } });
    expect(txRes).toMatchObject({ status: 404, body: { error: 'TRANSACTION_NOT_FOUND' } });
  });

  it('When any reporting route answers, then no secret is in the response', async () => {
    const secrets = [world.walletSecret, world.launchKey, world.providerToken, other.walletSecret, other.launchKey];
    for (const path of [...listRoutes, ...detailRoutes()]) {
      const res = await get(p, path, world.providerToken);
      expect(res.status).toBe(200);
      for (const secret of secrets) expect(res.text).not.toContain(secret);
      expect(res.text).not.toMatch(/walletToken|wallet_token|walletSecret|launchKey|fingerprint/i);
    }
  });

  it('When an unknown reporting path is asked, then 404 NOT_FOUND in the envelope', async () => {
    for (const path of ['/api/v1/rounds/only-one-segment', '/api/v1/rounds/a/b/c', '/api/v1/transactions/x']) {
      const res = await get(p, path, world.providerToken);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND', data: null });
    }
  });
});
