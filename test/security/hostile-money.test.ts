import fc from 'fast-check';
import { http, startPlatform, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { betBody, countRecords, winBody } from '../../services/wallet/test/money-support';
import { scenarioIt, Tally } from '../faults/support/reliability';
import {
  badAmount,
  badGameId,
  badIdentifier,
  badText,
  deepArrayText,
  expectRefused,
  extraFields,
  HOSTILE_RUNS,
  HOSTILE_SEED,
  notABoolean,
  notAnObject,
  notANumber,
  notAString,
  oneBadField,
  queryString,
  sendHuge,
  tooLong,
  unicodeText,
  withField,
  withNul,
  announceSeed,
} from './support/hostile';

/**
 * Property-based hostile input against the wallet routes: every body and query a game backend could
 * get wrong, with the player's real session, so validation is the only thing standing between the
 * input and the casino. Each answer must be 400 Bad Request (or 413), the casino never called and
 * nothing written.
 */
const tally = new Tally(
  'hostile-money',
  'Hostile input on the wallet routes',
  'test/security/hostile-money.test.ts',
  'fast-check generates bodies of cash-out, cash-in and cash-in retry, and queries of the balance read and session validation, each with at least one field the route must refuse (wrong types, missing fields, negative, over-precise and huge amounts, colons, NUL, over-long and exotic unicode text, JSON nested 20 to 60 deep, unknown extra fields), sent with a live session of the caller. Also bodies that are not JSON objects, 1 MiB bodies (with and without Content-Length) and JSON nested 20 000 deep. Every answer is the 4xx of the spec, with no stack trace; the casino is never called and no transaction, round or session is written.',
);
const scenario = scenarioIt(tally);
const MONEY_ROUTES = ['/api/balance/cash-out', '/api/balance/cash-in', '/api/balance/cash-in/retry'] as const;
const BAD_REQUEST = { status: 400, codes: ['Bad Request'], style: 'wallet' as const };

describe('hostile input on the wallet routes', () => {
  let p: TestPlatform;
  let g: GameWorld;
  let pl: Player;
  let before: { transactions: number; rounds: number; sessions: number; calls: number };

  const counts = async () => {
    const [s] = await p.db.primary('sessions').where({ provider_id: g.providerId }).count({ n: '*' });
    return { ...(await countRecords(p, g)), sessions: Number(s.n), calls: g.sandbox.countCalls({ providerId: g.providerId, operation: 'debit' }) + g.sandbox.countCalls({ providerId: g.providerId, operation: 'credit' }) };
  };
  const post = (path: string, body: unknown) => g.call('POST', path, body);
  const run = <Ts extends [unknown, ...unknown[]]>(property: fc.IAsyncPropertyWithHooks<Ts>) => fc.assert(property, { seed: HOSTILE_SEED, numRuns: HOSTILE_RUNS });

  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
    g = await startGameWorld(p);
    pl = await g.launchPlayer({ balance: 1000 });
    before = await counts();
    announceSeed(tally);
  });
  afterAll(async () => {
    tally.write();
    await p?.stop();
    await g?.sandbox.close();
  });

  const sharedFields = {
    sessionId: badText(200),
    gameId: badGameId,
    currency: badText(16),
    roundId: badIdentifier(),
    transactionId: badIdentifier(),
    amount: badAmount(),
    language: badText(35, false),
  };

  scenario('When a cash-out body has a field the route must refuse, then 400 Bad Request', async () => {
    const bad = oneBadField({
      ...sharedFields,
      game: fc.oneof(notAnObject, notAnObject.map((v) => ({ gameData: v })), notAnObject.map((v) => ({ meta: v }))),
    });
    await run(
      fc.asyncProperty(bad, extraFields, async ([field, value], extra) => {
        const body = withField({ ...betBody(g, pl), ...extra }, field, value);
        expectRefused(await post('/api/balance/cash-out', body), BAD_REQUEST, body, tally);
      }),
    );
  });

  for (const route of ['/api/balance/cash-in', '/api/balance/cash-in/retry']) {
    scenario(`When a ${route} body has a field the route must refuse, then 400 Bad Request`, async () => {
      const bad = oneBadField({
        ...sharedFields,
        reason: fc.oneof(badText(50), fc.constantFrom('normal_win', 'JACKPOT', 'NORMAL_WIN ', 'BET_LOST\u200b')),
        appliedMultiplier: fc.oneof(notANumber, fc.integer({ min: 1, max: 1000 }).map((n) => -n), fc.constantFrom(1e13, undefined)),
        previousTransactionId: badIdentifier(200, false),
        betAmount: badAmount(false),
        awardId: badText(200, false),
        campaignId: badText(200, false),
        isLastFreebet: notABoolean,
        game: fc.oneof(notAnObject, notAString.map((v) => ({ outcome: v })), tooLong(200).map((v) => ({ outcome: v })), notAnObject.map((v) => ({ settlementData: v }))),
      });
      await run(
        fc.asyncProperty(bad, extraFields, async ([field, value], extra) => {
          const body = withField({ ...winBody(g, pl, { roundId: 'r-hostile', transactionId: 'b-hostile', amount: 1 }), ...extra }, field, value);
          expectRefused(await post(route, body), BAD_REQUEST, body, tally);
        }),
      );
    });
  }

  scenario('When a money body is not a JSON object at all, then 400 Bad Request', async () => {
    const raw = fc.oneof(
      fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)).map((v) => JSON.stringify(v)),
      unicodeText(200),
      fc.constantFrom('{', '{"amount":1,}', "{'a':1}", 'NaN', '', '\u0000', '{"a":"\\ud800"', 'null'),
    );
    await run(
      fc.asyncProperty(raw, fc.constantFrom(...MONEY_ROUTES), fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'), async (text, route, type) => {
        const res = await http('POST', `${p.baseUrl}${route}`, { token: g.providerToken, raw: text, headers: { 'content-type': type } });
        expectRefused(res, BAD_REQUEST, { route, type, text }, tally);
      }),
    );
  });

  scenario('When the balance read or session validation gets a query it must refuse, then 400 Bad Request', async () => {
    const badValue = fc.oneof(fc.constant(''), tooLong(200), withNul);
    const account = fc.oneof(
      badValue.map((v): [string, string][] => [['sessionId', v]]),
      fc.constant<[string, string][]>([]),
      fc.constant<[string, string][]>([['sessionId', 'a'], ['sessionId', 'b']]),
      fc.oneof(fc.constant(''), tooLong(16), withNul).map((v): [string, string][] => [['sessionId', pl.sessionId], ['currency', v]]),
    );
    await run(
      fc.asyncProperty(account, async (pairs) => {
        expectRefused(await g.call('GET', `/api/account?${queryString(pairs)}`), BAD_REQUEST, pairs, tally);
      }),
    );
    const isGameId = (v: string) => /^\d{1,10}$/.test(v) && Number(v) >= 1 && Number(v) <= 2147483647;
    const gameId = fc.oneof(unicodeText().filter((v) => !isGameId(v)), fc.constantFrom('', '0', '-1', '1.5', '1e3', '99999999999', '2147483648', ' 1'), withNul);
    const sessionSegment = unicodeText(40).filter((v) => v !== '.' && v !== '..');
    await run(
      fc.asyncProperty(gameId, sessionSegment, async (value, sessionId) => {
        const res = await g.call('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}?${queryString([['gameId', value]])}`);
        expectRefused(res, { status: 400, codes: ['Bad Request'], style: 'envelope' }, { sessionId, value }, tally);
      }),
    );
  });

  scenario('When a money body is 1 MiB, with or without Content-Length, then 413 PAYLOAD_TOO_LARGE and the casino is not called', async () => {
    const huge = JSON.stringify({ ...betBody(g, pl), game: { gameData: { blob: 'x'.repeat(1024 * 1024) } } });
    for (const route of MONEY_ROUTES) {
      for (const res of await sendHuge(`${p.baseUrl}${route}`, 'POST', g.providerToken, huge)) {
        expectRefused(res, { status: 413, codes: ['PAYLOAD_TOO_LARGE'], style: 'wallet' }, route, tally);
      }
    }
  });

  scenario('When gameData of an otherwise valid cash-out is nested 20 000 levels deep, then 400 Bad Request, not a 500', async () => {
    const valid = betBody(g, pl);
    for (const deep of [deepArrayText(20_000), '{"a":'.repeat(9000) + '1' + '}'.repeat(9000)]) {
      const raw = JSON.stringify({ ...valid, game: { gameData: { x: 0 } } }).replace('{"x":0}', `{"x":${deep}}`);
      expect(raw.length).toBeLessThan(64 * 1024);
      const res = await http('POST', `${p.baseUrl}/api/balance/cash-out`, { token: g.providerToken, raw });
      expectRefused(res, BAD_REQUEST, 'deep gameData', tally);
    }
  });

  scenario('When exotic but valid text and unknown fields come with a cash-out that has one bad field, then nothing reaches the casino', async () => {
    await run(
      fc.asyncProperty(unicodeText(30), unicodeText(30), badAmount(), async (language, outcome, amount) => {
        const body = { ...betBody(g, pl), language, game: { gameData: { outcome, note: language }, meta: { [outcome]: language } }, amount };
        expectRefused(await post('/api/balance/cash-out', body), BAD_REQUEST, body, tally);
      }),
    );
  });

  describe('after all the hostile input', () => {
    scenario('When every hostile request has been answered, then no transaction, round or session was written and the casino was never asked to move money', async () => {
      expect(await counts()).toEqual(before);
      tally.check('nothing written (transactions, rounds, sessions, casino calls)');
    });
  });
});
