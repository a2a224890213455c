import { Router, type Express } from 'express';
import { ServiceMetrics, type Runtime } from '@relay/shared';
import { createAdminApp } from '../../../services/admin/src/app';
import { createBackofficeApp } from '../../../services/backoffice/src/app';
import { createLauncherApp } from '../../../services/launcher/src/app';
import { createNotifierApp } from '../../../services/notifier/src/app';
import { createReportingApp } from '../../../services/reporting/src/app';
import { createWalletApp } from '../../../services/wallet/src/app';

/**
 * The routes each service really serves, read from the express apps the services build (the same
 * factories their start functions use), as `METHOD /path/{param}`. Health, readiness and metrics
 * are left out, and so are the web console's files (the back office serves them under /console/):
 * they are not part of the reference.
 */
type Layer = { rawPath?: string; route?: { path: string; methods: Record<string, boolean> }; name?: string; handle?: { stack?: Layer[] } };

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export function servedRoutes(runtimes: Partial<Record<string, Runtime>>): Record<string, string[]> {
  const need = (name: string): Runtime => {
    const rt = runtimes[name];
    if (!rt) throw new Error(`the platform runs no ${name}`);
    return rt;
  };
  // The route factories keep their dependencies for request time: none is touched while routes are declared.
  const unused = {} as never;
  const reporting = need('reporting');
  const apps: Record<string, Express> = {
    launcher: createLauncherApp(need('launcher'), unused),
    wallet: createWalletApp(need('wallet'), unused),
    notifier: createNotifierApp(need('notifier'), unused, {}),
    reporting: createReportingApp({ read: reporting.db.reporting, verifier: reporting.verifier, logger: reporting.logger, metrics: reporting.metrics, health: Router() }),
    admin: createAdminApp(need('admin')),
    // Its own metrics: the running back office registered its gauges and counters on the runtime's registry already.
    backoffice: createBackofficeApp({ ...need('backoffice'), metrics: new ServiceMetrics('backoffice') }),
  };
  return Object.fromEntries(Object.entries(apps).map(([name, app]) => [name, routesOf((app as unknown as { router: { stack: Layer[] } }).router.stack, '')]));
}

function routesOf(stack: Layer[], prefix: string): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}');
      if (PROBES.has(path) || path.startsWith('/console')) return [];
      return Object.keys(layer.route.methods).filter((m) => m !== '_all').map((m) => `${m.toUpperCase()} ${path}`);
    }
    if (layer.handle?.stack) return routesOf(layer.handle.stack, `${prefix}${layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : ''}`);
    return [];
  });
}
