import fc from 'fast-check';
import { http, startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../platform';
import { adminGet, provisionWorld, type World } from '../provision';
import { scenarioIt, Tally } from '../faults/support/reliability';
import {
  badAmount,
  expectRefused,
  extraFields,
  HOSTILE_RUNS,
  HOSTILE_SEED,
  notABoolean,
  notAnObject,
  notANumber,
  notAString,
  oneBadField,
  ONE_MIB_JSON,
  sendHuge,
  tooLong,
  unicodeText,
  withField,
  withNul,
  announceSeed,
} from './support/hostile';

/**
 * Property-based hostile input against the platform admin API: every PUT body with one field it
 * must refuse, hostile ids in the path and query. Each answer is a 400 in the envelope, never a 5xx;
 * the record named in the path is not created or changed.
 */
const tally = new Tally(
  'hostile-admin',
  'Hostile input on the admin API',
  'test/security/hostile-admin.test.ts',
  'fast-check generates bodies of PUT casinos, game-providers, games, config-template, casino game config and currency config, each with one field the route must refuse (wrong types, missing fields, bad URLs with credentials, queries or script schemes, short wallet secrets, malformed launch keys, bad statuses and booleans, negative or fractional rate limits, ids with colons or slashes, bet limits out of order, over-precise amounts, unknown extra fields), plus hostile ids in the path, bad pagination and a 1 MiB body (413, with and without Content-Length). Every answer is 400 in the envelope with no stack trace, and the record named in the path is neither created nor changed.',
);
const scenario = scenarioIt(tally);
const REFUSED = { status: 400, codes: ['Bad Request'], style: 'envelope' as const };

const badName = fc.oneof(notAString, fc.constantFrom('', '   ', undefined), tooLong(200), withNul);
const badUrl = fc.oneof(
  notAString,
  fc.constantFrom(undefined, 'not a url', 'ftp://casino.example/w', 'javascript:alert(1)', 'http://user:pass@casino.example/w', 'file:///etc/passwd', ''),
  tooLong(2048).map((s) => `https://casino.example/${s}`),
);
const badStatus = fc.oneof(notAString, fc.constantFrom('active', 'DELETED', '', 'ACTIVE '));
const isRecordId = (v: string) => /^(?!\.+$)[\w.~@+-]{1,128}$/.test(v);

describe('hostile input on the admin API', () => {
  let p: TestPlatform;
  let world: World;
  const put = (path: string, body: unknown) => http('PUT', `${p.baseUrl}/admin/v1/${path}`, { token: p.adminToken, body });
  const run = <T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arb, check), { seed: HOSTILE_SEED, numRuns: HOSTILE_RUNS });

  beforeAll(async () => {
    p = await startPlatform({ services: ['admin'] });
    world = await provisionWorld(p);
    announceSeed(tally);
  });
  afterAll(async () => {
    tally.write();
    await p?.stop();
  });

  scenario('When PUT casinos has a field it must refuse, then 400 and no casino is created', async () => {
    const bad = oneBadField({
      name: badName,
      walletUrl: fc.oneof(badUrl, fc.constantFrom('http://casino.example/w?x=1', 'http://casino.example/w#frag')),
      walletSecret: fc.oneof(notAString, unicodeText(15).filter((s) => s.length < 16), tooLong(512)),
      launchKey: fc.oneof(notAString, fc.constantFrom('short', Buffer.alloc(31).toString('base64url'), Buffer.alloc(33).toString('base64url'), '+'.repeat(43))),
      status: badStatus,
      refundOnCreditFail: notABoolean,
      creditOnDisconnect: notABoolean,
      providerId: unicodeText().map((v) => `other-${v}`),
    });
    const huge = uniqueId('hostile-cas');
    for (const res of await sendHuge(`${p.baseUrl}/admin/v1/casinos/${huge}`, 'PUT', p.adminToken, ONE_MIB_JSON)) {
      expectRefused(res, { status: 413, codes: ['PAYLOAD_TOO_LARGE'], style: 'envelope' }, '1 MiB casino', tally);
    }
    expect((await adminGet(p, `casinos/${huge}`)).status).toBe(404);
    await run(fc.tuple(bad, extraFields), async ([[field, value], extra]) => {
      const id = uniqueId('hostile-cas');
      const body = withField({ name: 'Casino', walletUrl: 'http://127.0.0.1:9/wallet', ...extra }, field, value);
      expectRefused(await put(`casinos/${id}`, body), REFUSED, body, tally);
      expect((await adminGet(p, `casinos/${id}`)).status).toBe(404);
    });
  });

  scenario('When PUT game-providers has a field it must refuse, then 400 and no game provider is created', async () => {
    const bad = oneBadField({
      name: badName,
      status: badStatus,
      rateLimitPerSecond: fc.oneof(notANumber.filter((v) => v !== null), fc.constantFrom(-1, 1.5, 1_000_001, 1e300)),
      groupId: unicodeText().map((v) => `other-${v}`),
    });
    await run(fc.tuple(bad, extraFields), async ([[field, value], extra]) => {
      const id = uniqueId('hostile-grp');
      const body = withField({ name: 'Provider', ...extra }, field, value);
      expectRefused(await put(`game-providers/${id}`, body), REFUSED, body, tally);
      expect((await adminGet(p, `game-providers/${id}`)).status).toBe(404);
    });
  });

  scenario('When PUT games has a field it must refuse, then 400 and no game is created', async () => {
    const bad = oneBadField({
      name: badName,
      groupId: fc.oneof(notAString, fc.constantFrom('', 'a:b', 'a/b', '..', undefined), tooLong(128)),
      frontendUrl: badUrl,
      status: badStatus,
      gameId: fc.oneof(notANumber.filter((v) => v !== null), fc.constant(-7)),
    });
    await run(fc.tuple(bad, extraFields), async ([[field, value], extra]) => {
      const gameId = uniqueGameId();
      const body = withField({ name: 'Game', groupId: world.groupId, frontendUrl: 'https://game.example.com/', ...extra }, field, value);
      expectRefused(await put(`games/${gameId}`, body), REFUSED, body, tally);
      expect((await adminGet(p, `games/${gameId}`)).status).toBe(404);
    });
  });

  scenario('When PUT config-template has a property it must refuse, then 400 and the game keeps no template', async () => {
    const property = { name: 'speed', type: 'NUMBER', required: false, default: 1 };
    const badProperty = oneBadField({
      name: fc.oneof(notAString, fc.constantFrom('', 'id', 'providerId', '_id', 'createdAt', undefined), tooLong(100)),
      type: fc.oneof(notAString, fc.constantFrom('STR', 'number', '', undefined)),
      values: fc.oneof(notAnObject.filter((v) => !Array.isArray(v) && v !== null), fc.constant(Array.from({ length: 201 }, (_, i) => `v${i}`))),
      required: notABoolean,
      default: fc.oneof(fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(unicodeText(4), fc.integer(), { maxKeys: 2 }), fc.constant('fast')),
    }).map(([field, value]) => withField(property, field, value));
    const properties = fc.oneof(notAnObject.filter((v) => !Array.isArray(v)), badProperty.map((p) => [property, p]), fc.constant(Array.from({ length: 201 }, (_, i) => ({ ...property, name: `p${i}` }))));
    await run(properties, async (value) => {
      const body = { properties: value };
      expectRefused(await put(`games/${world.gameId}/config-template`, body), REFUSED, body, tally);
    });
    expect((await adminGet(p, `games/${world.gameId}/config-template`)).status).toBe(404);
  });

  scenario('When PUT casino game config or currency config has a field it must refuse, then 400 and nothing is stored', async () => {
    await run(fc.oneof(notAnObject, fc.constant(undefined)), async (values) => {
      const body = withField({}, 'values', values);
      expectRefused(await put(`casinos/${world.providerId}/games/${world.gameId}/config`, body), REFUSED, body, tally);
    });
    const valid = { minBet: 1, maxBet: 100, defaultBet: 5, betSuggestions: [1, 5, 10], maxWin: 1000, minAutoCashout: 1.01, maxAutoCashout: 100, defaultAutoCashout: 2 };
    const bad = oneBadField({
      minBet: fc.oneof(badAmount(), fc.constant(200)),
      maxBet: fc.oneof(badAmount(), fc.constant(0.5)),
      defaultBet: fc.oneof(badAmount(), fc.constant(101)),
      maxWin: badAmount(),
      betSuggestions: fc.oneof(notAnObject.filter((v) => !Array.isArray(v) && v !== null), badAmount(false).map((a) => [1, a]), fc.constant([1000]), fc.constant(Array.from({ length: 51 }, () => 1))),
      minAutoCashout: fc.oneof(notANumber.filter((v) => v !== null), fc.constant(-1), fc.constant(500)),
      defaultAutoCashout: fc.oneof(notANumber.filter((v) => v !== null), fc.constant(1000)),
      isRoundable: notABoolean,
      isDefault: notABoolean,
      currency: fc.constantFrom('USD', 'EURO', 5, null),
    });
    await run(fc.tuple(bad, extraFields), async ([[field, value], extra]) => {
      const body = withField({ ...valid, ...extra }, field, value);
      expectRefused(await put(`casinos/${world.providerId}/games/${world.gameId}/currencies/EUR`, body), REFUSED, body, tally);
    });
    expect((await adminGet(p, `casinos/${world.providerId}/games/${world.gameId}/currencies`)).body.data).toEqual([]);
    tally.check('nothing stored by refused configs');
  });

  scenario('When an admin path names an id no record may have, or a list gets bad pagination, then 400 and nothing is created', async () => {
    const badIdArb = unicodeText(140).filter((v) => !isRecordId(v) && v !== '.' && v !== '..' && !v.includes('/'));
    await run(badIdArb, async (id) => {
      const res = await put(`casinos/${encodeURIComponent(id)}`, { name: 'Casino', walletUrl: 'http://127.0.0.1:9/wallet' });
      expectRefused(res, REFUSED, id, tally);
      // (PostgreSQL text cannot even hold a NUL: such an id can be in no row.)
      if (!id.includes('\u0000')) expect(await p.db.primary('casinos').where({ provider_id: id }).first()).toBeUndefined();
    });
    const badPage = fc.oneof(fc.tuple(fc.constantFrom('page', 'limit'), fc.constantFrom('0', '-1', 'x', '1.5', '', '1e999')), fc.constant(['limit', '501'] as [string, string]));
    await run(badPage, async ([key, value]) => {
      expectRefused(await http('GET', `${p.baseUrl}/admin/v1/casinos?${key}=${value}`, { token: p.adminToken }), REFUSED, { key, value }, tally);
    });
  });
});
