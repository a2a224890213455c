import { createServiceApp, healthRouter, listen, standardChecks, type Runtime, type RunningServer } from '@relay/shared';

/**
 * The worker's only port (NOTIFIER_WORKER_PORT, default 8086): /healthz, /readyz and /metrics
 * (jobs by outcome, job duration, queue wait, casino calls), so probes and Prometheus reach
 * the worker like any service. It serves nothing else: every other path is 404.
 */
export async function startWorkerMonitor(rt: Runtime, port: number): Promise<RunningServer> {
  const app = createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt), rt.metrics, rt.isStopping),
    routes: () => undefined,
  });
  return listen(app, port, rt.config.SERVICE_HOST);
}
