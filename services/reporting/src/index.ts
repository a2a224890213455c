import { healthRouter, listen, type RunningServer, type Runtime } from '@relay/shared';
import { createReportingApp } from './app';

export { createReportingApp } from './app';

/** Starts the reporting service. It is handed rt.db.read alone: nothing here can touch the primary. */
export async function startReporting(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  const read = rt.db.read;
  const app = createReportingApp({
    read,
    verifier: rt.verifier,
    logger: rt.logger,
    metrics: rt.metrics,
    // Readiness is what reporting depends on: the read database, nothing else.
    health: healthRouter({ postgres_read: async () => { await read.raw('select 1'); } }, rt.metrics, rt.isStopping),
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
