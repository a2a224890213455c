import type { Express } from 'express';
import { createServiceApp, healthRouter, requireIdentity, standardChecks, type ReadinessCheck, type Runtime } from '@relay/shared';
import type { RoundEndedDeps } from './domain/round-ended';
import { roundEndedRoutes } from './routes/round-ended-route';

export function createNotifierApp(rt: Runtime, deps: RoundEndedDeps, queueChecks: Record<string, ReadinessCheck>): Express {
  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter({ ...standardChecks(rt), ...queueChecks }, rt.metrics, rt.isStopping),
    routes: (app) => {
      app.use(requireIdentity(rt.verifier, ['provider']));
      app.use(roundEndedRoutes(deps));
    },
  });
}
