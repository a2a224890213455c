import type { OperatorScope } from '@relay/shared';
import { currentCode } from '../services/backoffice/src/domain/totp';
import { http, uniqueId, type TestPlatform } from './platform';

/**
 * Back-office accounts and sign-in for integration tests, done as a person does it through the
 * gateway: the ADMIN_TOKEN (or a platform admin) creates the account, the person signs in with the
 * password, enrols the authenticator from the sign-in answer, and keeps the session cookie.
 */
export type HttpResult = Awaited<ReturnType<typeof http>>;

export interface NewOperator {
  accountId: string;
  email: string;
  password: string;
}

export interface SignedInOperator extends NewOperator {
  totpSecret: string;
  sessionId: string;
  csrfToken: string;
  recoveryCodes: string[];
  setCookies: string[];
}

export const bo = (p: TestPlatform, path: string) => `${p.baseUrl}/backoffice/v1/${path.replace(/^\/+/, '')}`;

export function strongPassword(): string {
  return `Correct-Horse-${uniqueId('pw')}`;
}

export async function createOperator(p: TestPlatform, role: 'admin' | 'support' | 'finance', scope: OperatorScope): Promise<NewOperator> {
  const email = `${uniqueId('op')}@example.test`;
  const password = strongPassword();
  const res = await http('POST', bo(p, 'accounts'), { token: p.adminToken, body: { email, displayName: `Operator ${email}`, password, role, scope } });
  if (res.status !== 201) throw new Error(`create account: ${res.status} ${res.text}`);
  return { accountId: res.body.data.accountId, email, password };
}

export function cookieValue(setCookies: string[], name: string): string | undefined {
  const line = setCookies.find((c) => c.startsWith(`${name}=`));
  return line ? decodeURIComponent(line.split(';')[0].slice(name.length + 1)) : undefined;
}

/** Password, then first-time enrolment with the QR code's secret and its first code. */
export async function signInFirstTime(p: TestPlatform, op: NewOperator): Promise<SignedInOperator> {
  const first = await http('POST', bo(p, 'auth/sign-in'), { body: { email: op.email, password: op.password } });
  if (first.status !== 200 || first.body.data.next !== 'enrol') throw new Error(`sign-in: ${first.status} ${first.text}`);
  const totpSecret: string = first.body.data.enrolment.secret;
  const second = await http('POST', bo(p, 'auth/second-factor'), { body: { challenge: first.body.data.challenge, code: currentCode(totpSecret) } });
  if (second.status !== 200) throw new Error(`second factor: ${second.status} ${second.text}`);
  const setCookies = second.headers.getSetCookie();
  return {
    ...op,
    totpSecret,
    sessionId: cookieValue(setCookies, 'relay_bo_session')!,
    csrfToken: second.body.data.csrfToken,
    recoveryCodes: second.body.data.recoveryCodes,
    setCookies,
  };
}

export async function signedInOperator(p: TestPlatform, role: 'admin' | 'support' | 'finance', scope: OperatorScope): Promise<SignedInOperator> {
  return signInFirstTime(p, await createOperator(p, role, scope));
}

/** A request with the session cookie and (unless told otherwise) the CSRF token. */
export function asOperator(
  op: Pick<SignedInOperator, 'sessionId' | 'csrfToken'>,
  method: string,
  url: string,
  options: { body?: unknown; csrf?: string | null } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { cookie: `relay_bo_session=${op.sessionId}` };
  const csrf = options.csrf === undefined ? op.csrfToken : options.csrf;
  if (csrf !== null) headers['x-csrf-token'] = csrf;
  return http(method, url, { headers, body: options.body });
}
