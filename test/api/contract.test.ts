import { generateKeyPairSync } from 'node:crypto';
import { createLaunchToken } from '@relay/casino-sandbox';
import { signCasinoRequest } from '@relay/shared';
import { http, startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { serviceFor } from '../../services/gateway/src/routes/route-table';
import { ContractChecker } from './support/contract';
import { servedRoutes } from './support/routes';

/**
 * Contract tests of the API reference: the whole platform in this process, and every documented
 * operation of the game and admin APIs answered at least once with success and once with an
 * error, each answer held against the document (status, headers, body: no undocumented field).
 * The casino protocol is checked from the other side: the relay's calls the sandbox casino received
 * must fit that document's request bodies.
 */
const contract = new ContractChecker(['game', 'admin']);

describe('the API reference against the running platform', () => {
  let p: TestPlatform;
  let g: GameWorld;
  let pl: Player;

  /** One request through the gateway, its answer checked against the reference, its status asserted. */
  const call = async (method: string, path: string, status: number, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const res = await http(method, `${p.baseUrl}${path}`, options);
    contract.check(method, path, res);
    expect({ route: `${method} ${path}`, status: res.status, body: res.status === status ? undefined : res.text }).toEqual({ route: `${method} ${path}`, status, body: undefined });
    return res;
  };
  const game = (method: string, path: string, status: number, body?: unknown) => call(method, path, status, { token: g.providerToken, body });
  const admin = (method: string, path: string, status: number, body?: unknown) => call(method, `/admin/v1/${path}`, status, { token: p.adminToken, body });

  beforeAll(async () => {
    p = await startPlatform();
    g = await startGameWorld(p);
    pl = await g.launchPlayer({ balance: 100 });
  });

  afterAll(async () => {
    await g?.sandbox.close();
    await p?.stop();
  });

  it('When a casino launches a player, then the redirect and a refused token are the documented answers', async () => {
    const token = await createLaunchToken({ launchKey: g.launchKey, providerId: g.providerId, playerId: uniqueId('player'), walletToken: uniqueId('wt') });
    const query = (t: string) => `/launch?${new URLSearchParams({ token: t, providerId: g.providerId, gameId: String(g.gameId), currency: 'EUR', language: 'en' })}`;
    const res = await call('GET', query(token), 302);
    expect(new URL(res.headers.get('location')!).searchParams.get('sessionId')).toBeTruthy();
    await call('GET', query('not-a-token'), 401);
    await call('GET', '/launch?providerId=x', 400);
  });

  it('When a game validates a session and reads the balance, then success and errors are documented', async () => {
    await game('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}&currency=eur`, 200);
    await game('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId + 1}`, 400);
    await game('GET', `/api/v1/sessions/unknown-session?gameId=${g.gameId}`, 403);
    await game('GET', `/api/v1/sessions/${pl.sessionId}/free-rounds`, 200);
    await game('GET', '/api/v1/sessions/unknown-session/free-rounds', 403);
    await game('GET', `/api/account?sessionId=${pl.sessionId}&currency=EUR`, 200);
    await game('GET', '/api/account', 400);
    await call('GET', `/api/account?sessionId=${pl.sessionId}`, 403, { token: 'not-a-token' });
  });

  it('When money moves, then cash-out, cash-in, retry and round-ended answer as documented', async () => {
    const roundId = uniqueId('round');
    const bet = { sessionId: pl.sessionId, gameId: g.gameId, currency: 'EUR', roundId, transactionId: `${roundId}-bet`, amount: 2.5, game: { gameData: { pick: 7 } } };
    await game('POST', '/api/balance/cash-out', 200, bet);
    await game('POST', '/api/balance/cash-out', 200, bet); // a replay: the stored answer
    await game('POST', '/api/balance/cash-out', 400, { ...bet, transactionId: `${roundId}-big`, amount: 1000 }); // FUND_WITHDRAW_FAILED
    await game('POST', '/api/balance/cash-out', 400, { ...bet, amount: 10.005 });
    const win = { ...bet, transactionId: `${roundId}-win`, amount: 4.75, reason: 'NORMAL_WIN', appliedMultiplier: 1.9, previousTransactionId: bet.transactionId, betAmount: 2.5, game: { outcome: 'WIN', settlementData: { roll: 7 } } };
    await game('POST', '/api/balance/cash-in', 200, win);
    await game('POST', '/api/balance/cash-in', 400, { ...win, reason: 'JACKPOT' });
    await game('POST', '/api/balance/cash-in/retry', 200, { ...win, transactionId: `${roundId}-retry`, reason: 'BET_LOST', amount: 0, appliedMultiplier: 0 });
    await call('POST', '/api/balance/cash-in/retry', 403, { body: win });
    await game('POST', '/api/round-ended', 200, { roundId, providerIds: [g.providerId] });
    await game('POST', '/api/round-ended', 404, { roundId, providerIds: [uniqueId('nobody')] });
    await game('POST', '/api/round-ended', 400, { roundId: 'a:b', providerIds: [] });
  });

  it('When a game reads casinos and reports, then every list, detail and refusal is documented', async () => {
    await admin('PUT', `casinos/${g.providerId}/games/${g.gameId}/currencies/EUR`, 200, { minBet: 0.1, maxBet: 50, defaultBet: 1, betSuggestions: [1, 2], maxWin: 500 });
    await game('GET', '/api/v1/providers/ids?days=30', 200);
    await game('GET', '/api/v1/providers/ids?days=31', 400);
    const catalog = await game('GET', `/api/v1/provider-catalog?gameId=${g.gameId}`, 200);
    expect(catalog.body.data).toHaveLength(1);
    await game('GET', '/api/v1/provider-catalog?casino=x', 400);

    const rounds = await game('GET', `/api/v1/rounds?providerId=${g.providerId}&sortBy=betAmount&sortOrder=asc&limit=5`, 200);
    expect(rounds.body.data.length).toBeGreaterThan(0);
    await game('GET', '/api/v1/rounds?limit=101', 400);
    const round = rounds.body.data[0];
    await game('GET', `/api/v1/rounds/${g.providerId}/${encodeURIComponent(round.roundId)}`, 200);
    await game('GET', `/api/v1/rounds/${g.providerId}/no-such-round`, 404);

    const transactions = await game('GET', `/api/v1/transactions?providerId=${g.providerId}&status=FAILED`, 200);
    expect(transactions.body.data.length).toBeGreaterThan(0); // the refused debit
    await game('GET', `/api/v1/transactions?providerId=${g.providerId}&category=CASH_IN`, 200);
    await game('GET', '/api/v1/transactions?status=LOST', 400);
    const tx = transactions.body.data[0];
    await game('GET', `/api/v1/transactions/${g.providerId}/${encodeURIComponent(tx.transactionId)}`, 200);
    await game('GET', `/api/v1/transactions/${g.providerId}/no-such-transaction`, 404);
  });

  it('When the platform team provisions, then every admin route answers as documented', async () => {
    const groupId = uniqueId('grp');
    const providerId = uniqueId('cas');
    const gameId = uniqueGameId();
    await admin('PUT', `game-providers/${groupId}`, 200, { name: 'Contract Studio', rateLimitPerSecond: 100 });
    await admin('PUT', `game-providers/${groupId}`, 400, { name: '' });
    const issued = await admin('POST', `game-providers/${groupId}/tokens`, 201);
    await admin('POST', `game-providers/${uniqueId('nobody')}/tokens`, 404);
    await admin('GET', `game-providers/${groupId}`, 200);
    await admin('GET', `game-providers/${uniqueId('nobody')}`, 404);
    await admin('GET', 'game-providers?page=1&limit=2', 200);
    await admin('GET', 'game-providers?limit=0', 400);
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await admin('PUT', `game-providers/${groupId}/launch-encryption-key`, 200, { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) });
    await admin('PUT', `game-providers/${groupId}/launch-encryption-key`, 400, { publicKeyPem: 'not a key' });
    await admin('DELETE', `game-providers/${groupId}/launch-encryption-key`, 200);
    await admin('DELETE', `game-providers/${uniqueId('nobody')}/launch-encryption-key`, 404);

    await admin('PUT', `games/${gameId}`, 200, { name: 'Contract Game', groupId, frontendUrl: 'https://game.example.com/play' });
    await admin('PUT', `games/${gameId}`, 404, { name: 'Contract Game', groupId: uniqueId('nobody'), frontendUrl: 'https://game.example.com/play' });
    await admin('GET', `games/${gameId}`, 200);
    await admin('GET', `games/${uniqueGameId()}`, 404);
    await admin('GET', `games?groupId=${groupId}`, 200);
    await admin('GET', 'games?groupId=a:b', 400);
    await admin('GET', `games/${gameId}/config-template`, 404);
    const template = { properties: [{ name: 'theme', type: 'DROPDOWN', values: ['light', 'dark'], required: true, default: 'light' }, { name: 'turbo', type: 'BOOLEAN' }] };
    await admin('PUT', `games/${gameId}/config-template`, 200, template);
    await admin('PUT', `games/${gameId}/config-template`, 400, { properties: [{ name: 'providerId', type: 'STRING' }] });
    await admin('GET', `games/${gameId}/config-template`, 200);

    await admin('PUT', `casinos/${providerId}`, 200, { name: 'Contract Casino', walletUrl: 'https://casino.example.com/wallet' });
    await admin('PUT', `casinos/${providerId}`, 400, { name: 'Contract Casino', walletUrl: 'ftp://casino.example.com' });
    await admin('GET', 'casinos?page=1&limit=2', 200);
    await admin('GET', 'casinos?limit=0', 400);
    await admin('GET', `casinos/${providerId}`, 200);
    await admin('GET', `casinos/${uniqueId('nobody')}`, 404);
    await admin('GET', `casinos/${providerId}/free-rounds`, 200);
    await admin('GET', `casinos/${uniqueId('nobody')}/free-rounds`, 404);
    await admin('PUT', `casinos/${providerId}/free-rounds`, 200, { mode: 'managed' });
    await admin('PUT', `casinos/${providerId}/free-rounds`, 400, { mode: 'strict' });

    await admin('GET', `casinos/${providerId}/games/${gameId}/config`, 404);
    await admin('PUT', `casinos/${providerId}/games/${gameId}/config`, 200, { values: { theme: 'dark' } });
    await admin('PUT', `casinos/${providerId}/games/${gameId}/config`, 400, { values: { theme: 'purple' } });
    await admin('GET', `casinos/${providerId}/games/${gameId}/config`, 200);
    await admin('PUT', `games/${gameId}/config-template`, 409, { properties: [{ name: 'theme', type: 'DROPDOWN', values: ['light'], required: true, default: 'light' }] });

    const eur = { minBet: 1, maxBet: 100, defaultBet: 2, betSuggestions: [1, 5], maxWin: 1000, minAutoCashout: 1.01, maxAutoCashout: 100, defaultAutoCashout: 2, isDefault: true };
    await admin('PUT', `casinos/${providerId}/games/${gameId}/currencies/EUR`, 200, eur);
    await admin('PUT', `casinos/${providerId}/games/${gameId}/currencies/USD`, 400, { ...eur, minBet: 200 });
    await admin('GET', `casinos/${providerId}/games/${gameId}/currencies`, 200);
    await admin('GET', `casinos/${uniqueId('nobody')}/games/${gameId}/currencies`, 404);
    await admin('DELETE', `casinos/${providerId}/games/${gameId}/currencies/EUR`, 200);
    await admin('DELETE', `casinos/${providerId}/games/${gameId}/currencies/EUR`, 404);

    await admin('DELETE', `game-providers/${groupId}/tokens/${issued.body.data.tokenId}`, 200);
    await admin('DELETE', `game-providers/${groupId}/tokens/${issued.body.data.tokenId}-not`, 404);
    await admin('DELETE', `casinos/${providerId}`, 200);
    await admin('DELETE', `casinos/${providerId}`, 404);
    await call('GET', '/admin/v1/casinos', 403, { token: g.providerToken });
  });

  it('When the relay called the sandbox casino, then every call fits the casino protocol document', () => {
    const calls = g.sandbox.calls({ providerId: g.providerId });
    const operations = new Set(calls.map((c) => c.operation));
    expect([...operations].sort()).toEqual(['balance', 'credit', 'debit', 'round-ended']);
    for (const record of calls) {
      expect(record.signature).toBe('valid');
      // The sandbox keeps no copy of the player's wallet token; the relay sent it (the signature covers it).
      const body = record.operation === 'round-ended' ? record.body : { ...record.body, walletToken: 'recorded-without-it' };
      const pointer = `/paths/~1${record.operation}/post/requestBody/content/application~1json/schema`;
      expect({ operation: record.operation, problem: contract.validate('casino', pointer, body) }).toEqual({ operation: record.operation, problem: null });
    }
  });

  it('When the sandbox casino is called as the relay calls it, then its answers fit the casino protocol document', async () => {
    const roundId = uniqueId('round');
    const player = { providerId: g.providerId, playerId: pl.playerId, walletToken: pl.walletToken, sessionId: pl.sessionId, gameId: g.gameId, currency: 'EUR' };
    const debit = { ...player, roundId, transactionId: `${roundId}-bet`, amount: 1 };
    const bodies: Record<string, unknown> = {
      balance: player,
      debit,
      credit: { ...debit, transactionId: `${roundId}-win`, amount: 2, reason: 'NORMAL_WIN', appliedMultiplier: 2, betAmount: 1, previousTransactionId: debit.transactionId, isRetry: false },
      'round-ended': { providerId: g.providerId, groupId: g.groupId, roundId },
    };
    for (const [operation, body] of Object.entries(bodies)) {
      for (const [expected, sent] of [[200, body], [400, { ...(body as object), walletToken: 'not-the-players' }]] as const) {
        if (operation === 'round-ended' && expected === 400) continue; // carries no wallet token
        const problem = contract.validate('casino', `/paths/~1${operation}/post/requestBody/content/application~1json/schema`, sent);
        if (expected === 200) expect({ operation, problem }).toEqual({ operation, problem: null });
        const text = JSON.stringify(sent);
        const timestamp = Math.floor(Date.now() / 1000);
        const res = await fetch(`${g.walletUrl}/${operation}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-relay-timestamp': String(timestamp), 'x-relay-signature': signCasinoRequest(g.walletSecret, timestamp, text) },
          body: text,
        });
        const key = res.status === 200 ? '200' : `${String(res.status)[0]}XX`;
        expect({ operation, ok: res.status === 200 }).toEqual({ operation, ok: expected === 200 });
        const answer = (await res.json()) as unknown;
        const pointer = `/paths/~1${operation}/post/responses/${key}/content/application~1json/schema`;
        expect({ operation, status: res.status, problem: contract.validate('casino', pointer, answer) }).toEqual({ operation, status: res.status, problem: null });
      }
    }
  });

  it('When the services\' routers are read, then they serve exactly the documented operations, each behind the gateway', () => {
    const served = servedRoutes(p.runtimes);
    const documented = (['game', 'admin', 'backoffice'] as const).flatMap((name) =>
      Object.entries((contract.documents[name] as { paths: Record<string, Record<string, unknown>> }).paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    const all = Object.values(served).flat();
    expect({ servedButUndocumented: all.filter((r) => !documented.includes(r)), documentedButNotServed: documented.filter((r) => !all.includes(r)) }).toEqual({
      servedButUndocumented: [],
      documentedButNotServed: [],
    });
    // The gateway's route table sends each documented path to the service that declares it.
    for (const [service, routes] of Object.entries(served)) {
      for (const route of routes) {
        const concrete = route.split(' ')[1].replace(/\{[^}]+\}/g, 'x');
        expect({ route, service: serviceFor(concrete) }).toEqual({ route, service });
      }
    }
  });

  it('When the suite is done, then every documented operation was seen with a success and an error answer', () => {
    expect(contract.missing()).toEqual([]);
  });
});
