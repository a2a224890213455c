import { closeRuntime, createLogger, createRuntime, loadConfig, markStopping, runMain } from '@relay/shared';
import { startNotifierWorker } from './worker-start';
import { loadWorkerSettings } from './worker/settings';

/**
 * Process entry of the notifier worker (`node services/notifier/dist/worker.js`, started by the
 * platform supervisor next to the notifier API). Shutdown: finish in-flight deliveries, then
 * close Redis and the pools.
 */
const config = loadConfig();
const settings = loadWorkerSettings();
const logger = createLogger({ service: 'notifier-worker', level: config.LOG_LEVEL });

void runMain(logger, config.SHUTDOWN_TIMEOUT_MS, async (shutdown) => {
  const rt = await createRuntime('notifier', config, { logger, defaultMetrics: true });
  const worker = await startNotifierWorker(rt, settings);
  shutdown.register('finish in-flight deliveries and close the worker', async () => {
    markStopping(rt);
    await worker.close();
  });
  shutdown.register('close redis and database pools', () => closeRuntime(rt));
  logger.info({ concurrency: config.NOTIFIER_WORKER_CONCURRENCY, ...settings }, 'notifier worker started');
});
