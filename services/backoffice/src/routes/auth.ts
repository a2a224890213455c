import { Router, type Response } from 'express';
import { serialize } from 'cookie';
import { z } from 'zod';
import { AppError, currentContext, handler, isAppError, OPERATOR_CSRF_COOKIE, OPERATOR_SESSION_COOKIE, sendEnvelope, type Config, type ServiceMetrics } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { SignInAttempts } from '../domain/attempts';
import type { BackofficeDeps } from '../domain/deps';
import { completeSignIn, signOut, startSignIn } from '../domain/signin';
import * as accounts from '../data/accounts';
import { presentAccount } from './present';
import { addressOf, factsOf, parse } from './validation';

export const signInBody = z.object({ email: z.string().trim().min(3).max(320), password: z.string().min(1).max(1024) });
export const secondFactorBody = z
  .object({ challenge: z.string().min(10).max(200), code: z.string().trim().max(20).optional(), recoveryCode: z.string().trim().max(40).optional() })
  .refine((b) => (b.code === undefined) !== (b.recoveryCode === undefined), 'give either code or recoveryCode');

/** `Secure` everywhere but local runs over plain http (development, test, or the explicit flag). */
function secureCookies(config: Config): boolean {
  return !(config.NODE_ENV === 'development' || config.NODE_ENV === 'test' || config.BACKOFFICE_INSECURE_COOKIE);
}

function setSessionCookies(res: Response, config: Config, sessionId: string, csrfToken: string, maxAgeSeconds: number): void {
  const common = { path: '/', sameSite: 'strict' as const, secure: secureCookies(config), maxAge: maxAgeSeconds };
  res.append('Set-Cookie', serialize(OPERATOR_SESSION_COOKIE, sessionId, { ...common, httpOnly: true }));
  // Readable by the console's script, which echoes it in X-CSRF-Token (a page of another site can do neither).
  res.append('Set-Cookie', serialize(OPERATOR_CSRF_COOKIE, csrfToken, common));
}

/** Sign-in (password, then the second factor), who am I, and sign-out. */
export function authRoutes(deps: BackofficeDeps, attempts: SignInAttempts, metrics: ServiceMetrics): Router {
  const router = Router();
  // Failed sign-ins and lock-outs, for an alert on guessing (the log has no email or address).
  const signIns = metrics.counter('backoffice_sign_ins_total', 'Back-office sign-in steps by outcome (ok or the refusal code)', ['step', 'outcome']);
  const counted = async <T>(step: 'password' | 'second-factor', run: () => Promise<T>): Promise<T> => {
    try {
      const result = await run();
      signIns.inc({ step, outcome: 'ok' });
      return result;
    } catch (err) {
      if (isAppError(err)) signIns.inc({ step, outcome: err.code });
      throw err;
    }
  };

  router.post('/auth/sign-in', handler(async (req, res) => {
    const input = parse(signInBody, req.body);
    const step = await counted('password', () => startSignIn(deps, attempts, { ...input, address: addressOf(req) }));
    res.setHeader('Cache-Control', 'no-store');
    sendEnvelope(res, 200, step.next === 'enrol' ? 'Password accepted; enrol an authenticator app and send its first code' : 'Password accepted; send the code of your authenticator app', step);
  }));

  router.post('/auth/second-factor', handler(async (req, res) => {
    const input = parse(secondFactorBody, req.body);
    const done = await counted('second-factor', () =>
      completeSignIn(deps, attempts, { ...input, address: addressOf(req) }, {
        method: req.method,
        route: `${req.baseUrl}${String(req.route?.path ?? req.path)}`,
        requestId: currentContext()?.requestId ?? null,
      }),
    );
    const maxAge = Math.floor((done.expiresAt.getTime() - Date.now()) / 1000);
    setSessionCookies(res, deps.config, done.sessionId, done.csrfToken, maxAge);
    res.setHeader('Cache-Control', 'no-store');
    sendEnvelope(res, 200, done.recoveryCodes ? 'Signed in; keep the recovery codes: they are shown only now' : 'Signed in', {
      account: presentAccount(done.account),
      csrfToken: done.csrfToken,
      expiresAt: done.expiresAt.toISOString(),
      ...(done.recoveryCodes ? { recoveryCodes: done.recoveryCodes } : {}),
    });
  }));

  router.get('/session', handler(async (req, res) => {
    const caller = callerOf(req.identity);
    const account = caller.actorType === 'operator' ? await accounts.findAccount(deps.db, caller.actorId) : null;
    sendEnvelope(res, 200, 'Signed in', {
      actorType: caller.actorType,
      role: caller.role,
      scope: caller.scope,
      account: account ? presentAccount(account) : null,
      idleTimeoutSeconds: deps.config.BACKOFFICE_SESSION_IDLE_SECONDS,
    });
  }));

  router.delete('/session', handler(async (req, res) => {
    const facts = factsOf(req);
    if (facts.caller.actorType !== 'operator' || !facts.caller.sessionRef) throw new AppError('Bad Request', 'Only a signed-in person has a session to end');
    await signOut(deps, facts, facts.caller.sessionRef);
    setSessionCookies(res, deps.config, '', '', 0);
    sendEnvelope(res, 200, 'Signed out', null);
  }));

  return router;
}
