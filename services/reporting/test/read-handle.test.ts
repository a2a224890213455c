import {
  createRuntime, closeRuntime, createKnex, dropDatabase, loadConfig, IdentitySigner, type Knex, type Runtime, type RunningServer,
} from '@relay/shared';
import { migrateReporting } from '@relay/ledger';
import { http, uniqueId } from '../../../test/platform';
import { startReporting } from '../src';
import { insertRound, insertTransaction } from './fixtures';

/**
 * Reporting is handed the reporting database alone, proven from the outside: reporting runs with
 * a reporting database that is a separate database holding different data (subscribed to nothing:
 * the test writes its rows and a fresh heartbeat itself), and a money database that does not exist
 * at all. Every answer must come from the reporting database and none may fail.
 */
describe('Reporting reads', () => {
  const groupId = uniqueId('grp-read');
  const providerId = uniqueId('cas-read');
  const primaryUrl = process.env.DATABASE_URL!;
  const replicaUrl = `${primaryUrl}_unsubscribed`;
  let primary: Knex;
  let replica: Knex;
  let rt: Runtime;
  let server: RunningServer;
  let identity: Record<string, string>;

  beforeAll(async () => {
    await migrateReporting(replicaUrl);
    primary = createKnex(primaryUrl, 2, 'test-primary');
    replica = createKnex(replicaUrl, 2, 'test-replica');
    // Nothing listens on port 9: any use of the primary handle fails the request.
    const config = loadConfig({ ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:9/nowhere', REPORTING_DATABASE_URL: replicaUrl });
    rt = await createRuntime('reporting', config);
    server = (await startReporting(rt, 0)).server;
    identity = { 'x-relay-identity': await new IdentitySigner(config.INTERNAL_AUTH_SECRET).sign({ kind: 'provider', groupId }) };

    await insertRound(primary, { groupId, providerId, roundId: 'only-in-primary' });
    await insertRound(replica, { groupId, providerId, roundId: 'only-in-replica' });
    await insertTransaction(primary, { groupId, providerId, transactionId: 'tx-only-in-primary', roundId: 'only-in-replica' });
    await insertTransaction(replica, { groupId, providerId, transactionId: 'tx-only-in-replica', roundId: 'only-in-replica' });
    await replica('replication_heartbeat').insert({ id: 1, beat: 1, beat_at: replica.fn.now(), horizon_at: replica.fn.now() });
    await replica('game_providers').insert({ group_id: groupId, name: 'Reads' });
    await replica('games').insert({ game_id: 424242, group_id: groupId, name: 'Replica game', frontend_url: 'https://g.example' });
    await replica('casinos').insert({ provider_id: providerId, name: 'Replica casino', wallet_url: 'http://w' });
    await replica('casino_game_configs').insert({ provider_id: providerId, game_id: 424242, overrides: '{}' });
  });

  // DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
  afterAll(async () => {
    await server?.close(1000);
    if (rt) await closeRuntime(rt);
    await primary?.destroy();
    await replica?.destroy();
    await dropDatabase(replicaUrl);
  }, 120_000);

  const get = (path: string) => http('GET', `${server.url}${path}`, { headers: identity });

  it('When reporting lists rounds and transactions, then the rows come from the read database', async () => {
    const rounds = await get('/api/v1/rounds');
    expect(rounds.status).toBe(200);
    expect(rounds.body.data.map((r: { roundId: string }) => r.roundId)).toEqual(['only-in-replica']);
    expect(rounds.body.meta.total).toBe(1);

    const transactions = await get('/api/v1/transactions');
    expect(transactions.status).toBe(200);
    expect(transactions.body.data.map((t: { transactionId: string }) => t.transactionId)).toEqual(['tx-only-in-replica']);
  });

  it('When a detail is asked, then it is looked up in the read database only', async () => {
    const round = await get(`/api/v1/rounds/${providerId}/only-in-replica`);
    expect(round.status).toBe(200);
    expect(round.body.data.transactions.map((t: { transactionId: string }) => t.transactionId)).toEqual(['tx-only-in-replica']);
    expect((await get(`/api/v1/rounds/${providerId}/only-in-primary`)).body.error).toBe('ROUND_NOT_FOUND');
    expect((await get(`/api/v1/transactions/${providerId}/tx-only-in-replica`)).status).toBe(200);
    expect((await get(`/api/v1/transactions/${providerId}/tx-only-in-primary`)).body.error).toBe('TRANSACTION_NOT_FOUND');
  });

  it('When casino ids and the catalog are asked, then they come from the read database', async () => {
    const ids = await get('/api/v1/providers/ids?days=1');
    expect(ids.status).toBe(200);
    expect(ids.body.data.map((c: { providerId: string }) => c.providerId)).toEqual([providerId]);
    const catalog = await get('/api/v1/provider-catalog');
    expect(catalog.status).toBe(200);
    expect(catalog.body.data).toEqual([
      expect.objectContaining({ providerId, name: 'Replica casino', games: [expect.objectContaining({ gameId: 424242, gameConfig: null })] }),
    ]);
  });

  it('When readiness is asked, then it depends on the read database only', async () => {
    const ready = await http('GET', `${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ postgres_reporting: 'ok' });
  });

  it('When the reporting database is behind by more than REPORTING_MAX_LAG_SECONDS, then every reporting route answers 503 with Retry-After, and answers again once it caught up', async () => {
    const fresh = await get('/api/v1/rounds');
    expect(fresh.status).toBe(200);
    expect(Date.parse(fresh.headers.get('x-reporting-fresh-as-of')!)).toBeGreaterThan(Date.now() - 60_000);
    expect(Number(fresh.headers.get('x-reporting-lag-seconds'))).toBeLessThan(10);

    await replica('replication_heartbeat').where({ id: 1 }).update({ beat_at: replica.raw(`now() - interval '42 seconds'`) });
    await new Promise((r) => setTimeout(r, 250)); // a fresh reading is reused for 200 ms
    for (const path of ['/api/v1/rounds', '/api/v1/transactions', `/api/v1/rounds/${providerId}/only-in-replica`, '/api/v1/providers/ids?days=1', '/api/v1/provider-catalog']) {
      const stale = await get(path);
      expect({ path, status: stale.status, error: stale.body?.error }).toEqual({ path, status: 503, error: 'SERVICE_UNAVAILABLE' });
      expect(Number(stale.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // 42 s and however long the machine took since the heartbeat was set back.
      const behind = Number(/^Reporting is (\d+) s behind/.exec(stale.body.message)?.[1]);
      expect(behind).toBeGreaterThanOrEqual(42);
      expect(behind).toBeLessThan(60);
      expect(Number(stale.headers.get('x-reporting-lag-seconds'))).toBeGreaterThanOrEqual(42);
    }

    await replica('replication_heartbeat').where({ id: 1 }).update({ beat_at: replica.fn.now() });
    expect((await get('/api/v1/rounds')).status).toBe(200);
  });
});
