import type { Express } from 'express';
import { createServiceApp, healthRouter, requireIdentity, standardChecks, type Runtime } from '@relay/shared';
import type { LaunchDeps } from './domain/launch';
import { launchRoutes } from './routes/launch';

export function createLauncherApp(rt: Runtime, deps: LaunchDeps): Express {
  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt), rt.metrics, rt.isStopping),
    routes: (app) => {
      app.use(requireIdentity(rt.verifier, ['public']));
      app.use(launchRoutes(deps));
    },
  });
}
