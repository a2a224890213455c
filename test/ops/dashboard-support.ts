import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';

/**
 * Helpers of the dashboard test: the PromQL of a dashboard, each query checked by promtool (as a
 * recording rule, the one way promtool parses an expression), the metric names a query reads,
 * and the Prometheus exporters of docker-compose.yml run for real against the local servers.
 */

export interface DashboardQuery {
  dashboard: string;
  panel: string;
  expr: string;
}

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

export function dashboardQueries(file: string, json: { panels: Panel[]; templating?: { list: { query?: unknown }[] } }): DashboardQuery[] {
  const walk = (panels: Panel[]): DashboardQuery[] =>
    panels.flatMap((p) => [...(p.targets ?? []).map((t) => ({ dashboard: file, panel: p.title, expr: t.expr })), ...walk(p.panels ?? [])]);
  return walk(json.panels);
}

/** Grafana's variables replaced by values Prometheus accepts. */
export function concrete(expr: string): string {
  return expr
    .replace(/\$__rate_interval|\$__interval|\$__range/g, '5m')
    .replace(/\$\{?(\w+)\}?/g, 'x');
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric (or recorded series) names an expression reads. */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values and strings
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // range and subquery durations
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' '); // label lists
  const names = new Set<string>();
  for (const m of stripped.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (m[2]) continue; // a function call
    if (KEYWORDS.has(m[1].toLowerCase())) continue;
    const before = stripped.slice(0, m.index);
    if (/[0-9.]$/.test(before)) continue; // the unit of a number or duration (5m, 1e3)
    names.add(m[1]);
  }
  return [...names];
}

/** `promtool check rules` over every query, each as a recording rule. */
export function checkWithPromtool(queries: DashboardQuery[]): { status: number | null; output: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-dashboards-'));
  const file = path.join(dir, 'queries.yml');
  const rules = queries.map((q, i) => ({ record: `dashboard:query_${i}`, expr: concrete(q.expr) }));
  writeFileSync(file, stringify({ groups: [{ name: 'dashboards', rules }] }));
  const out = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8', timeout: 60_000 });
  return { status: out.status, output: out.stdout + out.stderr };
}

export function installed(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).status === 0;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Exporter {
  url: string;
  stop(): void;
}

/** Starts an exporter on a free loopback port and waits (bounded) until it answers /metrics. */
export async function startExporter(command: string, args: (port: number) => string[], env: Record<string, string> = {}): Promise<Exporter> {
  const port = await freePort();
  const child: ChildProcess = spawn(command, args(port), { env: { ...process.env, ...env }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/metrics`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`${command} did not answer on ${url}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => child.kill() };
}

/**
 * Series names of a Prometheus text exposition: every sample, and every declared family (a gauge
 * reset at each scrape, such as the abandoned-transaction count, has no sample while it is zero).
 */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
    const declared = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/.exec(line);
    if (!declared) continue;
    const [, name, type] = declared;
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}
