import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { closeRuntime, createRuntime, type RunningServer, type Runtime } from '@relay/shared';
import { startNotifierWorker, type NotifierWorker } from '../../services/notifier/src';
import { startWorkerMonitor } from '../../services/notifier/src/worker-monitor';
import { startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld } from '../game';
import { checkWithPromtool, dashboardQueries, exposedNames, installed, metricNames, startExporter, type DashboardQuery, type Exporter } from './dashboard-support';

/**
 * The Grafana dashboards (ops/grafana/dashboards) against what really exists: every query parses
 * as PromQL (promtool), and every metric it reads is one a running platform exposes. The platform
 * runs in this process and is scraped after real traffic; the compose exporters
 * (postgres-exporter with ops/postgres-exporter/queries.yaml, redis_exporter) run against the local
 * PostgreSQL and Redis; recorded series come from ops/prometheus/rules.yml.
 */

const ROOT = path.resolve(__dirname, '../..');
const DIR = path.join(ROOT, 'ops/grafana/dashboards');
const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
const dashboards = files.map((f) => ({ file: f, json: JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) }));
const queries: DashboardQuery[] = dashboards.flatMap((d) => dashboardQueries(d.file, d.json));
const recorded = new Set(
  (parse(readFileSync(path.join(ROOT, 'ops/prometheus/rules.yml'), 'utf8')).groups as { rules: { record?: string }[] }[])
    .flatMap((g) => g.rules)
    .flatMap((r) => (r.record ? [r.record] : [])),
);
const exportersInstalled = installed('prometheus-postgres-exporter') && installed('prometheus-redis-exporter');

let p: TestPlatform;
let world: GameWorld;
let workerRt: Runtime;
let worker: NotifierWorker;
let monitor: RunningServer;
const exporters: Exporter[] = [];
const exposed = new Set<string>(['up']); // Prometheus' own series of every target

async function scrapeInto(url: string, path = '/metrics', headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${url}${path}`, { headers });
  expect(res.status).toBe(200);
  for (const n of exposedNames(await res.text())) exposed.add(n);
}

beforeAll(async () => {
  p = await startPlatform({ notifierWorker: false });
  // The worker as worker.ts runs it: its own label and the process metrics.
  workerRt = await createRuntime('notifier', p.config, { defaultMetrics: true, metricsService: 'notifier-worker' });
  worker = await startNotifierWorker(workerRt);
  monitor = await startWorkerMonitor(workerRt, 0);
  world = await startGameWorld(p);
  const player = await world.launchPlayer({ balance: 100 });
  const money = { sessionId: player.sessionId, gameId: world.gameId, currency: player.currency };
  const roundId = uniqueId('round');
  const bet = uniqueId('bet');
  expect((await world.call('POST', '/api/balance/cash-out', { ...money, roundId, transactionId: bet, amount: 10 })).status).toBe(200);
  expect((await world.call('POST', '/api/balance/cash-in', { ...money, roundId, transactionId: uniqueId('win'), previousTransactionId: bet, amount: 20, reason: 'NORMAL_WIN', appliedMultiplier: 2 })).status).toBe(200);
  expect((await world.call('POST', '/api/round-ended', { roundId, providerIds: [world.providerId] })).status).toBe(200);
  for (const [name, rt] of Object.entries(p.services)) await scrapeInto(rt!.url, '/metrics', name === 'gateway' ? { authorization: `Bearer ${p.adminToken}` } : {});
  await scrapeInto(monitor.url);
  if (exportersInstalled) {
    const base = new URL(p.config.DATABASE_URL);
    const dsn = `postgresql://${base.username || 'postgres'}@${base.host}/postgres?sslmode=disable`;
    exporters.push(
      await startExporter('prometheus-postgres-exporter', (port) => [`--web.listen-address=127.0.0.1:${port}`, `--extend.query-path=${path.join(ROOT, 'ops/postgres-exporter/queries.yaml')}`], { DATA_SOURCE_NAME: dsn }),
      await startExporter('prometheus-redis-exporter', (port) => ['-redis.addr', p.config.REDIS_URL, '-web.listen-address', `127.0.0.1:${port}`]),
    );
    for (const e of exporters) await scrapeInto(e.url);
  }
}, 60_000);

