import { createLaunchToken } from '@relay/casino-sandbox';
import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { adminDelete, adminPost, adminPut, provisionWorld } from '../provision';
import { betBody, winBody } from '../../services/wallet/test/money-support';
import { scenarioIt, Tally } from '../faults/support/reliability';
import { eventually } from '../faults/support/money';
import { ADMIN_ROUTES, CURRENCY_CONFIG, GAME_ROUTES, makeTarget, type GameRoute, type Target } from './support/routes';

/**
 * One shared suite over every route: who may call it, and that a game provider never reads or
 * changes another's sessions, rounds, transactions, games or catalog entries. Two game providers,
 * A and B, each with its own casino, player, settled round and open round; and A's game launched at
 * B's casino, where ids are keyed per casino and A could try to reuse B's.
 */
const tally = new Tally(
  'isolation',
  'Isolation between game providers, and who may call each route',
  'test/security/isolation.test.ts',
  "Every game route called without a token, with a garbage, admin, revoked or inactive provider's token (403 AUTHENTICATION_FAILED / GROUP_NOT_ACTIVE), every admin route with a provider token (403); then provider A's token against each of provider B's records on every route: session routes answer GAME_NOT_OWNED_BY_GROUP, details 404, lists and catalog never show B's records whatever the filters, round-ended reaches casinos as A. At a casino both use, A cannot reuse B's transactionIds (400, casino not called) nor settle or take over B's rounds. After all of it B's records and B's casino are unchanged.",
);
const scenario = scenarioIt(tally);

