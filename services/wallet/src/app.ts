import type { Express, RequestHandler } from 'express';
import { createServiceApp, healthRouter, requireIdentity, standardChecks, type Runtime } from '@relay/shared';
import type { MovementDeps } from './domain/money-movement';
import { walletRoutes } from './routes/wallet-routes';

/** `countMoneyCalls`: relay_money_calls_total and its latency (routes/money-call-metrics.ts). */
export function createWalletApp(rt: Runtime, deps: MovementDeps, countMoneyCalls?: RequestHandler): Express {
  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt), rt.metrics, rt.isStopping),
    routes: (app) => {
      app.use(requireIdentity(rt.verifier, ['provider']));
      if (countMoneyCalls) app.use(countMoneyCalls);
      app.use(walletRoutes(deps));
    },
  });
}
