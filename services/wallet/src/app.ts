import type { Express } from 'express';
import { createServiceApp, healthRouter, requireIdentity, standardChecks, type Runtime } from '@relay/shared';
import type { MovementDeps } from './domain/money-movement';
import { countMoneyCalls } from './routes/money-call-metrics';
import { walletRoutes } from './routes/wallet-routes';

export function createWalletApp(rt: Runtime, deps: MovementDeps): Express {
  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt), rt.metrics, rt.isStopping),
    routes: (app) => {
      app.use(requireIdentity(rt.verifier, ['provider']));
      app.use(countMoneyCalls(rt.metrics));
      app.use(walletRoutes(deps));
    },
  });
}
