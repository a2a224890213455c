import { currentCode } from '../src/domain/totp';
import { http, startPlatform, type TestPlatform } from '../../../test/platform';
import { bo, createOperator, signInFirstTime } from '../../../test/backoffice';

/** Guessing the second factor in parallel: the per-challenge cap must hold under concurrency. */
let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin', 'backoffice'], env: { SIGNIN_MAX_FAILURES_PER_ACCOUNT: '100', SIGNIN_MAX_FAILURES_PER_ADDRESS: '100' } });
}, 30000);
afterAll(async () => {
  await p?.stop();
});

describe('When someone with the password fires many second-factor guesses at one challenge at once', () => {
  it('then no more than five are weighed and the challenge is worn out, so even the right code is then refused', async () => {
    const op = await signInFirstTime(p, await createOperator(p, 'support', { type: 'platform' }));
    const start = await http('POST', bo(p, 'auth/sign-in'), { body: { email: op.email, password: op.password } });
    expect(start.status).toBe(200);
    const challenge = start.body.data.challenge as string;
    const now = Date.now();
    const valid = new Set([-30000, 0, 30000, 60000].map((d) => currentCode(op.totpSecret, now + d)));
    const guesses = Array.from({ length: 40 }, (_, i) => String(100000 + i * 7919)).filter((c) => !valid.has(c)).slice(0, 30);
    const answers = await Promise.all(guesses.map((code) => http('POST', bo(p, 'auth/second-factor'), { body: { challenge, code } })));
    for (const a of answers) expect(a.status).toBe(401);

    const right = await http('POST', bo(p, 'auth/second-factor'), { body: { challenge, code: currentCode(op.totpSecret, Date.now() + 30000) } });
    expect([right.status, right.body.error]).toEqual([401, 'INVALID_SECOND_FACTOR']);
  }, 30000);
});

describe('When someone fires many password guesses for one account at once', () => {
  let q: TestPlatform;
  beforeAll(async () => {
    q = await startPlatform({ services: ['admin', 'backoffice'], env: { SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', SIGNIN_MAX_FAILURES_PER_ADDRESS: '100' } });
  }, 30000);
  afterAll(async () => {
    await q?.stop();
  });

  it('then no more than the limit are weighed; the rest are refused 429 before the password is checked', async () => {
    const op = await createOperator(q, 'support', { type: 'platform' });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => http('POST', bo(q, 'auth/sign-in'), { body: { email: op.email, password: `guess-${i}` } })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
  }, 30000);
});
