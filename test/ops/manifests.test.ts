import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';

/**
 * No cluster and no Docker engine run here, so the deployment files are checked as data: every
 * Kubernetes manifest, the compose file and the Dockerfile, for the properties docs/deploying.md
 * promises (probes, resources, autoscaling, disruption budgets, security contexts, network
 * isolation, one image, non-root, production dependencies only).
 */

const ROOT = path.resolve(__dirname, '../..');
type Doc = Record<string, any>;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(entry) ? [full] : [];
  });
}

function load(file: string): Doc[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
    return d.toJS() as Doc;
  }).filter(Boolean);
}

const K8S = path.join(ROOT, 'k8s');
const BASE = path.join(K8S, 'base');
const baseDocs = readdirSync(BASE).filter((f) => f !== 'kustomization.yaml').flatMap((f) => load(path.join(BASE, f)));
const ofKind = (kind: string) => baseDocs.filter((d) => d.kind === kind);
const named = (kind: string, name: string) => ofKind(kind).find((d) => d.metadata.name === name);

const SERVICES: Record<string, number> = { gateway: 8080, launcher: 8081, wallet: 8082, reporting: 8083, notifier: 8084, admin: 8085, backoffice: 8087 };
const WORKLOADS: Record<string, number> = { ...SERVICES, 'notifier-worker': 8086 };

/** Pods a NetworkPolicy selects, among the platform's workloads. */
function selects(policy: Doc, app: string): boolean {
  const sel = policy.spec.podSelector ?? {};
  if (sel.matchLabels?.['app.kubernetes.io/name'] && sel.matchLabels['app.kubernetes.io/name'] !== app) return false;
  for (const e of sel.matchExpressions ?? []) {
    if (e.key === 'app.kubernetes.io/name' && e.operator === 'In' && !e.values.includes(app)) return false;
  }
  return true;
}

