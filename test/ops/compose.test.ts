import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { publisherConnection } from '../../libs/shared/src/replication';

/**
 * docker-compose.yml fit for a host: valid against the compose-spec JSON schema (dclint, which
 * bundles it; no Docker engine runs here), every container with rotated logs and CPU and memory
 * limits, the heap under the limit, every database pool inside its server's max_connections at the
 * documented scale, and the two databases set up as production runs them: the money database's
 * server able to publish (wal_level=logical, slots, a cap on the WAL a slot keeps) and the
 * reporting database on a server of its own that reaches it.
 */

const ROOT = path.resolve(__dirname, '../..');
const FILE = path.join(ROOT, 'docker-compose.yml');
type Doc = Record<string, any>;
const compose = parse(readFileSync(FILE, 'utf8'), { merge: true }) as Doc;
const services = compose.services as Record<string, Doc>;
const RELAY = ['launcher', 'wallet', 'reporting', 'notifier', 'notifier-worker', 'admin', 'backoffice', 'gateway'];
/** The processes that read the reporting database; reporting reads nothing else. */
const READS_REPORTING = ['reporting', 'backoffice', 'admin'];
/** The scale the file's header documents (`--scale notifier-worker=4`); everything else runs once. */
const MAX_SCALE: Record<string, number> = { 'notifier-worker': 4 };

function dclint(file: string): { status: number | null; messages: { rule: string; type: string; message: string }[] } {
  const out = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/dclint/bin/dclint.cjs'), file, '-f', 'json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const report = JSON.parse(out.stdout || '[]') as { messages: { rule: string; type: string; message: string }[] }[];
  return { status: out.status, messages: report.flatMap((r) => r.messages) };
}

/** The `-c name=value` settings of a PostgreSQL service's command line. */
function settings(name: string): Record<string, string> {
  const command = services[name].command as string[];
  expect(command[0]).toBe('postgres');
  const out: Record<string, string> = {};
  command.forEach((arg, i) => {
    if (command[i - 1] !== '-c') return;
    const [key, ...value] = arg.split('=');
    out[key] = value.join('=');
  });
  return out;
}

