import { Router, type Request } from 'express';
import type { ServiceMetrics } from './metrics';

export type ReadinessCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 1500;
/** How long one round of readiness checks answers every /readyz (well under a probe's period). */
const READINESS_REUSE_MS = 1000;

function withTimeout(check: ReadinessCheck): Promise<'ok' | 'down'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('down'), CHECK_TIMEOUT_MS);
    check().then(
      () => { clearTimeout(timer); resolve('ok'); },
      () => { clearTimeout(timer); resolve('down'); },
    );
  });
}

export interface HealthOptions {
  /** Shown in /readyz for information; their failure does not make the process unready. */
  informational?: Record<string, ReadinessCheck>;
  /** Throws (an AppError) when the caller may not read /metrics; none: open, as on internal ports. */
  authorizeMetrics?: (req: Request) => void;
}

/** docs/operating-the-platform.md: /healthz, /readyz naming every dependency, /metrics in Prometheus text. */
export function healthRouter(
  checks: Record<string, ReadinessCheck>,
  metrics: ServiceMetrics,
  isStopping: () => boolean = () => false,
  options: HealthOptions = {},
): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const all = { ...options.informational, ...checks };
  const names = Object.keys(all);
  // Callers within READINESS_REUSE_MS share one round of checks: /readyz is unauthenticated (on
  // the gateway, public), and each round costs every dependency a query and, on the gateway, every
  // service a /readyz of its own; a flood of probes must not become a flood of those.
  let round: { at: number; results: Promise<('ok' | 'down')[]> } | null = null;
  const checked = () => {
    if (!round || Date.now() - round.at >= READINESS_REUSE_MS) round = { at: Date.now(), results: Promise.all(names.map((n) => withTimeout(all[n]))) };
    return round.results;
  };
  router.get('/readyz', async (_req, res) => {
    const results = await checked();
    const report = Object.fromEntries(names.map((n, i) => [n, results[i]]));
    const ready = !isStopping() && names.every((n, i) => results[i] === 'ok' || !(n in checks));
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: report });
  });
  router.get('/metrics', async (req, res) => {
    options.authorizeMetrics?.(req);
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
