import { Router } from 'express';
import type { Runtime } from '@relay/shared';
import type { BackofficeDeps } from '../domain/deps';
import { registerReconciliationGauge } from '../domain/reconciliation-metrics';
import { moneySearchRoutes } from './money-search';
import { reconciliationRoutes } from './money-reconciliation';
import { winRoutes } from './money-wins';
import { reportRoutes } from './money-reports';
import { walletHealthRoutes } from './money-health';

/** The money views of the back office (search, stories, reconciliation, flagged wins, reports), mounted by app.ts in one line. */
export function moneyRoutes(deps: BackofficeDeps, rt: Runtime): Router {
  registerReconciliationGauge(rt, deps, deps.logger);
  return Router().use(moneySearchRoutes(deps), reconciliationRoutes(deps), winRoutes(deps), reportRoutes(deps), walletHealthRoutes(deps));
}