/** A compose value with its `${VAR...}` interpolations replaced, as compose would hand it over. */
const interpolated = (value: string) => value.replace(/\$\{[^}]*\}/g, 'secret');

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

  it('When every relay process opens its whole pool at the documented scale, then the money server and the reporting server stay inside max_connections', () => {
    const totals = { 'postgres-primary': 0, 'postgres-reporting': 0 };
    for (const name of RELAY) {
      const pool = Number(services[name].environment.DATABASE_POOL_MAX);
      expect({ name, pool }).toEqual({ name, pool: expect.any(Number) });
      expect(pool).toBeGreaterThan(0);
      const pools = pool * (MAX_SCALE[name] ?? services[name].deploy.replicas ?? 1);
      // A pool on each database the process uses: reporting the reporting database's alone, the
      // back office and admin both, every other process the money database's.
      if (name !== 'reporting') totals['postgres-primary'] += pools;
      if (READS_REPORTING.includes(name)) totals['postgres-reporting'] += pools;
    }
    // On each server: migrate (2), one exporter connection pool (3), superuser_reserved_connections (3).
    const overhead = 2 + 3 + 3;
    for (const [server, total] of Object.entries(totals)) {
      const maxConnections = Number(settings(server).max_connections);
      expect({ server, maxConnections }).toEqual({ server, maxConnections: expect.any(Number) });
      expect(total + overhead).toBeLessThanOrEqual(maxConnections);
      expect(readFileSync(FILE, 'utf8')).toContain(`= ${total + overhead}.`);
    }
    expect(Number(settings('postgres-primary').max_connections)).toBeGreaterThan(100);
  });

  it('When the money database\'s server starts, then it can publish to the reporting database: logical WAL, slots and senders for the subscription, and a cap on the WAL a slot keeps', () => {
    const primary = settings('postgres-primary');
    expect(primary.wal_level).toBe('logical');
    // The subscription's slot, plus room for a physical standby and a rebuilt reporting database's new slot.
    expect(Number(primary.max_replication_slots)).toBeGreaterThanOrEqual(4);
    expect(Number(primary.max_wal_senders)).toBeGreaterThanOrEqual(Number(primary.max_replication_slots));
    // A slot nobody reads is invalidated (wal_status lost) rather than fill the disk: ReportingSlotRetainingWal warns at 1 GiB.
    expect(primary.max_slot_wal_keep_size).toBe('2GB');
  });

  it('When the reporting database runs, then it is on a server of its own, and that server reaches the money database the way its subscription is told to', () => {
    expect(services['postgres-reporting'].image).toBe(services['postgres-primary'].image);
    expect(services['postgres-reporting'].volumes).toEqual(['postgres-reporting:/var/lib/postgresql/data']);
    expect(services['postgres-reporting'].healthcheck.test).toEqual(['CMD', 'pg_isready', '-U', 'postgres', '-d', 'relay_reporting']);
    expect(Number(settings('postgres-reporting').max_logical_replication_workers)).toBeGreaterThanOrEqual(2);
    // The subscription's connection string is derived from DATABASE_URL (publisherConnection):
    // its host must be a compose service on a network the reporting server is on.
    const migrate = services.migrate.environment as Record<string, string>;
    const host = /host='([^']+)'/.exec(publisherConnection(interpolated(migrate.DATABASE_URL)))?.[1];
    expect(host).toBe('postgres-primary');
    const shared = (services[host!].networks as string[]).filter((n) => (services['postgres-reporting'].networks as string[]).includes(n));
    expect(shared).toEqual(['internal']);
    expect(new URL(interpolated(migrate.REPORTING_DATABASE_URL)).host).toBe('postgres-reporting:5432');
    for (const name of READS_REPORTING) expect({ name, url: services[name].environment.REPORTING_DATABASE_URL }).toEqual({ name, url: migrate.REPORTING_DATABASE_URL });
  });

  it('When Prometheus and Grafana run, then they load the repository\'s rules, exporters and dashboards', () => {
    expect(services.prometheus.volumes).toEqual(expect.arrayContaining(['./ops/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro', './ops/prometheus/rules.yml:/etc/prometheus/rules.yml:ro']));
    expect(services.prometheus.secrets).toEqual(['metrics_token']);
    expect(compose.secrets.metrics_token).toEqual({ environment: 'METRICS_TOKEN' });
    expect(services.grafana.volumes).toEqual(expect.arrayContaining(['./ops/grafana/provisioning:/etc/grafana/provisioning:ro', './ops/grafana/dashboards:/etc/grafana/dashboards/relay:ro']));
    const provider = parse(readFileSync(path.join(ROOT, 'ops/grafana/provisioning/dashboards/relay.yml'), 'utf8'));
    expect(provider.providers[0].options.path).toBe('/etc/grafana/dashboards/relay');
    const scrape = parse(readFileSync(path.join(ROOT, 'ops/prometheus/prometheus.yml'), 'utf8'));
    const jobs = scrape.scrape_configs.map((c: Doc) => c.job_name);
    expect(jobs).toEqual(expect.arrayContaining([...RELAY.map((n) => `relay-${n}`), 'postgres', 'redis']));
    const targets = scrape.scrape_configs.find((c: Doc) => c.job_name === 'postgres').static_configs.flatMap((c: Doc) => c.targets);
    expect(targets).toEqual(['postgres-exporter:9187', 'postgres-reporting-exporter:9187']);
    for (const [exporter, server] of [['postgres-exporter', 'postgres-primary'], ['postgres-reporting-exporter', 'postgres-reporting']]) {
      expect(services[exporter].volumes).toEqual(['./ops/postgres-exporter/queries.yaml:/etc/postgres-exporter/queries.yaml:ro']);
      expect(services[exporter].environment.DATA_SOURCE_NAME).toContain(`@${server}:5432/`);
    }
    // The image versions the dashboard test scrapes (Debian 12's packages).
    expect(services['postgres-exporter'].image).toMatch(/:v0\.11\.1$/);
    expect(services['redis-exporter'].image).toMatch(/:v1\.45\.0$/);
  });
});
