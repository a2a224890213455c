import { http, startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminPut, provisionWorld, type World } from '../../../test/provision';
import { bo } from '../../../test/backoffice';

/**
 * Free-round awards through the back office with a casino API token (issue 35, first slice): every
 * validation rule, the casino's award id as idempotency key, cancelling, expiry at read, and the
 * list's filters and paging. Tenant isolation has a table of its own (free-rounds-tenants.test.ts).
 */
let p: TestPlatform;
let w: World;
let token: string;
/** A second game of w's provider, configured by w's casino in GBP only; a third nobody configured. */
let gbpGame: number;
let unconfiguredGame: number;

const EUR_LIMITS = { minBet: 0.1, maxBet: 50, defaultBet: 1, betSuggestions: [1, 2, 5], maxWin: 10000, isRoundable: false, isDefault: true };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

function award(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    awardId: uniqueId('award'),
    campaignId: 'welcome',
    playerId: uniqueId('player'),
    currency: 'EUR',
    gameIds: [w.gameId],
    rounds: 10,
    betValue: 0.5,
    startsAt: at(-HOUR),
    expiresAt: at(7 * DAY),
    ...overrides,
  };
}
const create = (body: unknown, providerId = w.providerId) => http('POST', bo(p, `casinos/${providerId}/free-rounds`), { token, body });
const read = (awardId: string) => http('GET', bo(p, `casinos/${w.providerId}/free-rounds/${awardId}`), { token });
const cancel = (awardId: string) => http('POST', bo(p, `casinos/${w.providerId}/free-rounds/${awardId}/cancel`), { token });
const list = (query: Record<string, string>) => http('GET', bo(p, `free-rounds?${new URLSearchParams(query)}`), { token });

