import { AppError, appendAudit, hashToken, randomSecret, type Knex } from '@relay/shared';
import * as accounts from '../data/accounts';
import type { AccountRecord } from '../data/accounts';
import { newRecoveryCodes, recoveryCodeHash } from './accounts';
import type { SignInAttempts } from './attempts';
import { audited, type RequestFacts } from './audit';
import type { BackofficeDeps } from './deps';
import { verifyAgainstDecoy, verifyPassword } from './passwords';
import { enrolment, matchingStep, newTotpSecret } from './totp';

const CHALLENGE_SECONDS = 300;
const CHALLENGE_MAX_FAILURES = 5;

/** Between the password and the second factor: what the challenge id stands for, in Redis under its hash. */
interface Challenge {
  accountId: string;
  accountKey: string;
  /** Sealed TOTP secret offered for first-time enrolment; absent when the account has a factor. */
  enrolSecretEnc?: string;
}

export type SignInStep =
  | { challenge: string; next: 'totp' }
  | { challenge: string; next: 'enrol'; enrolment: Awaited<ReturnType<typeof enrolment>> };

const wrongCredentials = () => new AppError('INVALID_CREDENTIALS', 'Email or password is wrong');

/**
 * Step one: the password. A wrong password, an unknown email and a disabled account get the same
 * answer in about the same time. An account without a second factor gets a new TOTP secret to
 * enrol (QR code and otpauth URI), confirmed by its first code in step two.
 */
export async function startSignIn(deps: BackofficeDeps, attempts: SignInAttempts, input: { email: string; password: string; address: string }): Promise<SignInStep> {
  const accountKey = hashToken(accounts.normalizeEmail(input.email));
  await attempts.take(accountKey, input.address);
  const account = await accounts.findByEmail(deps.db, input.email);
  const ok = account ? await verifyPassword(account.passwordHash, input.password) : await verifyAgainstDecoy(input.password);
  if (!account || !ok || account.status !== 'ACTIVE') throw wrongCredentials();
  await attempts.passwordAccepted(accountKey, input.address);
  const challenge = randomSecret(32);
  const record: Challenge = { accountId: account.accountId, accountKey };
  let step: SignInStep = { challenge, next: 'totp' };
  if (!account.totpSecretEnc) {
    const secret = newTotpSecret();
    record.enrolSecretEnc = deps.secrets.seal(secret);
    step = { challenge, next: 'enrol', enrolment: await enrolment(secret, account.email) };
  }
  await deps.redis.set(challengeKey(deps, challenge), JSON.stringify(record), 'EX', CHALLENGE_SECONDS);
  return step;
}

export interface SignedIn {
  account: AccountRecord;
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  /** Only after first-time enrolment: shown once. */
  recoveryCodes?: string[];
}

