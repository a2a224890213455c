import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { ROOT } from './services';

/**
 * The demo's console accounts: a platform admin and a support person of the demo casino, created
 * through the back-office API with the ADMIN_TOKEN and enrolled as a person would (password, then
 * the first code of the authenticator, here computed from the enrolment's secret). Their password
 * and TOTP secret are kept in .demo/console-accounts.json (git-ignored, mode 600; DEMO_ACCOUNTS_FILE
 * moves it) so a re-run
 * against the same database prints the same sign-in; `npm run demo:totp` reads it for the
 * current codes. Demo use only: a real account is enrolled in a real authenticator app.
 */
export interface DemoAccount {
  email: string;
  password: string;
  totpSecret: string;
  role: 'admin' | 'support';
  scope: { type: 'platform' } | { type: 'casino'; providerId: string };
}

export const ACCOUNTS_FILE = process.env.DEMO_ACCOUNTS_FILE ?? path.join(ROOT, '.demo', 'console-accounts.json');

/** The same RFC 6238 parameters as the back office: SHA-1, 6 digits, 30 seconds. */
export function totpCode(secretBase32: string, now = Date.now()): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secretBase32) }).generate({ timestamp: now });
}

export function readAccounts(): DemoAccount[] {
  return existsSync(ACCOUNTS_FILE) ? (JSON.parse(readFileSync(ACCOUNTS_FILE, 'utf8')) as DemoAccount[]) : [];
}

type Call = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; text: string; body: unknown }>;

export async function ensureConsoleAccounts(relayUrl: string, adminToken: string, providerId: string, call: Call): Promise<DemoAccount[]> {
  const kept = readAccounts();
  const wanted: Pick<DemoAccount, 'role' | 'scope'>[] = [
    { role: 'admin', scope: { type: 'platform' } },
    { role: 'support', scope: { type: 'casino', providerId } },
  ];
  const out: DemoAccount[] = [];
  for (const want of wanted) {
    const old = kept.find((a) => a.role === want.role && a.scope.type === want.scope.type);
    if (old && (await signsIn(relayUrl, old, call))) {
      out.push(old);
      continue;
    }
    // New, or the database no longer knows the kept one: a fresh email, so no earlier account is in the way.
    const tag = randomBytes(3).toString('hex');
    const email = `${want.role === 'admin' ? 'admin' : 'casino-support'}-${tag}@demo.example`;
    const password = `Demo-${randomBytes(12).toString('base64url')}`;
    const created = await call('POST', `${relayUrl}/backoffice/v1/accounts`, {
      email, password, role: want.role, scope: want.scope,
      displayName: want.role === 'admin' ? 'Demo Platform Admin' : 'Demo Casino Support',
    }, { authorization: `Bearer ${adminToken}` });
    if (created.status !== 201) throw new Error(`creating the demo ${want.role} account answered ${created.status}: ${created.text}`);
    const first = await call('POST', `${relayUrl}/backoffice/v1/auth/sign-in`, { email, password });
    const step = (first.body as { data?: { challenge: string; enrolment?: { secret: string } } } | undefined)?.data;
    if (first.status !== 200 || !step?.enrolment) throw new Error(`the demo ${want.role} account's first sign-in answered ${first.status}`);
    const done = await call('POST', `${relayUrl}/backoffice/v1/auth/second-factor`, { challenge: step.challenge, code: totpCode(step.enrolment.secret) });
    if (done.status !== 200) throw new Error(`enrolling the demo ${want.role} account answered ${done.status}`);
    out.push({ email, password, totpSecret: step.enrolment.secret, ...want });
  }
  mkdirSync(path.dirname(ACCOUNTS_FILE), { recursive: true });
  writeFileSync(ACCOUNTS_FILE, `${JSON.stringify(out, null, 2)}\n`, { mode: 0o600 });
  chmodSync(ACCOUNTS_FILE, 0o600);
  return out;
}

/** The password step only (it spends no TOTP code): does the database still know this account and password? */
async function signsIn(relayUrl: string, a: DemoAccount, call: Call): Promise<boolean> {
  const res = await call('POST', `${relayUrl}/backoffice/v1/auth/sign-in`, { email: a.email, password: a.password });
  return res.status === 200 && (res.body as { data?: { next?: string } } | undefined)?.data?.next === 'totp';
}