beforeAll(async () => {
  p = await startPlatform({ services: ['admin', 'backoffice'] });
  w = await provisionWorld(p);
  expect((await adminPut(p, `casinos/${w.providerId}/games/${w.gameId}/currencies/EUR`, EUR_LIMITS)).status).toBe(200);
  gbpGame = uniqueGameId();
  unconfiguredGame = uniqueGameId();
  for (const gameId of [gbpGame, unconfiguredGame]) {
    expect((await adminPut(p, `games/${gameId}`, { name: `Game ${gameId}`, groupId: w.groupId, frontendUrl: 'https://game.example.com/' })).status).toBe(200);
  }
  expect((await adminPut(p, `casinos/${w.providerId}/games/${gbpGame}/currencies/GBP`, EUR_LIMITS)).status).toBe(200);
  const issued = await http('POST', bo(p, `casinos/${w.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'bonus engine' } });
  token = issued.body.data.token;
}, 60_000);
afterAll(async () => {
  await p?.stop();
});

describe('When a casino creates an award', () => {
  it('then it is stored as sent, ACTIVE with every round remaining and nothing won, and audited', async () => {
    const body = award({ betValue: 1.25, gameIds: [w.gameId] });
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      providerId: w.providerId, awardId: body.awardId, campaignId: 'welcome', playerId: body.playerId, currency: 'EUR', gameIds: [w.gameId],
      rounds: 10, roundsPlayed: 0, roundsRemaining: 10, betValue: 1.25, totalWon: 0, startsAt: body.startsAt, expiresAt: body.expiresAt,
      state: 'ACTIVE', createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    expect((await read(String(body.awardId))).body.data).toEqual(res.body.data);
    const stored = await p.db.primary('free_round_awards').where({ provider_id: w.providerId, award_id: body.awardId }).first();
    expect(stored.bet_value).toBe('1.25');
    const audit = await p.db.primary('audit_log').where({ target: `free-round-award:${w.providerId}/${body.awardId}` }).select('action', 'actor_type');
    expect(audit).toEqual([{ action: 'free-round.create', actor_type: 'casino-token' }]);
  });

  const invalid: [string, Record<string, unknown>, number, string][] = [
    ['startsAt is not a date', { startsAt: 'tomorrow' }, 400, 'Bad Request'],
    ['expiresAt has no time zone', { expiresAt: '2026-12-01T10:00:00' }, 400, 'Bad Request'],
    ['expiresAt is missing', { expiresAt: undefined }, 400, 'Bad Request'],
    ['expiresAt is not after startsAt', { startsAt: at(2 * DAY), expiresAt: at(2 * DAY) }, 400, 'INVALID_AWARD_PERIOD'],
    ['expiresAt has passed', { startsAt: at(-2 * DAY), expiresAt: at(-DAY) }, 400, 'INVALID_AWARD_PERIOD'],
    ['expiresAt is more than 30 days ahead', { expiresAt: at(30 * DAY + HOUR) }, 400, 'INVALID_AWARD_PERIOD'],
    ['rounds is zero', { rounds: 0 }, 400, 'Bad Request'],
    ['rounds is negative', { rounds: -3 }, 400, 'Bad Request'],
    ['rounds is not an integer', { rounds: 2.5 }, 400, 'Bad Request'],
    ['rounds is above the maximum', { rounds: 1001 }, 400, 'Bad Request'],
    ['betValue has three decimals', { betValue: 0.125 }, 400, 'Bad Request'],
    ['betValue is zero', { betValue: 0 }, 400, 'Bad Request'],
    ['betValue is negative', { betValue: -1 }, 400, 'Bad Request'],
    ['betValue is a string', { betValue: '0.50' }, 400, 'Bad Request'],
    ['betValue is below the min bet', { betValue: 0.05 }, 400, 'BET_VALUE_OUT_OF_LIMITS'],
    ['betValue is above the max bet', { betValue: 50.01 }, 400, 'BET_VALUE_OUT_OF_LIMITS'],
    ['a game is not registered', { gameIds: [w?.gameId, 2_147_483_000] }, 404, 'GAME_NOT_FOUND'],
    ['no game is named', { gameIds: [] }, 400, 'Bad Request'],
    ['a game is named twice', { gameIds: [1, 1] }, 400, 'Bad Request'],
    ['the casino has not configured a game', { gameIds: ['unconfigured'] }, 400, 'GAME_NOT_CONFIGURED'],
    ['a game has no config in the currency', { gameIds: ['gbp'] }, 400, 'CURRENCY_NOT_CONFIGURED'],
    ['the currency is configured for no game', { currency: 'USD' }, 400, 'CURRENCY_NOT_CONFIGURED'],
    ['the playerId holds a colon', { playerId: 'a:b' }, 400, 'Bad Request'],
    ['the awardId holds a slash', { awardId: 'a/b' }, 400, 'Bad Request'],
    ['an unknown field is sent', { bonus: true }, 400, 'Bad Request'],
  ];
  it.each(invalid)('When %s, then it is refused with a clear code and nothing is stored', async (_, overrides, status, code) => {
    const games = (overrides.gameIds as unknown[] | undefined)?.map((g) => (g === 'unconfigured' ? unconfiguredGame : g === 'gbp' ? gbpGame : g === undefined ? w.gameId : g));
    const body = award({ ...overrides, ...(games ? { gameIds: games } : {}) });
    const res = await create(body);
    expect([res.status, res.body.error]).toEqual([status, code]);
    expect(res.body.message).toEqual(expect.any(String));
    if (typeof body.awardId === 'string') expect(await p.db.primary('free_round_awards').where({ provider_id: w.providerId, award_id: body.awardId }).first()).toBeUndefined();
  });

  const accepted: [string, Record<string, unknown>][] = [
    ['betValue equals the min bet', { betValue: 0.1 }],
    ['betValue equals the max bet', { betValue: 50 }],
    ['expiresAt is a minute short of 30 days ahead', { expiresAt: at(30 * DAY - 60_000) }],
    ['startsAt is in the future', { startsAt: at(DAY), expiresAt: at(2 * DAY) }],
    ['rounds is the maximum', { rounds: 1000 }],
    ['there is no campaign', { campaignId: undefined }],
    ['the currency is written in lower case', { currency: 'eur' }],
  ];
  it.each(accepted)('When %s, then the award is created', async (_, overrides) => {
    const res = await create(award(overrides));
    expect([res.status, res.body.data?.state]).toEqual([201, 'ACTIVE']);
    expect(res.body.data.currency).toBe('EUR');
  });

  it('then a body that is not JSON, or not an object, is a 400', async () => {
    for (const body of ['[1,2]', '"award"', 'null']) {
      const res = await http('POST', bo(p, `casinos/${w.providerId}/free-rounds`), { token, raw: body });
      expect([res.status, res.body.error]).toEqual([400, 'Bad Request']);
    }
  });

  it('then a casino that does not exist is PROVIDER_NOT_FOUND for a platform admin', async () => {
    const res = await http('POST', bo(p, 'casinos/no-such-casino/free-rounds'), { token: p.adminToken, body: award() });
    expect([res.status, res.body.error]).toEqual([404, 'PROVIDER_NOT_FOUND']);
  });
});

describe('When the same award id is sent again', () => {
  it('then the same award answers 200 with the stored award and nothing new is written or audited', async () => {
    const body = award({ currency: 'eur' });
    const first = await create(body);
    expect(first.status).toBe(201);
    const again = await create({ ...body, gameIds: [w.gameId], betValue: 0.50, currency: 'EUR' });
    expect([again.status, again.body.data]).toEqual([200, first.body.data]);
    expect(await p.db.primary('free_round_awards').where({ provider_id: w.providerId, award_id: body.awardId }).count({ n: '*' })).toEqual([{ n: '1' }]);
    expect(await p.db.primary('audit_log').where({ target: `free-round-award:${w.providerId}/${body.awardId}` }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('then ten concurrent creates make one award: one 201, the others 200', async () => {
    const body = award();
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  });

  const changes: [string, Record<string, unknown>][] = [
    ['another player', { playerId: 'someone-else' }],
    ['another campaign', { campaignId: 'other' }],
    ['no campaign', { campaignId: undefined }],
    ['more rounds', { rounds: 11 }],
    ['another bet value', { betValue: 0.6 }],
    ['another expiry', { expiresAt: at(8 * DAY) }],
    ['another start', { startsAt: at(-2 * HOUR) }],
  ];
  it.each(changes)('When it carries %s, then 409 AWARD_ID_REUSED and the first award stands', async (_, change) => {
    const body = award();
    const first = await create(body);
    const res = await create({ ...body, ...change });
    expect([res.status, res.body.error]).toEqual([409, 'AWARD_ID_REUSED']);
    expect((await read(String(body.awardId))).body.data).toEqual(first.body.data);
  });

  it('then the same award id at another casino is another award', async () => {
    const other = await provisionWorld(p);
    expect((await adminPut(p, `casinos/${other.providerId}/games/${w.gameId}/currencies/EUR`, EUR_LIMITS)).status).toBe(200);
    const body = award();
    expect((await create(body)).status).toBe(201);
    expect((await http('POST', bo(p, `casinos/${other.providerId}/free-rounds`), { token: p.adminToken, body })).status).toBe(201);
  });
});

describe('When an award is cancelled', () => {
  it('then an ACTIVE one becomes CANCELLED with no rounds left, a second cancel answers the same, and one audit entry records it', async () => {
    const body = award();
    await create(body);
    const res = await cancel(String(body.awardId));
    expect([res.status, res.body.data.state, res.body.data.roundsRemaining]).toEqual([200, 'CANCELLED', 0]);
    const again = await cancel(String(body.awardId));
    expect([again.status, again.body.data]).toEqual([200, res.body.data]);
    const audit = await p.db.primary('audit_log').where({ target: `free-round-award:${w.providerId}/${body.awardId}` }).orderBy('id').select('action', 'before', 'after');
    expect(audit.map((a) => a.action)).toEqual(['free-round.create', 'free-round.cancel']);
    expect([audit[1].before.state, audit[1].after.state]).toEqual(['ACTIVE', 'CANCELLED']);
  });

  it.each([
    ['IN_PROGRESS', 200, 'CANCELLED'],
    ['COMPLETED', 409, 'STATE_CONFLICT'],
    ['EXPIRED', 409, 'STATE_CONFLICT'],
  ])('then one stored as %s answers %s (%s)', async (state, status, outcome) => {
    const body = award();
    await create(body);
    await p.db.primary('free_round_awards').where({ provider_id: w.providerId, award_id: body.awardId }).update({ state, rounds_played: state === 'COMPLETED' ? 10 : 3 });
    const res = await cancel(String(body.awardId));
    expect([res.status, res.status === 200 ? res.body.data.state : res.body.error]).toEqual([status, outcome]);
    if (status === 409) expect((await read(String(body.awardId))).body.data.state).toBe(state);
  });

  it('then an award that does not exist is AWARD_NOT_FOUND', async () => {
    const res = await cancel('no-such-award');
    expect([res.status, res.body.error]).toEqual([404, 'AWARD_NOT_FOUND']);
  });
});

describe('When an award reaches its expiry', () => {
  it('then from that instant it reads EXPIRED everywhere, with no rounds left, though nothing was written, and it can no longer be cancelled', async () => {
    const body = award({ expiresAt: at(1500) });
    const created = await create(body);
    expect(created.body.data.state).toBe('ACTIVE');
    const expiresAt = new Date(String(body.expiresAt)).getTime();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50));
    const after = await read(String(body.awardId));
    expect([after.body.data.state, after.body.data.roundsRemaining]).toEqual(['EXPIRED', 0]);
    const listed = await list({ playerId: String(body.playerId), state: 'EXPIRED' });
    expect(listed.body.data.map((a: { awardId: string }) => a.awardId)).toEqual([body.awardId]);
    expect((await list({ playerId: String(body.playerId), state: 'ACTIVE' })).body.data).toEqual([]);
    expect((await p.db.primary('free_round_awards').where({ provider_id: w.providerId, award_id: body.awardId }).first()).state).toBe('ACTIVE');
    expect((await cancel(String(body.awardId))).body.error).toBe('STATE_CONFLICT');
  });

  it('then one second before it, it still reads ACTIVE', async () => {
    const body = award();
    await create(body);
    await p.db.primary('free_round_awards').where({ provider_id: w.providerId, award_id: body.awardId }).update({ expires_at: p.db.primary.raw("now() + interval '1 second'") });
    expect((await read(String(body.awardId))).body.data.state).toBe('ACTIVE');
    await p.db.primary('free_round_awards').where({ provider_id: w.providerId, award_id: body.awardId }).update({ expires_at: p.db.primary.raw('now()') });
    expect((await read(String(body.awardId))).body.data.state).toBe('EXPIRED');
  });
});

describe('When awards are listed', () => {
  it('then the filters narrow them and the cursor walks them newest first, each once', async () => {
    const playerId = uniqueId('player');
    const campaignId = uniqueId('camp');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const body = award({ playerId, campaignId: i < 4 ? campaignId : undefined });
      expect((await create(body)).status).toBe(201);
      ids.push(String(body.awardId));
    }
    await cancel(ids[0]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list({ playerId, limit: '3', ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((a: { awardId: string }) => a.awardId));
      cursor = page.body.meta.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const names = async (q: Record<string, string>) => (await list({ playerId, ...q })).body.data.map((a: { awardId: string }) => a.awardId).sort();
    expect(await names({ campaignId })).toEqual(ids.slice(0, 4).sort());
    expect(await names({ state: 'CANCELLED' })).toEqual([ids[0]]);
    expect(await names({ state: 'ACTIVE' })).toEqual(ids.slice(1).sort());
    expect(await names({ campaignId, state: 'ACTIVE' })).toEqual(ids.slice(1, 4).sort());
    expect(await names({ providerId: 'another-casino' })).toEqual([]);
  });

  it.each([
    ['an unknown state', { state: 'PAUSED' }],
    ['a limit of 0', { limit: '0' }],
    ['a limit above 500', { limit: '501' }],
    ['a cursor it did not answer', { cursor: 'bm90LWEtY3Vyc29y' }],
    ['an unknown filter', { groupId: 'x' }],
  ])('then %s is a 400', async (_, query) => {
    const res = await list(query);
    expect([res.status, res.body.error]).toEqual([400, 'Bad Request']);
  });
});

describe('When the money database holds the awards', () => {
  it('then it has only the four keys the routes walk, each leading with the casino', async () => {
    const { rows } = await p.db.primary.raw<{ rows: { indexname: string; indexdef: string }[] }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'free_round_awards' ORDER BY indexname",
    );
    expect(rows.map((r) => [r.indexname, /\((\w+)/.exec(r.indexdef)?.[1]])).toEqual([
      ['free_round_awards_created', 'provider_id'],
      ['free_round_awards_pkey', 'provider_id'],
      ['free_round_awards_player', 'provider_id'],
      ['free_round_awards_provider_id_award_id_key', 'provider_id'],
    ]);
  });
});
