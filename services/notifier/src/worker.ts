import { closeRuntime, createLogger, createRuntime, loadConfig, markStopping, runMain, startTelemetry, type RunningServer, type Runtime } from '@relay/shared';
import { startWorkerMonitor } from './worker-monitor';
import { startNotifierWorker } from './worker-start';
import { loadWorkerMonitorPort, loadWorkerSettings } from './worker/settings';

/**
 * Process entry of the notifier worker (`node services/notifier/dist/worker.js`, started by the
 * platform supervisor next to the notifier API). Shutdown: finish in-flight deliveries, then
 * close Redis and the pools.
 */
const config = loadConfig(process.env, { process: 'notifier-worker' });
const settings = loadWorkerSettings();
const monitorPort = loadWorkerMonitorPort();
const logger = createLogger({ service: 'notifier-worker', level: config.LOG_LEVEL });

void runMain(logger, config.SHUTDOWN_TIMEOUT_MS, async (shutdown) => {
  const telemetry = await startTelemetry('relay-notifier-worker', { logger });
  const rt = await createRuntime('notifier', config, { logger, defaultMetrics: true, metricsService: 'notifier-worker' });
  const worker = await startNotifierWorker(rt, settings);
  const monitor = monitorPort === null ? null : await startMonitor(rt, monitorPort);
  shutdown.register('finish in-flight deliveries and close the worker', async () => {
    markStopping(rt);
    await worker.close();
  });
  if (monitor) shutdown.register('close the health and metrics port', () => monitor.close(2000));
  shutdown.register('close redis and database pools', () => closeRuntime(rt));
  shutdown.register('export buffered spans', () => telemetry.shutdown());
  logger.info({ concurrency: config.NOTIFIER_WORKER_CONCURRENCY, monitorPort: monitor?.port ?? null, ...settings }, 'notifier worker started');
});

/**
 * In a pod the port is always free. On one host running several workers (the benchmarks, crash
 * tests) only the first gets it; the others deliver all the same, without /metrics.
 */
async function startMonitor(rt: Runtime, port: number): Promise<RunningServer | null> {
  try {
    return await startWorkerMonitor(rt, port);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    logger.warn({ port }, 'NOTIFIER_WORKER_PORT is in use: this worker runs without its health and metrics port');
    return null;
  }
}
