import { Router, type Express } from 'express';
import { CasinoAddressPolicy, createServiceApp, healthRouter, requireIdentity, standardChecks, type Runtime } from '@relay/shared';
import { changePublisher, type AdminDeps } from './domain/deps';
import { casinoRoutes } from './routes/casinos';
import { gameProviderRoutes } from './routes/gameProviders';
import { gameRoutes } from './routes/games';
import { casinoGameRoutes } from './routes/casinoGames';
import { auditAdminWrites, platformAdminsOnly } from './routes/audit';

/**
 * The platform admin API (docs/api/admin.json). Only the gateway's admin identity (the ADMIN_TOKEN) and a
 * signed-in platform admin get past the front door, so a game provider token is refused here.
 * Every write is recorded in the audit trail.
 */
export function createAdminApp(rt: Runtime): Express {
  const deps: AdminDeps = {
    db: rt.db.primary,
    secrets: rt.secrets,
    publishChange: changePublisher(rt.bus, rt.logger),
    walletAddresses: CasinoAddressPolicy.fromConfig(rt.config),
  };
  const admin = Router();
  admin.use(platformAdminsOnly, auditAdminWrites(rt.db.primary, rt.logger));
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