afterAll(async () => {
  for (const e of exporters) e.stop();
  await monitor?.close(1000);
  await worker?.close();
  if (workerRt) await closeRuntime(workerRt);
  await p?.stop();
  await world?.sandbox.close();
});

describe('grafana dashboards', () => {
  it('When the dashboards are loaded, then there are the four of the runbooks, each with its own uid, a Prometheus data source variable and queries', () => {
    expect(dashboards.map((d) => d.json.uid).sort()).toEqual(['relay-datastores', 'relay-money-path', 'relay-notifier', 'relay-overview']);
    for (const { file, json } of dashboards) {
      expect(json.templating.list.find((v: { name: string }) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
      expect(dashboardQueries(file, json).length).toBeGreaterThanOrEqual(8);
      for (const panel of json.panels) expect({ panel: panel.title, ds: panel.datasource.uid }).toEqual({ panel: panel.title, ds: '${datasource}' });
    }
  });

  (installed('promtool') ? it : it.skip)('When every query is handed to promtool, then each parses as PromQL', () => {
    const { status, output } = checkWithPromtool(queries);
    expect(output).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(status).toBe(0);
  });

  it('When every query is read, then it names only series the running platform exposes or the rules record', () => {
    const unknown = queries.flatMap((q) =>
      metricNames(q.expr)
        .filter((n) => !exposed.has(n) && !recorded.has(n))
        .filter((n) => exportersInstalled || !/^(pg|redis)_/.test(n))
        .map((n) => `${q.dashboard} / ${q.panel}: ${n}`),
    );
    expect(unknown).toEqual([]);
    // The check has teeth: the names it found include series of every source.
    const read = new Set(queries.flatMap((q) => metricNames(q.expr)));
    for (const n of ['relay_money_calls_total', 'notifier_jobs_total', 'relay_db_pool_connections', 'relay:money_calls_relay_error:ratio_rate1h', 'process_resident_memory_bytes']) {
      expect(read.has(n) ? n : `no dashboard reads ${n}`).toBe(n);
    }
    if (exportersInstalled) for (const n of ['pg_replication_lag_seconds', 'redis_memory_used_bytes']) expect(exposed.has(n) ? n : `not exposed: ${n}`).toBe(n);
  });

  it('When the alerting rules are read, then they too name only exposed or recorded series, but the cluster\'s and the coming reconciliation queue\'s', () => {
    const rules = (parse(readFileSync(path.join(ROOT, 'ops/prometheus/rules.yml'), 'utf8')).groups as { rules: { alert?: string; record?: string; expr: string }[] }[]).flatMap((g) => g.rules);
    // kube-state-metrics and cert-manager run in the cluster only; relay_reconciliation_items
    // comes with the reconciliation queue (docs/runbooks/abandoned-transactions.md says so).
    const elsewhere = /^(kube_|certmanager_|relay_reconciliation_items$)/;
    const unknown = rules.flatMap((r) =>
      metricNames(r.expr)
        .filter((n) => !exposed.has(n) && !recorded.has(n) && !elsewhere.test(n))
        .filter((n) => exportersInstalled || !/^(pg|redis)_/.test(n))
        .map((n) => `${r.alert ?? r.record}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('When a query names a series nobody exports, then the name check reports it', () => {
    expect(metricNames('sum by (service) (rate(http_requests_totl{status=~"5.."}[5m])) / on (service) group_left max(relay:x:ratio)')).toEqual(['http_requests_totl', 'relay:x:ratio']);
    expect(metricNames('histogram_quantile(0.99, sum by (le) (rate(a_bucket[$__rate_interval]))) > 2.5e0')).toEqual(['a_bucket']);
  });

  it('When the Kubernetes copy is compared, then the dashboards ConfigMap holds exactly these files', () => {
    const cm = parse(readFileSync(path.join(ROOT, 'k8s/components/monitoring/grafana-dashboards.yaml'), 'utf8'));
    expect(Object.keys(cm.data).sort()).toEqual([...files].sort());
    for (const f of files) expect(cm.data[f]).toBe(readFileSync(path.join(DIR, f), 'utf8'));
  });
});
