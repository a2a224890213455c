import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * docker-compose.yml fit for a host: valid against the compose-spec JSON schema (dclint, which
 * bundles it; no Docker engine runs here), every container with rotated logs and CPU and memory
 * limits, the heap under the limit, and every database pool inside PostgreSQL's max_connections
 * at the documented scale.
 */

const ROOT = path.resolve(__dirname, '../..');
const FILE = path.join(ROOT, 'docker-compose.yml');
type Doc = Record<string, any>;
const compose = parse(readFileSync(FILE, 'utf8'), { merge: true }) as Doc;
const services = compose.services as Record<string, Doc>;
const RELAY = ['launcher', 'wallet', 'reporting', 'notifier', 'notifier-worker', 'admin', 'gateway'];
/** The scale the file's header documents (`--scale notifier-worker=4`); everything else runs once. */
const MAX_SCALE: Record<string, number> = { 'notifier-worker': 4 };

function dclint(file: string): { status: number | null; messages: { rule: string; type: string; message: string }[] } {
  const out = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/dclint/bin/dclint.cjs'), file, '-f', 'json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const report = JSON.parse(out.stdout || '[]') as { messages: { rule: string; type: string; message: string }[] }[];
  return { status: out.status, messages: report.flatMap((r) => r.messages) };
}

function megabytes(value: string): number {
  const m = /^(\d+(?:\.\d+)?)([MG])$/.exec(value);
  if (!m) throw new Error(`not a memory size: ${value}`);
  return Number(m[1]) * (m[2] === 'G' ? 1024 : 1);
}

describe('docker compose on a host', () => {
  it('When dclint reads the compose file, then it matches the compose-spec schema and breaks no rule', () => {
    const { status, messages } = dclint(FILE);
    expect(messages).toEqual([]);
    expect(status).toBe(0);
  });

  it('When the compose file has a key the compose-spec does not know, then the schema check refuses it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-compose-'));
    const broken = path.join(dir, 'docker-compose.yml');
    writeFileSync(broken, readFileSync(FILE, 'utf8').replace('  redis:\n    image:', '  redis:\n    mem_limitt: 1g\n    image:'));
    const { status, messages } = dclint(broken);
    expect(status).not.toBe(0);
    expect(messages.map((m) => m.rule)).toContain('invalid-schema');
  });

  it.each(Object.keys(services))('When %s runs, then its logs rotate and its CPU and memory are limited', (name) => {
    const s = services[name];
    expect(s.logging).toEqual({ driver: 'json-file', options: { 'max-size': '10m', 'max-file': '5' } });
    expect(Number(s.deploy.resources.limits.cpus)).toBeGreaterThan(0);
    expect(megabytes(s.deploy.resources.limits.memory)).toBeGreaterThan(0);
  });

  it.each(RELAY)('When %s runs, then its heap cap is under its memory limit', (name) => {
    const s = services[name];
    const heap = Number(/--max-old-space-size=(\d+)/.exec(s.environment.NODE_OPTIONS ?? '')?.[1]);
    expect(heap).toBeGreaterThan(0);
    expect(heap).toBeLessThan(megabytes(s.deploy.resources.limits.memory) * 0.8);
  });

  it('When every relay process opens its whole pool at the documented scale, then the primary and the replica stay inside max_connections', () => {
    const maxConnections = Number(/max_connections=(\d+)/.exec(services['postgres-primary'].command.join(' '))?.[1]);
    expect(maxConnections).toBeGreaterThan(100);
    const totals = { primary: 0, replica: 0 };
    for (const name of RELAY) {
      const pool = Number(services[name].environment.DATABASE_POOL_MAX);
      expect({ name, pool }).toEqual({ name, pool: expect.any(Number) });
      expect(pool).toBeGreaterThan(0);
      totals[name === 'reporting' ? 'replica' : 'primary'] += pool * (MAX_SCALE[name] ?? services[name].deploy.replicas ?? 1);
    }
    // migrate (2), one exporter connection pool (3), superuser_reserved_connections (3).
    const overhead = 2 + 3 + 3;
    expect(totals.primary + overhead).toBeLessThanOrEqual(maxConnections);
    expect(totals.replica + overhead).toBeLessThanOrEqual(maxConnections);
    expect(readFileSync(FILE, 'utf8')).toContain(`= ${totals.primary + overhead}.`);
  });

  it('When the replica first starts, then its health check gives it time to clone the primary', () => {
    expect(parseInt(services['postgres-replica'].healthcheck.start_period, 10)).toBeGreaterThanOrEqual(60);
  });

  it('When Prometheus and Grafana run, then they load the repository\'s rules, exporters and dashboards', () => {
    expect(services.prometheus.volumes).toEqual(expect.arrayContaining(['./ops/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro', './ops/prometheus/rules.yml:/etc/prometheus/rules.yml:ro']));
    expect(services.prometheus.secrets).toEqual(['admin_token']);
    expect(compose.secrets.admin_token).toEqual({ environment: 'ADMIN_TOKEN' });
    expect(services.grafana.volumes).toEqual(expect.arrayContaining(['./ops/grafana/provisioning:/etc/grafana/provisioning:ro', './ops/grafana/dashboards:/etc/grafana/dashboards/relay:ro']));
    const provider = parse(readFileSync(path.join(ROOT, 'ops/grafana/provisioning/dashboards/relay.yml'), 'utf8'));
    expect(provider.providers[0].options.path).toBe('/etc/grafana/dashboards/relay');
    const scrape = parse(readFileSync(path.join(ROOT, 'ops/prometheus/prometheus.yml'), 'utf8'));
    const jobs = scrape.scrape_configs.map((c: Doc) => c.job_name);
    expect(jobs).toEqual(expect.arrayContaining([...RELAY.map((n) => `relay-${n}`), 'postgres', 'redis']));
    for (const exporter of ['postgres-exporter', 'postgres-replica-exporter']) {
      expect(services[exporter].volumes).toEqual(['./ops/postgres-exporter/queries.yaml:/etc/postgres-exporter/queries.yaml:ro']);
    }
    // The image versions the dashboard test scrapes (Debian 12's packages).
    expect(services['postgres-exporter'].image).toMatch(/:v0\.11\.1$/);
    expect(services['redis-exporter'].image).toMatch(/:v1\.45\.0$/);
  });
});
