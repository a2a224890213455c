import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { adminPut } from '../provision';
import { asOperator, bo, signedInOperator } from '../backoffice';

/**
 * Free-round awards between tenants (issue 35, first slice), one table over every award route and
 * every kind of caller: casino A's systems and people never see nor cancel casino B's awards; a
 * studio sees only awards valid for one of its games, at any casino, and writes none; finance reads
 * and writes none; the game route shows a session's player only their awards at that session's
 * casino, game and currency, and only to the game's provider.
 *
 * Casinos A and B, studios A and B (each with one game). Awards: `a` (casino A, game A), `b`
 * (casino B, game B), `ba` (casino B, game A: studio A's game played at casino B), `bab` (casino B,
 * games A and B: both studios see it).
 */
const HOUR = 3_600_000;
const LIMITS = { minBet: 0.1, maxBet: 50, defaultBet: 1, betSuggestions: [1], maxWin: 1000, isRoundable: false, isDefault: true };

type Name = 'a' | 'b' | 'ba' | 'bab';
type Send = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;
interface Row {
  caller: string;
  /** Which of the suite's awards the caller's list shows. */
  sees: Name[];
  /** Whether the caller may create and cancel (in its scope). */
  writes: boolean;
  /** The casino the caller acts for when it writes. */
  casino?: 'A' | 'B';
}

const TABLE: Row[] = [
  { caller: 'casino A API token', sees: ['a'], writes: true, casino: 'A' },
  { caller: 'casino B API token', sees: ['b', 'ba', 'bab'], writes: true, casino: 'B' },
  { caller: 'casino A support', sees: ['a'], writes: true, casino: 'A' },
  { caller: 'casino A admin', sees: ['a'], writes: true, casino: 'A' },
  { caller: 'casino A finance', sees: ['a'], writes: false },
  { caller: 'studio A admin', sees: ['a', 'ba', 'bab'], writes: false },
  { caller: 'studio B support', sees: ['b', 'bab'], writes: false },
  { caller: 'platform support', sees: ['a', 'b', 'ba', 'bab'], writes: true, casino: 'B' },
  { caller: 'platform finance', sees: ['a', 'b', 'ba', 'bab'], writes: false },
  { caller: 'ADMIN_TOKEN', sees: ['a', 'b', 'ba', 'bab'], writes: true, casino: 'A' },
];

let p: TestPlatform;
let A: GameWorld;
let B: GameWorld;
let playerA: Player;
let playerB: Player;
const campaignId = uniqueId('iso');
const callers = new Map<string, Send>();
/** The suite's awards by name: casino and award id. */
const awards: Record<Name, { providerId: string; awardId: string }> = {} as never;

