import type { Express, RequestHandler } from 'express';
import { createServiceApp, healthRouter, requireIdentity, standardChecks, type Runtime } from '@relay/shared';
import type { MovementDeps } from './domain/money-movement';
import { walletRoutes } from './routes/wallet-routes';

export function createWalletApp(rt: Runtime, deps: MovementDeps, countResults?: RequestHandler): Express {
  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt), rt.metrics, rt.isStopping),
    routes: (app) => {
      if (countResults) app.use(countResults);
      app.use(requireIdentity(rt.verifier, ['provider']));
      app.use(walletRoutes(deps));
    },
  });
}
