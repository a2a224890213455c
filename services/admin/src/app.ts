import { Router, type Express } from 'express';
import { CasinoAddressPolicy, createServiceApp, healthRouter, OperatorSessions, requireIdentity, standardChecks, type Runtime } from '@relay/shared';
import { changePublisher, type AdminDeps } from './domain/deps';
import { casinoRoutes } from './routes/casinos';
import { gameProviderRoutes } from './routes/gameProviders';
import { gameRoutes } from './routes/games';
import { casinoGameRoutes } from './routes/casinoGames';
import { auditAdminWrites, platformAdminsOnly, writeScope } from './routes/audit';

/**
 * The platform admin API (docs/api/admin.json). Only the gateway's admin identity (the ADMIN_TOKEN) and a
 * signed-in platform admin get past the front door, so a game provider token is refused here.
 * Every write is recorded in the audit trail.
 */
export function createAdminApp(rt: Runtime): Express {
  const publish = changePublisher(rt.bus, rt.logger);
  const deps: AdminDeps = {
    // A write runs in its request's transaction, with its audit entry (routes/audit.ts).
    get db() {
      return writeScope.getStore()?.trx ?? rt.db.primary;
    },
    secrets: rt.secrets,
    // Inside a write, changes are published after its transaction commits.
    publishChange: async (...changes) => {
      const scope = writeScope.getStore();
      if (scope) scope.changes.push(...changes);
      else await publish(...changes);
    },
    walletAddresses: CasinoAddressPolicy.fromConfig(rt.config),
    sessions: new OperatorSessions(rt.redis, rt.config.REDIS_KEY_PREFIX, {
      idleSeconds: rt.config.BACKOFFICE_SESSION_IDLE_SECONDS,
      maxSeconds: rt.config.BACKOFFICE_SESSION_MAX_SECONDS,
    }),
  };
  const admin = Router();
  admin.use(platformAdminsOnly, auditAdminWrites(rt.db.primary, rt.logger, publish));
  admin.use(casinoRoutes(deps));
  admin.use(casinoGameRoutes(deps));
  admin.use(gameProviderRoutes(deps));
  admin.use(gameRoutes(deps));
  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt), rt.metrics, rt.isStopping),
    routes: (app) => {
      // Identity first, for every path: a request that skipped the gateway learns nothing, not even a 404.
      app.use(requireIdentity(rt.verifier, ['admin', 'operator']));
      app.use('/admin/v1', admin);
    },
  });
}