/** Step two: a TOTP code (or, for an enrolled account, a recovery code) opens a session. */
export async function completeSignIn(
  deps: BackofficeDeps,
  attempts: SignInAttempts,
  input: { challenge: string; code?: string; recoveryCode?: string; address: string },
  request: { method: string; route: string; requestId: string | null },
): Promise<SignedIn> {
  const key = challengeKey(deps, input.challenge);
  const text = await deps.redis.get(key);
  if (!text) throw new AppError('INVALID_SECOND_FACTOR', 'The sign-in has expired; start again');
  const challenge = JSON.parse(text) as Challenge;
  // Each attempt takes its number atomically before it is weighed: parallel guesses cannot all
  // read the same count and slip past the cap (a read-modify-write of the record would let them).
  const [[, tries]] = (await deps.redis.multi().incr(triesKey(key)).expire(triesKey(key), CHALLENGE_SECONDS).exec()) as [[Error | null, number]];
  if (tries > CHALLENGE_MAX_FAILURES) {
    await deps.redis.del(key, triesKey(key));
    throw new AppError('INVALID_SECOND_FACTOR', 'The sign-in has expired; start again');
  }
  await attempts.take(challenge.accountKey, input.address);

  const outcome = await deps.db.transaction(async (trx) => {
    const passed = await secondFactor(deps, trx, challenge, input);
    if (passed) {
      // A challenge opens one session: of two factors sent for it at once (a TOTP code and a
      // recovery code, say), the one whose DEL removes it goes on; the other's transaction rolls
      // back, its factor unused and nothing in the trail.
      if ((await deps.redis.del(key)) === 0) throw new AppError('INVALID_SECOND_FACTOR', 'The sign-in has expired; start again');
      // Who signed in, when, from where and with which factor: in the trail with the factor's own write.
      await appendAudit(trx, {
        actorType: 'operator',
        actorId: passed.account.accountId,
        clientAddress: input.address,
        ...request,
        action: 'session.sign-in',
        target: `account:${passed.account.accountId}`,
        before: null,
        after: { factor: challenge.enrolSecretEnc ? 'totp-enrolment' : input.recoveryCode ? 'recovery-code' : 'totp' },
      });
    }
    return passed;
  });
  if (!outcome) {
    if (tries >= CHALLENGE_MAX_FAILURES) await deps.redis.del(key, triesKey(key));
    throw new AppError('INVALID_SECOND_FACTOR', 'The code is wrong or was already used');
  }
  await deps.redis.del(triesKey(key));
  await attempts.succeeded(challenge.accountKey, input.address);
  const session = await deps.sessions.create({ accountId: outcome.account.accountId, role: outcome.account.role, scope: outcome.account.scope });
  // A disable or a change of role or scope that committed after the check above has already
  // revoked the account's sessions, but not this one, made after it: look once more, now that
  // the session is findable.
  const now = await accounts.findAccount(deps.db, outcome.account.accountId);
  const same = (a: AccountRecord) => JSON.stringify([a.role, accounts.scopeColumns(a.scope)]);
  if (!now || now.status !== 'ACTIVE' || same(now) !== same(outcome.account)) {
    await deps.sessions.revoke(session.ref, outcome.account.accountId);
    throw new AppError('INVALID_SECOND_FACTOR', 'The sign-in has expired; start again');
  }
  return { account: outcome.account, sessionId: session.sessionId, csrfToken: session.csrfToken, expiresAt: session.expiresAt, recoveryCodes: outcome.recoveryCodes };
}

async function secondFactor(
  deps: BackofficeDeps,
  trx: Knex.Transaction,
  challenge: Challenge,
  input: { code?: string; recoveryCode?: string },
): Promise<{ account: AccountRecord; recoveryCodes?: string[] } | null> {
  const account = await accounts.findCredentials(trx, challenge.accountId);
  // Disabled, or its factor reset, since the password step: the challenge is worthless.
  if (!account || account.status !== 'ACTIVE') return null;
  if (challenge.enrolSecretEnc) {
    if (account.totpSecretEnc || !input.code) return null;
    const step = matchingStep(deps.secrets.open(challenge.enrolSecretEnc), input.code);
    if (step === null || !(await accounts.acceptTotpStep(trx, account.accountId, step, challenge.enrolSecretEnc))) return null;
    const { codes, hashes } = newRecoveryCodes();
    await accounts.replaceRecoveryCodes(trx, account.accountId, hashes);
    return { account: publicPart({ ...account, secondFactorEnrolled: true }), recoveryCodes: codes };
  }
  if (!account.totpSecretEnc) return null;
  if (input.recoveryCode) {
    return (await accounts.useRecoveryCode(trx, account.accountId, recoveryCodeHash(input.recoveryCode))) ? { account: publicPart(account) } : null;
  }
  if (!input.code) return null;
  const step = matchingStep(deps.secrets.open(account.totpSecretEnc), input.code);
  if (step === null || (account.totpLastStep !== null && step <= account.totpLastStep)) return null;
  return (await accounts.acceptTotpStep(trx, account.accountId, step)) ? { account: publicPart(account) } : null;
}

/** The account without its credentials, before it leaves sign-in. */
function publicPart(account: AccountRecord & Partial<accounts.AccountCredentials>): AccountRecord {
  const { passwordHash: _p, totpSecretEnc: _t, totpLastStep: _s, ...rest } = account;
  return rest;
}

export async function signOut(deps: BackofficeDeps, facts: RequestFacts, sessionRef: string): Promise<void> {
  const accountId = facts.caller.actorId;
  await deps.sessions.revoke(sessionRef, accountId);
  await audited(deps, facts, 'session.sign-out', async () => ({ result: undefined, target: `account:${accountId}`, before: null, after: null }));
}

/** How many second-factor attempts the challenge has had, counted atomically (INCR). */
function triesKey(challengeKey: string): string {
  return `${challengeKey}:tries`;
}

function challengeKey(deps: BackofficeDeps, challenge: string): string {
  return `${deps.config.REDIS_KEY_PREFIX}:bo:challenge:${hashToken(challenge)}`;
}
