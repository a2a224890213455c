import fc from 'fast-check';
import { http, startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { badText, expectRefused, extraFields, HOSTILE_RUNS, HOSTILE_SEED, notAnObject, notAString, oneBadField, tooLong, unicodeText, withField, withNul } from '../../../test/security/support/hostile';
import { STACK_TRACE } from '../../../test/security/support/secrets';
import { bo, strongPassword } from '../../../test/backoffice';

/**
 * Property-based hostile input on the back office: bodies of account creation, sign-in and the
 * second factor with one field it must refuse, hostile ids in paths and bad audit filters. Every
 * answer is a 4xx in the envelope, never a 5xx, and nothing is created.
 */
let p: TestPlatform;
let world: World;
const run = <T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>) => fc.assert(fc.asyncProperty(arb, check), { seed: HOSTILE_SEED, numRuns: HOSTILE_RUNS });
const REFUSED = { status: 400, codes: ['Bad Request', 'WEAK_PASSWORD'], style: 'envelope' as const };

beforeAll(async () => {
  p = await startPlatform({ services: ['admin', 'backoffice'] });
  world = await provisionWorld(p);
  console.log(`hostile input: HOSTILE_SEED=${HOSTILE_SEED} HOSTILE_RUNS=${HOSTILE_RUNS}`);
}, 30000);
afterAll(async () => {
  await p?.stop();
});

const badScope = fc.oneof(
  notAnObject,
  fc.constantFrom({ type: 'casino' }, { type: 'studio', providerId: 'x' }, { type: 'galaxy' }, { type: 'casino', providerId: 'a:b' }, { type: 'studio', groupId: 'a/b' }, {}),
  badText(128).map((providerId) => ({ type: 'casino', providerId })),
);

describe('When an account is created with one hostile field', () => {
  it('then 400 in the envelope and no account exists', async () => {
    const base = () => ({ email: `${uniqueId('h')}@example.test`, displayName: 'Hostile', password: strongPassword(), role: 'support', scope: { type: 'casino', providerId: world.providerId } });
    const field = oneBadField({
      email: fc.oneof(notAString, fc.constantFrom('', 'not-an-email', 'a@', '@b.c'), tooLong(320).map((s) => `${s}@x.test`), withNul),
      displayName: badText(200),
      password: fc.oneof(notAString, fc.constantFrom('', 'short', 'password1234'), tooLong(1024), withNul),
      role: fc.oneof(notAString, fc.constantFrom('owner', 'ADMIN', '')),
      scope: badScope,
    });
    await run(fc.tuple(field, extraFields), async ([[name, value], extra]) => {
      const body = { ...withField(base(), name, value), ...extra };
      const res = await http('POST', bo(p, 'accounts'), { token: p.adminToken, body });
      expectRefused(res, REFUSED, body);
      if (typeof body.email === 'string' && !body.email.includes('\u0000')) expect(await p.db.primary('operator_accounts').where({ email: body.email }).first()).toBeUndefined();
    });
  });
});

describe('When sign-in and the second factor get hostile bodies', () => {
  it('then 400 in the envelope, never a 5xx', async () => {
    const signIn = oneBadField({ email: fc.oneof(notAString, tooLong(320), withNul, fc.constant('')), password: fc.oneof(notAString, tooLong(1024), withNul, fc.constant('')) });
    await run(signIn, async ([name, value]) => {
      const body = withField({ email: 'someone@example.test', password: 'whatever-it-is' }, name, value);
      expectRefused(await http('POST', bo(p, 'auth/sign-in'), { body }), { ...REFUSED, codes: ['Bad Request'] }, body);
    });
    const second = oneBadField({ challenge: fc.oneof(notAString, tooLong(200), withNul, fc.constant('short')), code: fc.oneof(fc.integer(), tooLong(20), withNul), recoveryCode: fc.oneof(fc.integer(), tooLong(40)) });
    await run(second, async ([name, value]) => {
      const body = withField({ challenge: 'x'.repeat(43), code: '123456' }, name, value);
      const res = await http('POST', bo(p, 'auth/second-factor'), { body });
      // A well-formed but unknown challenge is a 401; everything malformed a 400.
      expect([400, 401]).toContain(res.status);
      expect(res.text).not.toMatch(STACK_TRACE);
    });
  });
});

describe('When paths and filters carry hostile values', () => {
  it('then 400 or 404 in the envelope, never a 5xx, for every route with an id', async () => {
    const id = fc.oneof(unicodeText(40), withNul, fc.constantFrom('..', '.', '%', 'a:b', 'x'.repeat(200)));
    await run(id, async (raw) => {
      const seg = encodeURIComponent(raw);
      for (const [method, path] of [
        ['GET', `accounts/${seg}`],
        ['POST', `accounts/${seg}/disable`],
        ['POST', `casinos/${seg}/api-tokens`],
        ['GET', `casinos/${seg}/api-tokens`],
        ['DELETE', `casinos/${world.providerId}/api-tokens/${seg}`],
      ] as const) {
        const res = await http(method, bo(p, path), { token: p.adminToken, body: method === 'POST' ? { name: 'x' } : undefined });
        expect([`${method} ${path}`, res.status < 500]).toEqual([`${method} ${path}`, true]);
        expect(res.text).not.toMatch(STACK_TRACE);
        if (res.status >= 400) expect(res.body).toMatchObject({ data: null });
      }
    });
  });

  it('then bad audit filters and pagination are 400', async () => {
    for (const query of ['from=yesterday', 'to=2026-13-45', 'limit=0', 'limit=501', 'page=-1', 'actorType=robot', `action=${'x'.repeat(101)}`]) {
      const res = await http('GET', bo(p, `audit?${query}`), { token: p.adminToken });
      expectRefused(res, { ...REFUSED, codes: ['Bad Request'] }, query);
    }
  });
});