describe('kubernetes manifests', () => {
  it('When every YAML file under k8s/ is parsed, then each is valid and every kustomization names files that exist', () => {
    const files = yamlFiles(K8S);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const docs = load(file);
      for (const doc of docs) expect(doc.apiVersion && doc.kind ? file : `${file}: no apiVersion/kind`).toBe(file);
      if (path.basename(file) === 'kustomization.yaml') {
        const k = docs[0];
        for (const ref of [...(k.resources ?? []), ...(k.components ?? [])]) {
          expect(existsSync(path.join(path.dirname(file), ref)) ? ref : `${file}: missing ${ref}`).toBe(ref);
        }
      }
    }
    const listed = new Set(load(path.join(BASE, 'kustomization.yaml'))[0].resources);
    for (const f of readdirSync(BASE)) if (f !== 'kustomization.yaml') expect(listed.has(f) ? f : `not in kustomization: ${f}`).toBe(f);
  });

  it.each(Object.entries(WORKLOADS))('When %s is deployed, then it has probes, resources, the shared config and a locked-down security context', (name, port) => {
    const dep = named('Deployment', name)!;
    expect(dep).toBeDefined();
    expect(dep.spec.replicas).toBeUndefined(); // owned by its HPA
    expect(dep.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': name });
    const pod = dep.spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers).toHaveLength(1);
    const c = pod.containers[0];
    expect(c.image).toBe('game-relay');
    expect(c.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
    expect(c.command[0]).toBe('node');
    expect(c.command[1]).toBe(name === 'notifier-worker' ? 'services/notifier/dist/worker.js' : `services/${name}/dist/main.js`);
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(c.startupProbe.httpGet.path).toBe('/healthz');
    for (const kind of ['requests', 'limits']) {
      expect(c.resources[kind].cpu).toBeTruthy();
      expect(c.resources[kind].memory).toBeTruthy();
    }
    expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false, capabilities: { drop: ['ALL'] } });
    // Secrets one by one, only those the process uses (test/ops/kustomize.test.ts checks which).
    expect(c.envFrom).toEqual([{ configMapRef: { name: 'relay-config' } }]);
    // SHUTDOWN_TIMEOUT_MS plus the preStop pause fit in the grace period.
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(named('ConfigMap', 'relay-config')!.data.SHUTDOWN_TIMEOUT_MS) + 5000);
    expect(dep.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' });
    // A container that sets its own NODE_OPTIONS replaces the ConfigMap's: it must keep its heap cap.
    const nodeOptions = (c.env ?? []).find((e: { name: string }) => e.name === 'NODE_OPTIONS')?.value ?? named('ConfigMap', 'relay-config')!.data.NODE_OPTIONS;
    const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1]);
    expect(heapMiB).toBeGreaterThan(0);
    expect(heapMiB + (Number(/--max-semi-space-size=(\d+)/.exec(nodeOptions)?.[1] ?? 16) * 3)).toBeLessThan(parseInt(c.resources.limits.memory, 10) * 0.8);
  });

  it.each(Object.keys(WORKLOADS))('When %s is deployed, then an HPA scales it and a PDB limits its disruption', (name) => {
    const hpa = ofKind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === name)!;
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef.kind).toBe('Deployment');
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(hpa.spec.metrics.some((m: Doc) => m.type === 'Resource' && m.resource.name === 'cpu')).toBe(true);
    const pdb = ofKind('PodDisruptionBudget').find((p) => p.spec.selector.matchLabels['app.kubernetes.io/name'] === name)!;
    expect(pdb.spec.maxUnavailable).toBe(1);
  });

  it('When every pod opens its whole pool at every HPA maximum, then the connection totals of both databases are the ones docs/deploying.md gives', () => {
    const totals = { money: 0, reporting: 0 };
    for (const name of Object.keys(WORKLOADS)) {
      const env = named('Deployment', name)!.spec.template.spec.containers[0].env as Doc[];
      const pool = Number(env.find((e) => e.name === 'DATABASE_POOL_MAX')?.value);
      expect(pool).toBeGreaterThan(0);
      // A pod opens a pool on each database whose URL it holds: reporting the reporting database's
      // alone, the back office and admin both, every other workload the money database's.
      const names = env.map((e) => e.name);
      const max = pool * named('HorizontalPodAutoscaler', name)!.spec.maxReplicas;
      if (names.includes('DATABASE_URL')) totals.money += max;
      if (names.includes('REPORTING_DATABASE_URL')) totals.reporting += max;
      expect({ name, databases: names.filter((n) => /DATABASE.*_URL$/.test(n)).sort() }).toEqual({
        name,
        databases: name === 'reporting' ? ['REPORTING_DATABASE_URL'] : name === 'backoffice' || name === 'admin' ? ['DATABASE_URL', 'REPORTING_DATABASE_URL'] : ['DATABASE_URL'],
      });
    }
    const docs = readFileSync(path.join(ROOT, 'docs/deploying.md'), 'utf8');
    expect(docs).toContain(`that is ${totals.money} connections to the money database and ${totals.reporting} to the reporting database`);
  });

  it('When the notifier is deployed, then its workers are a Deployment and an HPA of their own, apart from the API', () => {
    expect(named('Deployment', 'notifier-worker')).not.toBe(named('Deployment', 'notifier'));
    const worker = named('Deployment', 'notifier-worker')!.spec.template.spec.containers[0];
    expect(worker.env).toEqual(expect.arrayContaining([{ name: 'NOTIFIER_WORKER_PORT', value: '8086' }]));
    expect(named('HorizontalPodAutoscaler', 'notifier-worker')!.spec.maxReplicas).toBeGreaterThan(named('HorizontalPodAutoscaler', 'notifier')!.spec.maxReplicas);
    const component = load(path.join(K8S, 'components/custom-metrics/kustomization.yaml'))[0];
    const workerPatch = component.patches.find((p: Doc) => p.target.name === 'notifier-worker');
    expect(parse(workerPatch.patch)[0].value).toMatchObject({ type: 'External', external: { metric: { name: 'relay_notifier_queue_waiting' } } });
  });

  it('When services look each other up, then they bind 0.0.0.0 and every *_URL names a Service on its port', () => {
    const config = named('ConfigMap', 'relay-config')!.data;
    expect(config.SERVICE_HOST).toBe('0.0.0.0');
    expect(config.NODE_ENV).toBe('production');
    for (const [name, port] of Object.entries(SERVICES)) {
      const svc = named('Service', name)!;
      expect(svc.spec.type).toBe('ClusterIP');
      expect(svc.spec.ports).toEqual([{ name: 'http', port, targetPort: 'http', protocol: 'TCP' }]);
      if (name !== 'gateway') expect(config[`${name.toUpperCase()}_URL`]).toBe(`http://${name}:${port}`);
    }
    // Nothing is exposed except through the ingress to the gateway.
    expect(ofKind('Service').filter((s) => s.spec.type !== 'ClusterIP')).toEqual([]);
    const ingress = load(path.join(K8S, 'overlays/production/ingress.yaml'))[0];
    const backends = ingress.spec.rules.flatMap((r: Doc) => r.http.paths.map((p: Doc) => p.backend.service.name));
    expect(new Set(backends)).toEqual(new Set(['gateway']));
  });

  it('When the schema changes, then a migration Job prepares both databases with their two URLs only, as non-root on a read-only filesystem', () => {
    const job = named('Job', 'relay-migrate')!;
    const pod = job.spec.template.spec;
    const c = pod.containers[0];
    expect(c.command).toEqual(['node', 'docker/migrate.mjs']);
    expect(c.env).toEqual([
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'relay-secrets', key: 'DATABASE_URL' } } },
      { name: 'REPORTING_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'relay-secrets', key: 'REPORTING_DATABASE_URL' } } },
    ]);
    // The script it runs prepares both (prepareDatabases: wal_level check, migrations, subscription).
    expect(readFileSync(path.join(ROOT, 'docker/migrate.mjs'), 'utf8')).toMatch(/prepareDatabases\(url, reportingUrl/);
    expect(c.envFrom).toBeUndefined();
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    expect(pod.restartPolicy).toBe('Never');
  });

  it('When network policies apply, then all traffic is denied but DNS, only the gateway is reachable from outside, and only the wallet and workers reach the internet', () => {
    const policies = ofKind('NetworkPolicy');
    const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress)!;
    expect(deny.spec.policyTypes).toEqual(['Ingress', 'Egress']);

    const openIngress = (app: string) =>
      policies.some((p) => selects(p, app) && (p.spec.ingress ?? []).some((r: Doc) => !r.from || r.from.some((f: Doc) => f.ipBlock)));
    const fromGatewayOnly = (app: string) =>
      policies
        .filter((p) => selects(p, app))
        .flatMap((p) => p.spec.ingress ?? [])
        .every((r: Doc) => r.from.every((f: Doc) => f.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'gateway' || f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring'));
    const internet = (app: string) =>
      policies.some((p) => selects(p, app) && (p.spec.egress ?? []).some((r: Doc) => (r.to ?? []).some((t: Doc) => t.ipBlock?.cidr === '0.0.0.0/0')));

    for (const app of Object.keys(WORKLOADS)) {
      expect({ app, reachableFromOutside: openIngress(app) }).toEqual({ app, reachableFromOutside: app === 'gateway' });
      if (app !== 'gateway') expect({ app, fromGatewayOnly: fromGatewayOnly(app) }).toEqual({ app, fromGatewayOnly: true });
      expect({ app, internet: internet(app) }).toEqual({ app, internet: app === 'wallet' || app === 'notifier-worker' });
    }
    // The internet rule never opens the cluster's own ranges or the cloud metadata address.
    const casinos = policies.find((p) => (p.spec.egress ?? []).some((r: Doc) => (r.to ?? []).some((t: Doc) => t.ipBlock?.cidr === '0.0.0.0/0')))!;
    expect(casinos.spec.egress[0].to[0].ipBlock.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
  });

  it('When the production overlay is used, then its namespace enforces the restricted pod security standard and sets a trace collector', () => {
    const ns = load(path.join(K8S, 'overlays/production/namespace.yaml'))[0];
    expect(ns.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const overlay = load(path.join(K8S, 'overlays/production/kustomization.yaml'))[0];
    expect(overlay.namespace).toBe(ns.metadata.name);
    expect(overlay.components).toEqual(['../../components/custom-metrics', '../../components/monitoring']);
    expect(JSON.stringify(overlay.patches)).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  (kubectl ? it : it.skip)('When kustomize renders the production overlay, then every object lands in the namespace and the image is pinned', () => {
    const out = spawnSync('kubectl', ['kustomize', path.join(K8S, 'overlays/production')], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    const docs = parseAllDocuments(out.stdout).map((d) => d.toJS() as Doc);
    for (const d of docs.filter((x) => x.kind !== 'Namespace')) expect(`${d.kind}/${d.metadata.name}:${d.metadata.namespace}`).toBe(`${d.kind}/${d.metadata.name}:relay`);
    const images = docs.filter((d) => d.kind === 'Deployment' || d.kind === 'Job').map((d) => d.spec.template.spec.containers[0].image);
    expect(new Set(images)).toEqual(new Set(['registry.example.com/game-relay:0.1.0']));
  });
});

describe('docker compose', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Doc;
  const services = compose.services as Record<string, Doc>;
  const relay = ['launcher', 'wallet', 'reporting', 'notifier', 'notifier-worker', 'admin', 'backoffice', 'gateway'];

  it('When composed, then it holds the money database\'s server and the reporting database\'s, Redis, every service, workers, the sandbox casino and a one-shot migration', () => {
    expect(Object.keys(services).sort()).toEqual([
      'admin', 'backoffice', 'casino-sandbox', 'gateway', 'grafana', 'launcher', 'migrate', 'notifier', 'notifier-worker', 'postgres-exporter', 'postgres-primary',
      'postgres-reporting', 'postgres-reporting-exporter', 'prometheus', 'redis', 'redis-exporter', 'reporting', 'wallet',
    ]);
    // Two servers, each with its own data: the reporting database is not a physical copy of the primary.
    expect(services['postgres-primary'].environment.POSTGRES_DB).toBe('relay');
    expect(services['postgres-reporting'].environment.POSTGRES_DB).toBe('relay_reporting');
    expect(services['postgres-primary'].volumes).toEqual(['postgres-primary:/var/lib/postgresql/data']);
    expect(services['postgres-reporting'].volumes).toEqual(['postgres-reporting:/var/lib/postgresql/data']);
    expect(services['postgres-reporting'].entrypoint).toBeUndefined();
    expect(services.redis.command.join(' ')).toContain('--maxmemory-policy noeviction');
    expect(services.migrate.command).toEqual(['node', 'docker/migrate.mjs']);
    // The migration reaches both servers: it migrates both databases and subscribes the reporting one.
    expect(Object.keys(services.migrate.environment)).toEqual(['DATABASE_URL', 'REPORTING_DATABASE_URL']);
    expect(services.migrate.environment.DATABASE_URL).toContain('@postgres-primary:5432/relay');
    expect(services.migrate.environment.REPORTING_DATABASE_URL).toContain('@postgres-reporting:5432/relay_reporting');
    expect(services.migrate.depends_on).toEqual({ 'postgres-primary': { condition: 'service_healthy' }, 'postgres-reporting': { condition: 'service_healthy' } });
    expect(services['notifier-worker'].command).toEqual(['node', 'services/notifier/dist/worker.js']);
    expect(services['notifier-worker'].deploy.replicas).toBeGreaterThanOrEqual(2);
    expect(services['casino-sandbox'].command).toEqual(['node', 'tools/casino-sandbox/dist/main.js']);
  });

  it.each(relay)('When %s runs in compose, then it waits for the migration, binds 0.0.0.0, runs non-root on a read-only filesystem and has a health check', (name) => {
    const s = services[name];
    expect(s.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(s.environment.SERVICE_HOST).toBe('0.0.0.0');
    expect(s.environment.NODE_ENV).toBe('production');
    expect(s.user).toBe('1000:1000');
    expect(s.read_only).toBe(true);
    expect(s.cap_drop).toEqual(['ALL']);
    expect(s.security_opt).toEqual(['no-new-privileges:true']);
    const port = WORKLOADS[name];
    expect(s.healthcheck.test).toEqual(['CMD', 'node', 'docker/healthcheck.mjs', `http://127.0.0.1:${port}/readyz`]);
    for (const [key, url] of Object.entries(s.environment as Record<string, string>)) {
      if (key.endsWith('_URL') && key !== 'DATABASE_URL' && key !== 'REPORTING_DATABASE_URL' && key !== 'REDIS_URL' && key !== 'PUBLIC_BASE_URL') {
        expect(url).toMatch(/^http:\/\/(launcher|wallet|reporting|notifier|admin):808[1-5]$|^http:\/\/backoffice:8087$/);
      }
    }
  });

  it('When composed, then secrets must be supplied, reporting, the back office and admin read the reporting server, and only the gateway (and the sandbox and Grafana on loopback) is published', () => {
    for (const key of ['ADMIN_TOKEN', 'INTERNAL_AUTH_SECRET', 'DATA_ENCRYPTION_KEY']) expect(services.wallet.environment[key]).toMatch(/^\$\{\w+:\?/);
    for (const name of relay) {
      const env = services[name].environment as Record<string, string>;
      expect({ name, retired: env.DATABASE_READ_URL }).toEqual({ name, retired: undefined });
      expect(env.DATABASE_URL).toContain('@postgres-primary:5432/relay');
      if (['reporting', 'backoffice', 'admin'].includes(name)) expect({ name, url: env.REPORTING_DATABASE_URL }).toEqual({ name, url: expect.stringContaining('@postgres-reporting:5432/relay_reporting') });
      else expect({ name, url: env.REPORTING_DATABASE_URL }).toEqual({ name, url: undefined });
    }
    expect(services.reporting.depends_on['postgres-reporting']).toEqual({ condition: 'service_healthy' });
    const published = Object.entries(services).filter(([, s]) => s.ports).map(([n, s]) => [n, s.ports]);
    expect(published).toEqual([
      ['gateway', ['${GATEWAY_PUBLISH:-8080}:8080']],
      ['casino-sandbox', ['127.0.0.1:8090:8090']],
      ['grafana', ['127.0.0.1:3000:3000']],
    ]);
  });

  it('When composed, then the internal network has no route out and only the wallet and workers join the egress network', () => {
    expect(compose.networks.internal.internal).toBe(true);
    const onEgress = Object.entries(services).filter(([, s]) => (s.networks ?? []).includes('egress')).map(([n]) => n);
    expect(onEgress.sort()).toEqual(['notifier-worker', 'wallet']);
    for (const name of ['postgres-primary', 'postgres-reporting', 'redis', 'launcher', 'reporting', 'notifier', 'admin', 'migrate']) {
      expect({ name, networks: services[name].networks }).toEqual({ name, networks: ['internal'] });
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages[stages.length - 1];

  it('When the image is built, then a build stage compiles and a runtime stage holds production dependencies and each workspace dist only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]).toMatch(/npm ci\b/);
    expect(runtime).toMatch(/npm ci --omit=dev/);
    expect(runtime).not.toMatch(/npm install|tsc|COPY \. \./);
    for (const dir of ['libs/shared', ...Object.keys(SERVICES).map((s) => `services/${s}`), 'tools/casino-sandbox']) {
      expect(runtime).toContain(`COPY --from=build /app/${dir}/dist ${dir}/dist`);
    }
  });

  it('When the container starts, then it runs as a numeric non-root user in production mode', () => {
    expect(runtime).toMatch(/^USER 1000:1000$/m);
    expect(runtime).toMatch(/^ENV NODE_ENV=production$/m);
    expect(readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')).toMatch(/^\*\*\/node_modules$/m);
  });
});
