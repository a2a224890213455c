import { Router } from 'express';
import type { ServiceMetrics } from './metrics';

export type ReadinessCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 1500;

function withTimeout(check: ReadinessCheck): Promise<'ok' | 'down'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('down'), CHECK_TIMEOUT_MS);
    check().then(
      () => { clearTimeout(timer); resolve('ok'); },
      () => { clearTimeout(timer); resolve('down'); },
    );
  });
}

/** docs/operating-the-platform.md: /healthz, /readyz naming every dependency, /metrics in Prometheus text. */
export function healthRouter(checks: Record<string, ReadinessCheck>, metrics: ServiceMetrics, isStopping: () => boolean = () => false): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((n) => withTimeout(checks[n])));
    const report = Object.fromEntries(names.map((n, i) => [n, results[i]]));
    const ready = !isStopping() && results.every((r) => r === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: report });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
