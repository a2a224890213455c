import { registerPartitionMetrics } from '@relay/ledger/jobs';
import { listen, registerSlotMetrics, type Runtime, type RunningServer } from '@relay/shared';
import { createAdminApp } from './app';

export { createAdminApp } from './app';

export async function startAdmin(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  // The partition gauges are read at each scrape, so every admin process shows them, whether or
  // not it runs the ledger's jobs (main.ts does; a test platform does not).
  registerPartitionMetrics(rt.metrics, (sql) => rt.db.primary.raw(sql));
  registerSlotMetrics(rt.metrics, (sql) => rt.db.primary.raw(sql));
  return { server: await listen(createAdminApp(rt), port, rt.config.SERVICE_HOST) };
}


// The request schemas and routes, from which the API reference (tools/openapi) is generated.
export { casinoBody, casinoPath, casinoRoutes, freeRoundsModeBody } from './routes/casinos';
export { configBody, currencyBody, casinoGamePath, currencyPath, casinoGameRoutes } from './routes/casinoGames';
export { groupBody, keyBody, groupPath, tokenPath, gameProviderRoutes } from './routes/gameProviders';
export { gameBody, templateBody, gameList, gamePath, gameRoutes } from './routes/games';
export { pagination } from './routes/validation';
