import { Router } from 'express';
import { FreshnessProbe, registerLagMetric, reportingFreshness, type Runtime } from '@relay/shared';
import type { BackofficeDeps } from '../domain/deps';
import { registerReconciliationGauge } from '../domain/reconciliation-metrics';
import { moneySearchRoutes } from './money-search';
import { reconciliationRoutes } from './money-reconciliation';
import { winRoutes } from './money-wins';
import { reportRoutes } from './money-reports';
import { walletHealthRoutes } from './money-health';

/**
 * The money views of the back office (search, stories, reconciliation, flagged wins, reports), mounted
 * by app.ts in one line. They read the reporting database: every answer says how fresh it is, and
 * past REPORTING_MAX_LAG_SECONDS they answer 503 with Retry-After (docs/reporting-database.md).
 */
export function moneyRoutes(deps: BackofficeDeps, rt: Runtime): Router {
  registerReconciliationGauge(rt, deps, deps.logger);
  const probe = new FreshnessProbe(deps.reporting, rt.config.REPORTING_MAX_LAG_SECONDS);
  registerLagMetric(rt.metrics, probe);
  const fresh = reportingFreshness(probe, rt.config.REPORTING_MAX_LAG_SECONDS);
  return Router()
    // The flag thresholds are configuration of the money database, read and written there.
    .use(/^\/money(?!\/flag-thresholds)/, fresh)
    .use(moneySearchRoutes(deps), reconciliationRoutes(deps), winRoutes(deps), reportRoutes(deps), walletHealthRoutes(deps));
}
