import type { Express, Router } from 'express';
import type { Logger } from 'pino';
import { createServiceApp, reportingFreshness, requireIdentity, type FreshnessProbe, type IdentityVerifier, type Knex, type ServiceMetrics } from '@relay/shared';
import { RoundRepository } from './data/rounds';
import { TransactionRepository } from './data/transactions';
import { CasinoRepository } from './data/casinos';
import { Reports } from './domain/reports';
import { Catalog } from './domain/catalog';
import { roundsRouter } from './routes/rounds';
import { transactionsRouter } from './routes/transactions';
import { casinosRouter } from './routes/casinos';

export interface ReportingDeps {
  /** The reporting database only: reporting cannot write, nor load the money database. */
  read: Knex;
  /** How fresh the reporting database is; past maxLagSeconds every route answers 503 (absent: only where routes are listed, never served). */
  freshness?: { probe: FreshnessProbe; maxLagSeconds: number };
  verifier: IdentityVerifier;
  logger: Logger;
  metrics: ServiceMetrics;
  health: Router;
}

/** Read-only routes for game providers: rounds, transactions, casino ids and the casino catalog. */
export function createReportingApp(deps: ReportingDeps): Express {
  const reports = new Reports(new RoundRepository(deps.read), new TransactionRepository(deps.read));
  const catalog = new Catalog(new CasinoRepository(deps.read));
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    health: deps.health,
    routes: (app) => {
      app.use(requireIdentity(deps.verifier, ['provider']));
      if (deps.freshness) app.use(reportingFreshness(deps.freshness.probe, deps.freshness.maxLagSeconds));
      app.use(roundsRouter(reports));
      app.use(transactionsRouter(reports));
      app.use(casinosRouter(catalog));
    },
  });
}