const period = () => ({ startsAt: new Date(Date.now() - HOUR).toISOString(), expiresAt: new Date(Date.now() + 24 * HOUR).toISOString() });
const awardBody = (playerId: string, gameId: number | number[], extra: Record<string, unknown> = {}) => ({ awardId: uniqueId('award'), campaignId, playerId, currency: 'EUR', gameIds: Array.isArray(gameId) ? gameId : [gameId], rounds: 3, betValue: 1, ...period(), ...extra });
const byToken = (token: string | undefined): Send => (method, url, body) => http(method, url, { token, body });
const ids = (res: { body: any }) => (res.body.data as { awardId: string }[]).map((x) => x.awardId).sort();

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin', 'backoffice'] });
  A = await startGameWorld(p);
  B = await startGameWorld(p, { sandbox: A.sandbox });
  for (const [casino, game] of [[A.providerId, A.gameId], [B.providerId, B.gameId], [B.providerId, A.gameId]] as const) {
    expect((await adminPut(p, `casinos/${casino}/games/${game}/currencies/EUR`, LIMITS)).status).toBe(200);
  }
  playerA = await A.launchPlayer();
  playerB = await B.launchPlayer();
  for (const [name, world, body] of [['a', A, awardBody(playerA.playerId, A.gameId)], ['b', B, awardBody(playerB.playerId, B.gameId)], ['ba', B, awardBody(playerB.playerId, A.gameId)], ['bab', B, awardBody(playerB.playerId, [A.gameId, B.gameId])]] as const) {
    const res = await http('POST', bo(p, `casinos/${world.providerId}/free-rounds`), { token: p.adminToken, body });
    expect(res.status).toBe(201);
    awards[name] = { providerId: world.providerId, awardId: body.awardId };
  }
  for (const world of [A, B]) {
    const issued = await http('POST', bo(p, `casinos/${world.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'bonus engine' } });
    callers.set(`casino ${world === A ? 'A' : 'B'} API token`, byToken(issued.body.data.token));
  }
  const people: [string, 'admin' | 'support' | 'finance', Parameters<typeof signedInOperator>[2]][] = [
    ['casino A support', 'support', { type: 'casino', providerId: A.providerId }],
    ['casino A admin', 'admin', { type: 'casino', providerId: A.providerId }],
    ['casino A finance', 'finance', { type: 'casino', providerId: A.providerId }],
    ['studio A admin', 'admin', { type: 'studio', groupId: A.groupId }],
    ['studio B support', 'support', { type: 'studio', groupId: B.groupId }],
    ['platform support', 'support', { type: 'platform' }],
    ['platform finance', 'finance', { type: 'platform' }],
  ];
  for (const [name, role, scope] of people) {
    const op = await signedInOperator(p, role, scope);
    callers.set(name, (method, url, body) => asOperator(op, method, url, { body }));
  }
  callers.set('ADMIN_TOKEN', byToken(p.adminToken));
}, 120_000);
afterAll(async () => {
  await p?.stop();
  await A?.sandbox.close();
});

const path = (name: Name, suffix = '') => `casinos/${awards[name].providerId}/free-rounds/${awards[name].awardId}${suffix}`;
const world = (casino: 'A' | 'B') => (casino === 'A' ? A : B);

describe('free-round awards between tenants, on every back-office award route', () => {
  it.each(TABLE)('When $caller lists and reads awards, then it sees exactly its scope\'s and the others are answered as missing', async ({ caller, sees }) => {
    const send = callers.get(caller)!;
    const listed = await send('GET', bo(p, `free-rounds?campaignId=${campaignId}`));
    expect(listed.status).toBe(200);
    expect(ids(listed)).toEqual(sees.map((n) => awards[n].awardId).sort());
    for (const name of ['a', 'b', 'ba', 'bab'] as const) {
      const read = await send('GET', bo(p, path(name)));
      expect([name, read.status, read.body.error]).toEqual(sees.includes(name) ? [name, 200, undefined] : [name, 404, 'AWARD_NOT_FOUND']);
      // Naming another casino in the list's filter shows nothing it could not read.
      const filtered = await send('GET', bo(p, `free-rounds?campaignId=${campaignId}&providerId=${awards[name].providerId}`));
      expect(ids(filtered).every((id) => sees.some((n) => awards[n].awardId === id))).toBe(true);
    }
  });

  it.each(TABLE)('When $caller creates and cancels awards, then only what its role and scope allow happens, and another tenant\'s award is never changed', async ({ caller, writes, casino }) => {
    const send = callers.get(caller)!;
    const before = await p.db.primary('free_round_awards').where({ campaign_id: campaignId }).orderBy('award_id').select('award_id', 'state', 'updated_at');
    if (!writes) {
      for (const target of [A, B]) {
        const created = await send('POST', bo(p, `casinos/${target.providerId}/free-rounds`), awardBody(uniqueId('p'), target.gameId));
        expect([created.status, created.body.error]).toEqual([403, 'PERMISSION_DENIED']);
      }
      for (const name of ['a', 'b', 'ba', 'bab'] as const) {
        const cancelled = await send('POST', bo(p, path(name, '/cancel')));
        expect([name, cancelled.status, cancelled.body.error]).toEqual([name, 403, 'PERMISSION_DENIED']);
      }
    } else {
      const own = world(casino!);
      const mine = awardBody(uniqueId('p'), own.gameId, { campaignId: uniqueId('own') });
      expect((await send('POST', bo(p, `casinos/${own.providerId}/free-rounds`), mine)).status).toBe(201);
      expect((await send('POST', bo(p, `casinos/${own.providerId}/free-rounds/${mine.awardId}/cancel`))).body.data.state).toBe('CANCELLED');
      const platform = caller.startsWith('platform') || caller === 'ADMIN_TOKEN';
      if (!platform) {
        const other = casino === 'A' ? B : A;
        const created = await send('POST', bo(p, `casinos/${other.providerId}/free-rounds`), awardBody(uniqueId('p'), other.gameId));
        expect([created.status, created.body.error]).toEqual([404, 'PROVIDER_NOT_FOUND']);
        for (const name of ['a', 'b', 'ba', 'bab'] as const) {
          if (awards[name].providerId === own.providerId) continue;
          const cancelled = await send('POST', bo(p, path(name, '/cancel')));
          expect([name, cancelled.status, cancelled.body.error]).toEqual([name, 404, 'AWARD_NOT_FOUND']);
        }
      }
    }
    expect(await p.db.primary('free_round_awards').where({ campaign_id: campaignId }).orderBy('award_id').select('award_id', 'state', 'updated_at')).toEqual(before);
  });

  it.each([
    ['no credential', undefined],
    ['an unknown casino API token', 'cat_not-a-real-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ["a game provider's token", 'provider'],
  ])('When a caller with %s calls any award route, then 403 AUTHENTICATION_FAILED and nothing is read or changed', async (_, token) => {
    const send = byToken(token === 'provider' ? A.providerToken : token);
    const before = await p.db.primary('free_round_awards').where({ campaign_id: campaignId }).orderBy('award_id').select('award_id', 'state', 'updated_at');
    for (const [method, url, body] of [
      ['POST', bo(p, `casinos/${A.providerId}/free-rounds`), awardBody(playerA.playerId, A.gameId)],
      ['GET', bo(p, path('a'))],
      ['POST', bo(p, path('a', '/cancel'))],
      ['GET', bo(p, `free-rounds?campaignId=${campaignId}`)],
    ] as const) {
      const res = await send(method, url, body);
      expect([method, url, res.status, res.body.error]).toEqual([method, url, 403, 'AUTHENTICATION_FAILED']);
    }
    expect(await p.db.primary('free_round_awards').where({ campaign_id: campaignId }).orderBy('award_id').select('award_id', 'state', 'updated_at')).toEqual(before);
  });

  it('When a signed-in person writes without the CSRF token, then 403 CSRF_TOKEN_INVALID and nothing changes', async () => {
    const op = await signedInOperator(p, 'support', { type: 'casino', providerId: A.providerId });
    const res = await asOperator(op, 'POST', bo(p, path('a', '/cancel')), { csrf: null });
    expect([res.status, res.body.error]).toEqual([403, 'CSRF_TOKEN_INVALID']);
    expect((await http('GET', bo(p, path('a')), { token: p.adminToken })).body.data.state).toBe('ACTIVE');
  });
});

describe("the game route: a session's free-round awards", () => {
  const sessionAwards = (token: string | undefined, player: Player) => http('GET', `${p.baseUrl}/api/v1/sessions/${player.sessionId}/free-rounds`, { token });

  it("When a game provider asks for its session's awards, then it gets only that player's playable awards at that casino, game and currency", async () => {
    const playable = awardBody(playerA.playerId, A.gameId, { campaignId: uniqueId('game') });
    const hidden: [string, Record<string, unknown>][] = [
      ['another player', awardBody(uniqueId('p'), A.gameId)],
      ['not started', awardBody(playerA.playerId, A.gameId, { startsAt: new Date(Date.now() + HOUR).toISOString() })],
      ['cancelled', awardBody(playerA.playerId, A.gameId)],
      ['all rounds played', awardBody(playerA.playerId, A.gameId)],
      ['expired', awardBody(playerA.playerId, A.gameId)],
    ];
    for (const body of [playable, ...hidden.map(([, b]) => b)]) {
      expect((await http('POST', bo(p, `casinos/${A.providerId}/free-rounds`), { token: p.adminToken, body })).status).toBe(201);
    }
    await http('POST', bo(p, `casinos/${A.providerId}/free-rounds/${hidden[2][1].awardId}/cancel`), { token: p.adminToken });
    await p.db.primary('free_round_awards').where({ provider_id: A.providerId, award_id: hidden[3][1].awardId }).update({ state: 'IN_PROGRESS', rounds_played: 3 });
    await p.db.primary('free_round_awards').where({ provider_id: A.providerId, award_id: hidden[4][1].awardId }).update({ expires_at: p.db.primary.raw('now()') });
    // The award at casino B for A's game, and B's own awards, are B's players'.
    const res = await sessionAwards(A.providerToken, playerA);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([awards.a.awardId, playable.awardId].sort());
    for (const award of res.body.data) expect(award).toMatchObject({ providerId: A.providerId, playerId: playerA.playerId, currency: 'EUR', gameIds: [A.gameId], roundsRemaining: 3 });
  });

  it("When a casino has awarded one player more than the route answers, then it answers the 50 that run out soonest", async () => {
    const player = await A.launchPlayer({ currency: 'EUR' });
    const made = [];
    for (let i = 0; i < 52; i++) {
      const body = awardBody(player.playerId, A.gameId, { campaignId: 'many-awards', expiresAt: new Date(Date.now() + (i + 2) * HOUR).toISOString() });
      expect((await http('POST', bo(p, `casinos/${A.providerId}/free-rounds`), { token: p.adminToken, body })).status).toBe(201);
      made.push(body.awardId);
    }
    const res = await sessionAwards(A.providerToken, player);
    expect(res.status).toBe(200);
    expect(res.body.data.map((a: { awardId: string }) => a.awardId)).toEqual(made.slice(0, 50));
  });

  it("When a session's player has awards in another currency only, then the list is empty", async () => {
    const player = await A.launchPlayer({ currency: 'GBP' });
    await http('POST', bo(p, `casinos/${A.providerId}/free-rounds`), { token: p.adminToken, body: awardBody(player.playerId, A.gameId) });
    const res = await sessionAwards(A.providerToken, player);
    expect([res.status, res.body.data]).toEqual([200, []]);
  });

  const refusals: [string, number, string, () => string | undefined, () => Player][] = [
    ["studio A's token with studio B's session", 403, 'GAME_NOT_OWNED_BY_GROUP', () => A.providerToken, () => playerB],
    ['no token', 403, 'AUTHENTICATION_FAILED', () => undefined, () => playerA],
    ['a casino API token', 403, 'AUTHENTICATION_FAILED', () => 'cat_x', () => playerA],
    ['the ADMIN_TOKEN', 403, 'AUTHENTICATION_FAILED', () => p.adminToken, () => playerA],
    ['an unknown session', 403, 'SESSION_EXPIRED', () => A.providerToken, () => ({ ...playerA, sessionId: 'no-such-session' })],
  ];
  it.each(refusals)('When it is asked with %s, then %s %s and no award is shown', async (_, status, code, token, player) => {
    const res = await sessionAwards(token(), player());
    expect([res.status, res.body.error, res.body.data]).toEqual([status, code, null]);
  });
});
