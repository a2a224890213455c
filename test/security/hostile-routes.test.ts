import fc from 'fast-check';
import { createLaunchToken } from '@relay/casino-sandbox';
import { http, startPlatform, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld } from '../game';
import { scenarioIt, Tally } from '../faults/support/reliability';
import { badIdentifier, expectRefused, extraFields, HOSTILE_RUNS, HOSTILE_SEED, notAString, oneBadField, ONE_MIB_JSON, queryString, sendHuge, tooLong, unicodeText, withField, withNul, announceSeed } from './support/hostile';

/**
 * Property-based hostile input against the reporting routes (/api/v1/*), round-ended and /launch:
 * every query parameter and body field a caller can get wrong. Each answer is the route's 4xx with
 * its code, never a 5xx nor a stack trace; launch writes no session, round-ended notifies nobody.
 */
const tally = new Tally(
  'hostile-routes',
  'Hostile input on reporting, round-ended and launch',
  'test/security/hostile-routes.test.ts',
  'fast-check generates queries of the reporting lists, casino ids and catalog (bad pages, limits, dates, sort fields, enums, ids with NUL or over 512 characters, repeated and unknown parameters), path segments of the reporting detail routes (any unicode), round-ended bodies (bad roundId, providerIds not a non-empty array of ids, 1 MiB with and without Content-Length), and launch queries (each parameter missing, malformed or hostile, and garbage launch tokens). Every answer is the expected 4xx code in the route\'s style with no stack trace; no session is written by a refused launch and no casino is notified by a refused round-ended.',
);
const scenario = scenarioIt(tally);
const ENVELOPE_400 = { status: 400, codes: ['Bad Request'], style: 'envelope' as const };

const isIsoLike = (v: string) => /^\d{4}-\d{2}/.test(v);
const badId = fc.oneof(fc.constant(''), tooLong(512), withNul);
const listBadParams = (sorts: string[]) => ({
  page: fc.constantFrom('0', '-1', 'abc', '1.5', '1e3', '', '9999999999999', '1000000001', ' 1'),
  limit: fc.constantFrom('0', '101', 'x', '', '-5', '1.0', '100000'),
  from: fc.oneof(unicodeText().filter((v) => !isIsoLike(v)), fc.constantFrom('yesterday', '2026-13-01', '2026-02-30', '2026-11-21T24:00:00Z', '', '1700000000')),
  to: fc.constantFrom('tomorrow', '2026-02-29', '2026-11-21T20:60Z', '2026-11-21T20:47:56+25:00'),
  sortBy: unicodeText().filter((v) => !sorts.includes(v)),
  sortOrder: fc.constantFrom('ASC', 'DESC', 'up', '', 'asc '),
  gameId: fc.constantFrom('1.5', 'x', '99999999999', '', '0x10', '2147483648'),
  providerId: badId,
  playerId: badId,
  roundId: badId,
  currency: badId,
});
const goodParams: [string, fc.Arbitrary<string>][] = [
  ['page', fc.constantFrom('1', '2')],
  ['limit', fc.constantFrom('1', '100')],
  ['sortOrder', fc.constantFrom('asc', 'desc')],
  ['playerId', unicodeText().filter((v) => !v.includes('\u0000'))],
  ['from', fc.constant('2020-01-01')],
];

/** A query with one refused parameter (or an unknown or repeated one) among valid ones. */
function hostileQuery(bad: Record<string, fc.Arbitrary<string>>, allowed: string[]): fc.Arbitrary<[string, string][]> {
  const refused = fc.oneof(
    oneBadField(bad).map(([k, v]) => [[k, v as string]] as [string, string][]),
    unicodeText(10).map((k) => `x${k}`).filter((k) => !allowed.includes(k)).map((k) => [[k, '1']] as [string, string][]),
    fc.constantFrom(...allowed).map((k) => [[k, '1'], [k, '2']] as [string, string][]),
  );
  const valid = fc.subarray(goodParams.filter(([k]) => allowed.includes(k))).chain((ps) => fc.tuple(...ps.map(([k, v]) => v.map((value): [string, string] => [k, value]))));
  return fc.tuple(refused, valid).map(([r, v]) => [...v.filter(([k]) => !r.some(([rk]) => rk === k)), ...r]);
}

