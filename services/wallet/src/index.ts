import { createCasinoClient, currentContext, listen, sharePoolByTenant, Registry, SessionStore, type Runtime, type RunningServer } from '@relay/shared';
import { createWalletApp } from './app';
import { moneyCallMetrics } from './routes/money-call-metrics';
import { registerAbandonedMetrics } from './domain/abandoned-metrics';
import type { MovementDeps } from './domain/money-movement';

export async function startWallet(rt: Runtime, port: number): Promise<{ server: RunningServer; close: () => Promise<void> }> {
  // One game provider holds at most its share of the pool; the others always find connections.
  const share = Math.max(1, Math.floor(rt.config.DATABASE_POOL_MAX * rt.config.DATABASE_POOL_TENANT_SHARE));
  sharePoolByTenant(rt.db.primary, share, () => currentContext()?.groupId);
  const results = moneyCallMetrics(rt.metrics);
  const casinos = createCasinoClient(rt, results.knowCasinos);
  const transactions = rt.metrics.counter('relay_transactions_total', 'Money transactions written as SUCCESS or FAILED, by category', ['category', 'status']);
  for (const category of ['CASH_OUT', 'CASH_IN']) for (const status of ['SUCCESS', 'FAILED']) transactions.inc({ category, status }, 0);
  const deps: MovementDeps = {
    db: rt.db.primary,
    sessions: new SessionStore(rt.db.primary, rt.redis, rt.config.REDIS_KEY_PREFIX, rt.config.SESSION_ARCHIVE_DAYS),
    registry: new Registry(rt.db.primary, rt.secrets, rt.bus),
    secrets: rt.secrets,
    casinos,
    logger: rt.logger,
    inFlightSeconds: rt.config.IN_FLIGHT_WINDOW_SECONDS,
    transactions,
  };
  registerAbandonedMetrics(rt.metrics, rt.db.primary, rt.logger, rt.config.IN_FLIGHT_WINDOW_SECONDS);
  const server = await listen(createWalletApp(rt, deps, results.count), port, rt.config.SERVICE_HOST);
  return { server, close: () => casinos.close() };
}

// The money statements, for the benchmark's bare stand-in and pgbench floor, which replay the wallet's I/O alone.
export { claimOrFindStatement, type MovementRecord, type SuccessFacts } from './data/transactions';
export { debitSuccessStatement, settleStatement } from './data/rounds';

// The request schemas and routes, from which the API reference (tools/openapi) is generated.
export { balanceQuery, cashInBody, cashOutBody, validateSessionQuery } from './routes/schemas';
export { walletRoutes } from './routes/wallet-routes';
export { CASH_IN_REASONS, SETTLES_A_BET } from './domain/cash-in-reasons';