describe('isolation between game providers, on every route', () => {
  let p: TestPlatform;
  let a: Target;
  let b: Target;
  let snapshot: () => Promise<unknown>;

  const as = (token: string | undefined, route: GameRoute, t: Target) => {
    tally.request();
    return http(route.method, `${p.baseUrl}${route.path(t)}`, { token, body: route.body?.(t) });
  };
  const codeOf = (res: { body: any }) => res.body?.error;

  beforeAll(async () => {
    p = await startPlatform();
    const worldA = await startGameWorld(p);
    const worldB = await startGameWorld(p, { sandbox: worldA.sandbox });
    [a, b] = await Promise.all([makeTarget(worldA), makeTarget(worldB)]);
    // Catalog entries: each game at its own casino, and B's game also at A's casino.
    for (const [casino, game] of [[worldA.providerId, worldA.gameId], [worldB.providerId, worldB.gameId], [worldA.providerId, worldB.gameId]] as const) {
      expect((await adminPut(p, `casinos/${casino}/games/${game}/currencies/EUR`, CURRENCY_CONFIG)).status).toBe(200);
    }
    const bRows = () => p.db.primary('transactions').where({ group_id: worldB.groupId }).orderBy('transaction_id').select('transaction_id', 'status', 'updated_at', 'balance');
    const bRounds = () => p.db.primary('rounds').where({ group_id: worldB.groupId }).orderBy('round_id').select('round_id', 'status', 'updated_at', 'bet_transaction_id');
    snapshot = async () => ({
      transactions: await bRows(),
      rounds: await bRounds(),
      casino: worldB.sandbox.ledger({ providerId: worldB.providerId }),
      journal: worldB.sandbox.journal({ providerId: worldB.providerId }).length,
    });
  }, 60000);
  afterAll(async () => {
    tally.write();
    await p?.stop();
    await a?.world.sandbox.close();
  });

  describe('who may call a route', () => {
    scenario('When any game route is called without a token, with an unknown one, or with the admin token, then 403 AUTHENTICATION_FAILED in its style and nothing changes', async () => {
      const before = await snapshot();
      for (const route of GAME_ROUTES) {
        for (const token of [undefined, 'not-a-token', `${b.world.providerToken}x`, p.adminToken]) {
          const res = await as(token, route, b);
          expect({ route: route.name, status: res.status, code: codeOf(res) }).toEqual({ route: route.name, status: 403, code: 'AUTHENTICATION_FAILED' });
          if (route.style === 'envelope') expect(res.body).toMatchObject({ statusCode: 403, data: null });
          tally.check('refused without a valid provider token');
        }
      }
      expect(await snapshot()).toEqual(before);
    });

    scenario('When a revoked token or the token of an inactive game provider calls any game route, then 403 AUTHENTICATION_FAILED / GROUP_NOT_ACTIVE', async () => {
      const issued = await adminPost(p, `game-providers/${a.world.groupId}/tokens`);
      const revoked = String(issued.body.data.token);
      expect((await adminDelete(p, `game-providers/${a.world.groupId}/tokens/${issued.body.data.tokenId}`)).status).toBe(200);
      const inactive = await provisionWorld(p, { groupStatus: 'INACTIVE' });
      // docs/api/admin.json: refused everywhere once the change bus carries the revocation (milliseconds;
      // the deadline only bounds a stalled worker and stays far under the 30 s cache lifetime).
      await eventually(async () => (await as(revoked, GAME_ROUTES[1], a)).status === 403, 10_000, 'the revocation to take effect');
      for (const route of GAME_ROUTES) {
        expect([route.name, codeOf(await as(revoked, route, a))]).toEqual([route.name, 'AUTHENTICATION_FAILED']);
        expect([route.name, codeOf(await as(inactive.providerToken, route, a))]).toEqual([route.name, 'GROUP_NOT_ACTIVE']);
        tally.check('refused for a revoked token or an inactive game provider', 2);
      }
    });

    scenario('When a game provider token calls any admin route, then 403 AUTHENTICATION_FAILED and nothing changes', async () => {
      const before = await snapshot();
      for (const route of ADMIN_ROUTES) {
        for (const token of [b.world.providerToken, a.world.providerToken, undefined]) {
          tally.request();
          const res = await http(route.method, `${p.baseUrl}/admin/v1/${route.path(b)}`, { token, body: route.body });
          expect({ route: `${route.method} ${route.path(b)}`, status: res.status, code: codeOf(res) }).toMatchObject({ status: 403, code: 'AUTHENTICATION_FAILED' });
          tally.check('admin route refused to a provider token');
        }
      }
      expect(await snapshot()).toEqual(before);
      expect((await as(b.world.providerToken, GAME_ROUTES[1], b)).status).toBe(200); // B's token still works
    });
  });

  describe("game provider A against B's records", () => {
    for (const route of GAME_ROUTES) {
      scenario(`When A calls ${route.name} naming B's records, then it learns and changes nothing of B's`, async () => {
        const before = await snapshot();
        const res = await as(a.world.providerToken, route, b);
        switch (route.kind) {
          case 'session':
            expect([res.status, codeOf(res)]).toEqual([403, 'GAME_NOT_OWNED_BY_GROUP']);
            break;
          case 'detail':
            expect([res.status, codeOf(res)]).toEqual([404, route.name === 'round detail' ? 'ROUND_NOT_FOUND' : 'TRANSACTION_NOT_FOUND']);
            expect(res.body.data).toBeNull();
            break;
          case 'list':
            expect(res.status).toBe(200);
            expect(res.body).toMatchObject({ data: [], meta: { total: 0 } });
            break;
          case 'catalog':
            expect(res.status).toBe(200);
            expect(res.body.data).toEqual([]);
            break;
          case 'casino-ids':
            // Casinos belong to no game provider: ids are shared, and nothing else about them is shown.
            expect(res.status).toBe(200);
            for (const entry of res.body.data) expect(Object.keys(entry).sort()).toEqual(['createdAt', 'providerId']);
            break;
          case 'round-ended': {
            expect(res.status).toBe(200);
            const notice = b.world.sandbox.roundEnded({ providerId: b.world.providerId, roundId: b.openBet.roundId }).at(-1);
            expect(notice?.groupId).toBe(a.world.groupId); // the casino hears it from A, never in B's name
            break;
          }
        }
        expect(await snapshot()).toEqual(before);
        tally.check(`A cannot reach B's records through ${route.kind} routes`);
      });
    }

    scenario("When A lists rounds and transactions filtered by every id of B's, or reads its catalog, then none of B's records or games appears", async () => {
      const ids = { providerId: b.world.providerId, playerId: b.player.playerId, roundId: b.settledBet.roundId, gameId: String(b.world.gameId) };
      for (const list of ['/api/v1/rounds', '/api/v1/transactions']) {
        for (const [key, value] of [...Object.entries(ids), ['transactionId', b.settledBet.transactionId]]) {
          if (list === '/api/v1/rounds' && key === 'transactionId') continue;
          tally.request();
          const res = await a.world.call('GET', `${list}?${key}=${encodeURIComponent(value)}&limit=100`);
          expect([list, key, res.status, res.body.meta.total]).toEqual([list, key, 200, 0]);
        }
        const own = await a.world.call('GET', `${list}?limit=100`);
        expect(own.body.data.length).toBeGreaterThan(0);
        for (const record of own.body.data) expect(record.groupId).toBe(a.world.groupId);
      }
      const catalog = await a.world.call('GET', '/api/v1/provider-catalog');
      const games = catalog.body.data.flatMap((entry: { games: { gameId: number }[] }) => entry.games.map((x) => x.gameId));
      expect(games).toEqual([a.world.gameId]);
      expect((await a.world.call('GET', `/api/v1/provider-catalog?providerId=${a.world.providerId}`)).body.data[0].games.map((x: { gameId: number }) => x.gameId)).toEqual([a.world.gameId]);
      tally.request(3);
      tally.check("no record or game of B in A's reports and catalog");
    });

    scenario("When A's game plays at B's casino and reuses B's transactionIds and roundIds, then B's records stay B's and B's casino is not called for them", async () => {
      const player = await launchAt(b.world, a.world);
      const before = await snapshot();
      const sandbox = b.world.sandbox;
      const callsFor = (transactionId: string) => sandbox.countCalls({ providerId: b.world.providerId, transactionId });

      for (const [path, body] of [
        ['/api/balance/cash-out', betBody(a.world, player, { transactionId: b.settledBet.transactionId, amount: 10 })],
        ['/api/balance/cash-in', winBody(a.world, player, b.settledBet, { transactionId: b.settlingWin.transactionId })],
        ['/api/balance/cash-in/retry', winBody(a.world, player, b.settledBet, { transactionId: b.settlingWin.transactionId })],
      ] as const) {
        const calls = callsFor(body.transactionId);
        const res = await a.world.call('POST', path, body);
        tally.request();
        expect([path, res.status, codeOf(res)]).toEqual([path, 400, 'Bad Request']);
        expect(JSON.stringify(res.body)).not.toContain(String(b.player.playerId));
        expect(callsFor(body.transactionId)).toBe(calls);
      }
      expect(await snapshot()).toEqual(before);

      // A's own money moves under B's open roundId, but B's round is neither taken over nor settled.
      const bet = betBody(a.world, player, { roundId: b.openBet.roundId, amount: 3 });
      expect((await a.world.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
      expect((await a.world.call('POST', '/api/balance/cash-in', winBody(a.world, player, bet, { amount: 6 }))).status).toBe(200);
      tally.request(2);
      const round = await p.db.primary('rounds').where({ provider_id: b.world.providerId, round_id: b.openBet.roundId }).first();
      expect(round).toMatchObject({ group_id: b.world.groupId, status: 'OPEN', bet_transaction_id: b.openBet.transactionId, player_id: b.player.playerId });
      const bView = await b.world.call('GET', `/api/v1/transactions?providerId=${b.world.providerId}&limit=100`);
      expect(bView.body.data.every((t: { groupId: string }) => t.groupId === b.world.groupId)).toBe(true);
      tally.check("B's ids at a shared casino stay B's");
    });
  });

  /** A player of `game`'s provider launched at `casino` (a casino may offer any provider's game). */
  async function launchAt(casino: GameWorld, game: GameWorld): Promise<Player> {
    const playerId = uniqueId('player');
    const walletToken = uniqueId('wallet-token');
    casino.sandbox.addPlayer({ providerId: casino.providerId, playerId, walletToken, balance: 100 });
    const token = await createLaunchToken({ launchKey: casino.launchKey, providerId: casino.providerId, playerId, walletToken });
    const query = new URLSearchParams({ token, providerId: casino.providerId, gameId: String(game.gameId), currency: 'EUR', language: 'en' });
    const res = await http('GET', `${p.baseUrl}/launch?${query}`);
    expect(res.status).toBe(302);
    return { playerId, walletToken, currency: 'EUR', sessionId: new URL(res.headers.get('location')!).searchParams.get('sessionId')! };
  }
});