describe('hostile input on reporting, round-ended and launch', () => {
  let p: TestPlatform;
  let g: GameWorld;
  const run = <T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arb, check), { seed: HOSTILE_SEED, numRuns: HOSTILE_RUNS });
  const sessions = async () => Number((await p.db.primary('sessions').where({ provider_id: g.providerId }).count({ n: '*' }))[0].n);

  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'reporting', 'notifier', 'admin', 'wallet'] });
    g = await startGameWorld(p);
    announceSeed(tally);
  });
  afterAll(async () => {
    tally.write();
    await p?.stop();
    await g?.sandbox.close();
  });

  const lists: [string, Record<string, fc.Arbitrary<string>>][] = [
    ['/api/v1/rounds', { ...listBadParams(['createdAt', 'openedAt', 'settledAt', 'betAmount', 'payoutAmount']), status: fc.constantFrom('open', 'CLOSED', '', 'OPEN,SETTLED') }],
    [
      '/api/v1/transactions',
      { ...listBadParams(['createdAt', 'completedAt', 'amount']), transactionId: badId, category: fc.constantFrom('CASHOUT', 'cash_in', ''), status: fc.constantFrom('DONE', 'pending', '') },
    ],
    ['/api/v1/providers/ids', { days: fc.constantFrom('0', '31', '-1', 'x', '1.5', '', '100', ' 7') }],
    ['/api/v1/provider-catalog', { gameId: fc.constantFrom('x', '1.5', '99999999999', ''), providerId: badId }],
  ];
  for (const [route, bad] of lists) {
    scenario(`When ${route} gets a query parameter it must refuse, then 400 Bad Request in the envelope`, async () => {
      await run(hostileQuery(bad, Object.keys(bad)), async (pairs) => {
        expectRefused(await g.call('GET', `${route}?${queryString(pairs)}`), ENVELOPE_400, pairs, tally);
      });
    });
  }

  scenario('When a reporting detail route is asked for ids that exist nowhere, in any unicode, then 404 ROUND_NOT_FOUND / TRANSACTION_NOT_FOUND', async () => {
    const segment = unicodeText(60).filter((v) => v !== '.' && v !== '..');
    await run(fc.tuple(segment, segment, fc.boolean()), async ([providerId, id, round]) => {
      const path = `/api/v1/${round ? 'rounds' : 'transactions'}/${encodeURIComponent(providerId)}/${encodeURIComponent(id)}`;
      const code = round ? 'ROUND_NOT_FOUND' : 'TRANSACTION_NOT_FOUND';
      expectRefused(await g.call('GET', path), { status: 404, codes: [code], style: 'envelope' }, path, tally);
    });
  });

  scenario('When a round-ended body has a field it must refuse, then 400 Bad Request and no casino is notified', async () => {
    const notified = g.sandbox.countCalls({ operation: 'round-ended' });
    const providerIds = fc.oneof(
      fc.oneof(unicodeText(), fc.integer(), fc.constant(null), fc.dictionary(unicodeText(5), unicodeText(5), { maxKeys: 2 }), fc.constant(undefined)),
      fc.constant([]),
      fc.array(notAString, { minLength: 1, maxLength: 3 }),
      fc.constant(['']),
      fc.constant([tooLongText(201)]),
      fc.constant(Array.from({ length: 1001 }, (_, i) => `cas-${i}`)),
      withNul.map((v) => [g.providerId, v]),
    );
    await run(fc.tuple(oneBadField({ roundId: badIdentifier(), providerIds }), extraFields), async ([[field, value], extra]) => {
      const body = withField({ roundId: 'round-hostile', providerIds: [g.providerId], ...extra }, field, value);
      expectRefused(await g.call('POST', '/api/round-ended', body), { status: 400, codes: ['Bad Request'], style: 'wallet' }, body, tally);
    });
    for (const res of await sendHuge(`${p.baseUrl}/api/round-ended`, 'POST', g.providerToken, ONE_MIB_JSON)) {
      expectRefused(res, { status: 413, codes: ['PAYLOAD_TOO_LARGE'], style: 'wallet' }, '1 MiB round-ended', tally);
    }
    expect(g.sandbox.countCalls({ operation: 'round-ended' })).toBe(notified);
    tally.check('no casino notified');
  });

  scenario('When a launch has a parameter it must refuse, then 400 Bad Request and no session is written', async () => {
    const before = await sessions();
    const token = await createLaunchToken({ launchKey: g.launchKey, providerId: g.providerId, playerId: 'hostile-player', walletToken: 'hostile-wallet-token' });
    const valid: Record<string, string> = { token, providerId: g.providerId, gameId: String(g.gameId), currency: 'EUR', language: 'en' };
    const missing = fc.constant(undefined);
    const bad = oneBadField({
      token: fc.oneof(missing, fc.constant(''), tooLong(8192)),
      providerId: fc.oneof(missing, fc.constantFrom('', '   ', 'a:b', 'cas\u0001'), tooLong(200)),
      gameId: fc.oneof(missing, fc.constantFrom('0', '-1', '1.5', 'x', '99999999999', '2147483648', '')),
      currency: fc.oneof(missing, fc.constantFrom('', 'EU R', 'EUR!', 'EUR\u0000', '€'), tooLong(16)),
      language: fc.oneof(missing, fc.constantFrom('', 'e\u0007n'), tooLong(35)),
      backtoHome: fc.constantFrom('javascript:alert(1)', 'ftp://casino.example/', 'lobby', '//evil.example/', `https://x.example/${'a'.repeat(2100)}`),
    });
    await run(fc.tuple(bad, fc.boolean()), async ([[field, value], repeated]) => {
      const pairs: [string, string][] = Object.entries(withField(valid, field, value)) as [string, string][];
      if (repeated && value !== undefined) pairs.push([field, 'again']);
      const res = await http('GET', `${p.baseUrl}/launch?${queryString(pairs)}`);
      expectRefused(res, { status: 400, codes: ['Bad Request'], style: 'wallet' }, pairs, tally);
    });
    const page = await http('GET', `${p.baseUrl}/launch?providerId=${g.providerId}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(400);
    expect(page.text).not.toMatch(/\bat [\w$.<>]+ \(|node_modules/);
    expect(await sessions()).toBe(before);
    tally.check('no session written by a refused launch');
  });

  scenario('When a launch carries a token that is not a valid launch token, then 401 INVALID_LAUNCH_TOKEN and no session is written', async () => {
    const before = await sessions();
    const b64 = fc.base64String({ minLength: 4, maxLength: 40 }).map((s) => s.replace(/=/g, '').replace(/\+/g, '-').replace(/\//g, '_'));
    const garbage = fc.oneof(unicodeText(200).filter((v) => v.trim() !== ''), fc.array(b64, { minLength: 5, maxLength: 5 }).map((parts) => parts.join('.')));
    await run(garbage, async (token) => {
      const query = queryString([['token', token], ['providerId', g.providerId], ['gameId', String(g.gameId)], ['currency', 'EUR'], ['language', 'en']]);
      const res = await http('GET', `${p.baseUrl}/launch?${query}`);
      const codes = token.includes('\u0000') ? ['Bad Request'] : ['INVALID_LAUNCH_TOKEN'];
      expectRefused(res, { status: codes[0] === 'Bad Request' ? 400 : 401, codes, style: 'wallet' }, token, tally);
    });
    expect(await sessions()).toBe(before);
    tally.check('no session written by a refused launch');
  });

  scenario('When a URL is longer than the HTTP parser accepts, then 431 without a body, and the platform keeps serving', async () => {
    const res = await http('GET', `${p.baseUrl}/api/v1/rounds?playerId=${'y'.repeat(20_000)}`, { token: g.providerToken });
    expect(res.status).toBe(431);
    expect(res.text).not.toMatch(/\bat [\w$.<>]+ \(|node_modules/);
    expect((await g.call('GET', '/api/v1/rounds')).status).toBe(200);
    tally.request(2);
  });
});

function tooLongText(n: number): string {
  return 'x'.repeat(n);
}
