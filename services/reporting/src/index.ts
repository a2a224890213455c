import { FreshnessProbe, healthRouter, listen, registerLagMetric, type RunningServer, type Runtime } from '@relay/shared';
import { createReportingApp } from './app';

export { createReportingApp } from './app';

/**
 * Starts the reporting service. It is handed the reporting database alone (rt.db.reporting, the
 * money database's logical replica): nothing here can touch the money database.
 */
export async function startReporting(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  const read = rt.db.reporting;
  const probe = new FreshnessProbe(read, rt.config.REPORTING_MAX_LAG_SECONDS);
  registerLagMetric(rt.metrics, probe);
  const app = createReportingApp({
    read,
    freshness: { probe, maxLagSeconds: rt.config.REPORTING_MAX_LAG_SECONDS },
    verifier: rt.verifier,
    logger: rt.logger,
    metrics: rt.metrics,
    // Readiness is what reporting depends on: the reporting database, nothing else.
    health: healthRouter({ postgres_reporting: async () => { await read.raw('select 1'); } }, rt.metrics, rt.isStopping),
  });
  const server = await listen(app, port, rt.config.SERVICE_HOST);
  return { server };
}

// The request schemas and routes, from which the API reference (tools/openapi) is generated.
export { listRoundsQuery, roundPath, roundsRouter } from './routes/rounds';
export { listTransactionsQuery, transactionPath, transactionsRouter } from './routes/transactions';
export { casinoIdsQuery, catalogQuery, casinosRouter } from './routes/casinos';
// The cursor codec: the benchmark builds a cursor at a given depth without walking to it.
export { encodeCursor, FIRST_PAGE } from './domain/cursor';
