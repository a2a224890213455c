import { Router, type Express } from 'express';
import { createServiceApp, healthRouter, OperatorSessions, requireIdentity, standardChecks, type Runtime } from '@relay/shared';
import { SignInAttempts } from './domain/attempts';
import type { BackofficeDeps } from './domain/deps';
import { accountRoutes } from './routes/accounts';
import { auditRoutes } from './routes/audit';
import { authRoutes } from './routes/auth';
import { casinoTokenRoutes } from './routes/casinoTokens';
import { consoleRoutes } from './routes/console';
import { directoryRoutes } from './routes/directory';
import { freeRoundRoutes } from './routes/freeRounds';
import { moneyRoutes } from './routes/money';

/**
 * The back office: operator accounts, sign-in, casino API tokens and the audit trail, under
 * /backoffice/v1. The gateway checks every credential (session cookie and CSRF token, casino API
 * token, ADMIN_TOKEN) and forwards who the caller is; sign-in itself is the one thing reached
 * without one. Role and scope are then checked here, by domain/access.ts.
 */
export function createBackofficeApp(rt: Runtime): Express {
  const deps: BackofficeDeps = {
    db: rt.db.primary,
    reporting: rt.db.reporting,
    redis: rt.redis,
    secrets: rt.secrets,
    sessions: operatorSessions(rt),
    bus: rt.bus,
    logger: rt.logger,
    config: rt.config,
  };
  const attempts = new SignInAttempts(rt.redis, rt.config);
  const signedIn = Router();
  signedIn.use(requireIdentity(rt.verifier, ['admin', 'operator', 'casino-token']));
  signedIn.use(accountRoutes(deps), casinoTokenRoutes(deps), auditRoutes(deps), directoryRoutes(deps), freeRoundRoutes(deps));
  signedIn.use(moneyRoutes(deps, rt));

  const backoffice = Router();
  backoffice.use(authRoutes(deps, attempts, rt.metrics));
  backoffice.use(signedIn);
  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt, { reporting: true }), rt.metrics, rt.isStopping),
    routes: (app) => {
      // Identity first, for every path: a request that skipped the gateway learns nothing, not even a 404.
      app.use(requireIdentity(rt.verifier, ['public', 'admin', 'operator', 'casino-token']));
      app.use('/backoffice/v1', backoffice);
      app.use('/console', consoleRoutes());
    },
  });
}

export function operatorSessions(rt: Runtime): OperatorSessions {
  return new OperatorSessions(rt.redis, rt.config.REDIS_KEY_PREFIX, {
    idleSeconds: rt.config.BACKOFFICE_SESSION_IDLE_SECONDS,
    maxSeconds: rt.config.BACKOFFICE_SESSION_MAX_SECONDS,
  });
}
