import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { PROCESS_SECRETS, type ProcessName } from '../../libs/shared/src/config';

/**
 * The Kubernetes manifests as a cluster would receive them: `kubectl kustomize` renders the base
 * and the production overlay (with its components), and every object is validated against the
 * Kubernetes API schemas of kubernetes-models (and prometheus-operator's for ServiceMonitor and
 * PrometheusRule). Then what an operator relies on: each pod holds only the secrets it uses,
 * casino egress is HTTPS only, the migration Job runs once per release, and Prometheus scrapes
 * every workload.
 */

const ROOT = path.resolve(__dirname, '../..');
type Doc = Record<string, any>;
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

function render(dir: string): Doc[] {
  const out = spawnSync('kubectl', ['kustomize', path.join(ROOT, dir)], { encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr}`);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as Doc);
}

const OPERATOR_GROUP = 'monitoring.coreos.com/v1';

/** The kubernetes-models class of an object's apiVersion and kind, or undefined for an unknown kind. */
function modelOf(doc: Doc): (new (data: Doc) => { validate(): void }) | undefined {
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : [null, doc.apiVersion];
  const module = `kubernetes-models/${group ? `${group}/` : ''}${version}/${doc.kind}`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require(module) as Record<string, new (data: Doc) => { validate(): void }>)[doc.kind];
  } catch {
    return undefined;
  }
}

/**
 * prometheus-operator's models are ES modules only: they validate in a child Node process, which
 * reads the objects on stdin and answers one error (or null) per object.
 */
function operatorSchemaErrors(docs: Doc[]): string[] {
  if (docs.length === 0) return [];
  const script = `
    import * as models from '@kubernetes-models/prometheus-operator/${OPERATOR_GROUP}';
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    const errors = JSON.parse(text).map((d) => {
      if (!models[d.kind]) return d.kind + '/' + d.metadata?.name + ': no schema for this kind';
      try { new models[d.kind](d).validate(); return null; } catch (err) { return d.kind + '/' + d.metadata?.name + ': ' + err.message; }
    });
    process.stdout.write(JSON.stringify(errors));`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, input: JSON.stringify(docs), encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0) throw new Error(`operator schema check failed: ${out.stderr}`);
  return (JSON.parse(out.stdout) as (string | null)[]).filter((e): e is string => e !== null);
}

function schemaErrors(all: Doc[]): string[] {
  const operator = all.filter((d) => d.apiVersion === OPERATOR_GROUP);
  const docs = all.filter((d) => d.apiVersion !== OPERATOR_GROUP);
  return [...operatorSchemaErrors(operator), ...docs.flatMap((doc) => {
    const Model = modelOf(doc);
    if (!Model) return [`${doc.apiVersion} ${doc.kind}/${doc.metadata?.name}: no schema for this kind`];
    try {
      new Model(doc).validate();
      return [];
    } catch (err) {
      return [`${doc.kind}/${doc.metadata?.name}: ${(err as Error).message}`];
    }
  })];
}

const describeWithKubectl = kubectl ? describe : describe.skip;

describeWithKubectl('kustomize renderings against the Kubernetes schemas', () => {
  const base = kubectl ? render('k8s/base') : [];
  const production = kubectl ? render('k8s/overlays/production') : [];
  const of = (docs: Doc[], kind: string) => docs.filter((d) => d.kind === kind);
  const named = (docs: Doc[], kind: string, name: string) => of(docs, kind).find((d) => d.metadata.name === name);

  it.each([
    ['k8s/base', () => base],
    ['k8s/overlays/production', () => production],
  ])('When %s is rendered, then every object is valid against its API schema', (_dir, docs) => {
    expect(docs().length).toBeGreaterThan(30);
    expect(schemaErrors(docs())).toEqual([]);
  });

  it('When an object breaks its schema, then the validation says so', () => {
    const wallet = structuredClone(named(base, 'Deployment', 'wallet')!);
    wallet.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    delete wallet.spec.selector;
    const monitor = structuredClone(of(production, 'ServiceMonitor')[0]);
    monitor.spec.endpoints[0].interval = 15;
    const errors = schemaErrors([wallet, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }, monitor]);
    expect(errors).toHaveLength(3);
    expect(errors.find((e) => e.startsWith('Deployment/wallet'))).toMatch(/selector|containerPort/);
    expect(errors.find((e) => e.includes('Gadget'))).toContain('no schema for this kind');
    expect(errors.find((e) => e.startsWith('ServiceMonitor/'))).toContain('interval');
  });

  it('When production is rendered, then it carries the rules, the scrape targets and the dashboards', () => {
    const kinds = new Set(production.map((d) => d.kind));
    for (const kind of ['PrometheusRule', 'ServiceMonitor', 'ConfigMap', 'NetworkPolicy', 'Job', 'Ingress']) expect(kinds.has(kind) ? kind : `missing ${kind}`).toBe(kind);
    expect(named(production, 'ConfigMap', 'relay-grafana-dashboards')!.metadata.labels.grafana_dashboard).toBe('1');
  });

  it.each(Object.keys(PROCESS_SECRETS))('When %s runs, then its pod holds only the secrets its process uses', (name) => {
    const pod = named(production, 'Deployment', name)!.spec.template.spec;
    const c = pod.containers[0];
    expect(c.envFrom.filter((e: Doc) => e.secretRef)).toEqual([]);
    expect((pod.volumes ?? []).filter((v: Doc) => v.secret || v.projected)).toEqual([]);
    const fromSecrets = (c.env as Doc[]).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.valueFrom.secretKeyRef.key as string);
    for (const e of c.env as Doc[]) if (e.valueFrom?.secretKeyRef) expect(e.name).toBe(e.valueFrom.secretKeyRef.key);
    // The reporting database (a logical replica of the money database): reporting holds its URL alone;
    // the back office (money views) and admin (rollups and partitions) hold both; the others the money database's.
    const urls = name === 'reporting' ? ['REPORTING_DATABASE_URL', 'REDIS_URL'] : name === 'backoffice' || name === 'admin' ? ['DATABASE_URL', 'REPORTING_DATABASE_URL', 'REDIS_URL'] : ['DATABASE_URL', 'REDIS_URL'];
    const secrets = PROCESS_SECRETS[name as ProcessName];
    // The rotation companions, optional keys: whoever verifies identities or opens sealed values.
    const rotation = [
      ...(secrets.includes('INTERNAL_AUTH_SECRET') && name !== 'gateway' ? ['INTERNAL_AUTH_SECRET_VERIFY_ONLY'] : []),
      ...(secrets.includes('DATA_ENCRYPTION_KEY') ? ['DATA_ENCRYPTION_KEY_DECRYPT_ONLY'] : []),
      ...(secrets.includes('ADMIN_TOKEN') ? ['ADMIN_TOKEN_PREVIOUS'] : []),
      // Prometheus's credential, optional: the gateway alone reads it.
      ...(name === 'gateway' ? ['METRICS_TOKEN'] : []),
    ];
    expect(fromSecrets.sort()).toEqual([...urls, ...secrets, ...rotation].sort());
    for (const e of c.env as Doc[]) {
      if (e.valueFrom?.secretKeyRef) expect({ key: e.name, optional: e.valueFrom.secretKeyRef.optional ?? false }).toEqual({ key: e.name, optional: rotation.includes(e.name) });
    }
  });

  it('When production is rendered, then no object names the retired DATABASE_READ_URL and every reader of the reporting database gets REPORTING_DATABASE_URL', () => {
    expect(JSON.stringify(production)).not.toContain('DATABASE_READ_URL');
    const readers = of(production, 'Deployment')
      .filter((d) => (d.spec.template.spec.containers[0].env as Doc[]).some((e) => e.name === 'REPORTING_DATABASE_URL'))
      .map((d) => d.metadata.name);
    expect(readers.sort()).toEqual(['admin', 'backoffice', 'reporting']);
  });

  it('When a casino is called, then only HTTPS (443) leaves the cluster, from the wallet and the workers', () => {
    const casinos = named(production, 'NetworkPolicy', 'casinos-on-the-internet')!;
    expect(casinos.spec.egress).toHaveLength(1);
    expect(casinos.spec.egress[0].ports).toEqual([{ protocol: 'TCP', port: 443 }]);
  });

  it('When the same release is applied again, then the migration Job is not run again', () => {
    const jobs = of(production, 'Job');
    expect(jobs.map((j) => j.metadata.name)).toEqual(['relay-migrate-0-1-0']);
    // Named after the image tag, kept after completion (no TTL that would let an apply re-create it).
    const tag = jobs[0].spec.template.spec.containers[0].image.split(':').pop().replace(/\./g, '-');
    expect(jobs[0].metadata.name).toBe(`relay-migrate-${tag}`);
    expect(jobs[0].spec.ttlSecondsAfterFinished).toBeUndefined();
    // It prepares both databases (migrations, and the reporting database's subscription).
    expect(jobs[0].spec.template.spec.containers[0].env.map((e: Doc) => e.valueFrom.secretKeyRef.key)).toEqual(['DATABASE_URL', 'REPORTING_DATABASE_URL']);
  });

  it('When Prometheus looks for targets, then a ServiceMonitor selects every relay Service, the workers\' included, and labels its job', () => {
    const monitors = of(production, 'ServiceMonitor');
    const services = of(production, 'Service').map((s) => s.metadata);
    expect(services.map((s) => s.name).sort()).toEqual(['admin', 'backoffice', 'gateway', 'launcher', 'notifier', 'notifier-worker', 'reporting', 'wallet']);
    for (const svc of services) {
      const app = svc.labels['app.kubernetes.io/name'];
      const selecting = monitors.filter((m) => m.spec.selector.matchLabels?.['app.kubernetes.io/name'] === app || (m.spec.selector.matchExpressions ?? []).some((e: Doc) => e.operator === 'In' && e.values.includes(app)));
      expect({ app, monitors: selecting.length }).toEqual({ app, monitors: 1 });
      expect(selecting[0].spec.endpoints[0]).toMatchObject({ port: 'http', path: '/metrics' });
      expect(selecting[0].spec.endpoints[0].relabelings.find((r: Doc) => r.targetLabel === 'job').replacement).toMatch(/^relay-/);
    }
    const gateway = monitors.find((m) => m.spec.selector.matchLabels?.['app.kubernetes.io/name'] === 'gateway')!;
    expect(gateway.spec.endpoints[0].authorization.credentials).toEqual({ name: 'relay-secrets', key: 'METRICS_TOKEN' });
  });
});
