import { http, startPlatform, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { eventually } from '../../../test/faults/support/money';
import { asOperator, bo, createOperator, signInFirstTime } from '../../../test/backoffice';

/**
 * Issue 36, finding 5: deleting a casino left its casino API tokens and casino-scoped accounts
 * alive, and a casino made again under the same id was then read by the old tenant's credentials.
 */
const PROPAGATION_DEADLINE_MS = 10_000;
let p: TestPlatform;
let a: World;
let other: World;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin', 'backoffice'] });
  [a, other] = [await provisionWorld(p), await provisionWorld(p)];
}, 30000);
afterAll(async () => {
  await p?.stop();
});

describe('When a casino is deleted', () => {
  it('then its casino API tokens and casino-scoped accounts stop working, and stay stopped when a casino is made again under its id', async () => {
    const issued = await http('POST', bo(p, `casinos/${a.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'reconciliation' } });
    const token: string = issued.body.data.token;
    const kept = (await http('POST', bo(p, `casinos/${other.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'other casino' } })).body.data.token as string;
    const support = await signInFirstTime(p, await createOperator(p, 'support', { type: 'casino', providerId: a.providerId }));
    const otherSupport = await signInFirstTime(p, await createOperator(p, 'support', { type: 'casino', providerId: other.providerId }));
    expect((await http('GET', bo(p, 'casinos'), { token })).status).toBe(200);
    expect((await asOperator(support, 'GET', bo(p, 'session'))).status).toBe(200);

    expect((await http('DELETE', `${p.baseUrl}/admin/v1/casinos/${a.providerId}`, { token: p.adminToken })).status).toBe(200);
    await eventually(async () => (await http('GET', bo(p, 'casinos'), { token })).status === 403, PROPAGATION_DEADLINE_MS, 'the deleted casino\'s token to be refused');
    expect((await asOperator(support, 'GET', bo(p, 'session'))).status).toBe(403);
    const stored = await p.db.primary('operator_accounts').where({ account_id: support.accountId }).first('status');
    expect(stored.status).toBe('DISABLED');
    expect((await p.db.primary('casino_api_tokens').where({ provider_id: a.providerId }).whereNull('revoked_at')).length).toBe(0);

    // A PUT of the same id still makes the casino (CONTRACTS 5); the old tenant's credentials stay out.
    const again = await http('PUT', `${p.baseUrl}/admin/v1/casinos/${a.providerId}`, {
      token: p.adminToken,
      body: { name: 'A new tenant', walletUrl: a.walletUrl, status: 'ACTIVE', refundOnCreditFail: false, creditOnDisconnect: false },
    });
    expect([200, 201]).toContain(again.status);
    expect((await http('GET', `${p.baseUrl}/admin/v1/casinos/${a.providerId}`, { token: p.adminToken })).body.data.name).toBe('A new tenant');
    expect((await http('GET', bo(p, 'casinos'), { token })).status).toBe(403);
    const signIn = await http('POST', bo(p, 'auth/sign-in'), { body: { email: support.email, password: support.password } });
    expect(signIn.status).not.toBe(200);

    // Another casino's token and people are untouched.
    expect((await http('GET', bo(p, 'casinos'), { token: kept })).status).toBe(200);
    expect((await asOperator(otherSupport, 'GET', bo(p, 'session'))).status).toBe(200);
  }, 60_000);
});
