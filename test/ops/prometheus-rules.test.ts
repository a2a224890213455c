import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * The alerting and recording rules (ops/prometheus/rules.yml) as Prometheus itself reads them:
 * `promtool check rules` (syntax, PromQL, templates) and `promtool test rules` (the unit tests in
 * ops/prometheus/tests: each alert fires, or stays quiet, on a synthetic history). Skipped only
 * where promtool is not installed; .ci/run installs it.
 */

const ROOT = path.resolve(__dirname, '../..');
const RULES = path.join(ROOT, 'ops/prometheus/rules.yml');
const TESTS = path.join(ROOT, 'ops/prometheus/tests');
const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const groups = (parse(readFileSync(RULES, 'utf8')) as { groups: { name: string; rules: Rule[] }[] }).groups;
const alerts = groups.flatMap((g) => g.rules).filter((r) => r.alert);

function run(args: string[]) {
  return spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
}

describe('prometheus rules', () => {
  (promtool ? it : it.skip)('When promtool checks the rules file, then every rule parses', () => {
    const out = run(['check', 'rules', RULES]);
    expect(out.stdout + out.stderr).toContain(`SUCCESS: ${groups.flatMap((g) => g.rules).length} rules found`);
    expect(out.status).toBe(0);
  });

  (promtool ? it : it.skip)('When promtool runs the rule unit tests, then each alert fires and stays quiet as its test says', () => {
    const files = readdirSync(TESTS).filter((f) => f.endsWith('.test.yml')).map((f) => path.join(TESTS, f));
    expect(files.length).toBeGreaterThanOrEqual(3);
    // Every alert is exercised by at least one unit test.
    const tested = new Set(files.flatMap((f) => ((parse(readFileSync(f, 'utf8')) as { tests: { alert_rule_test?: { alertname: string }[] }[] }).tests ?? []).flatMap((t) => (t.alert_rule_test ?? []).map((a) => a.alertname))));
    for (const name of ['ReportingReplicationLagging', 'ReportingReplicationStopped', 'ReportingSlotRetainingWal', 'ReportingSlotLost']) {
      expect(tested.has(name) ? name : `no unit test for ${name}`).toBe(name);
    }
    const out = run(['test', 'rules', ...files]);
    expect({ status: out.status, output: out.stdout + out.stderr }).toMatchObject({ status: 0 });
    expect(out.stdout.match(/SUCCESS/g)).toHaveLength(files.length);
  });

  (promtool ? it : it.skip)('When promtool checks the compose Prometheus configuration, then it parses and its rule file is the one tested here', () => {
    const config = path.join(ROOT, 'ops/prometheus/prometheus.yml');
    const syntax = run(['check', 'config', '--syntax-only', config]);
    expect(syntax.stdout + syntax.stderr).toContain('SUCCESS');
    // The full check also loads the rules and the token file, at the paths the container mounts.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-prometheus-'));
    writeFileSync(path.join(dir, 'metrics_token'), 'test-token');
    const text = readFileSync(config, 'utf8').replace('/etc/prometheus/rules.yml', RULES).replace('/run/secrets/metrics_token', path.join(dir, 'metrics_token'));
    writeFileSync(path.join(dir, 'prometheus.yml'), text);
    const full = run(['check', 'config', path.join(dir, 'prometheus.yml')]);
    expect(full.stdout + full.stderr).toContain(`SUCCESS: ${groups.flatMap((g) => g.rules).length} rules found`);
    expect(full.status).toBe(0);
  });

  it('When an alert is defined, then it has a severity, a summary and a runbook that exists, with its section', () => {
    expect(alerts.length).toBeGreaterThan(20);
    for (const a of alerts) {
      expect({ alert: a.alert, severity: a.labels?.severity }).toEqual({ alert: a.alert, severity: expect.stringMatching(/^(page|ticket|warning)$/) });
      expect(a.annotations?.summary).toBeTruthy();
      const [file, anchor] = (a.annotations?.runbook_url ?? '').split('#');
      expect({ alert: a.alert, runbook: existsSync(path.join(ROOT, file)) ? file : `missing ${file}` }).toEqual({ alert: a.alert, runbook: file });
      expect(file).toMatch(/^docs\/runbooks\/[a-z-]+\.md$/);
      if (anchor) {
        const headings = readFileSync(path.join(ROOT, file), 'utf8').match(/^#+ .+$/gm) ?? [];
        const slugs = headings.map((h) => h.replace(/^#+ /, '').toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-'));
        expect({ alert: a.alert, anchor: slugs.includes(anchor) ? anchor : `no heading for #${anchor} in ${file}` }).toEqual({ alert: a.alert, anchor });
      }
    }
  });

  it('When docs/operating.md is read, then it names every alert and links every runbook', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/operating.md'), 'utf8');
    for (const a of alerts) {
      const mentioned = doc.includes(`\`${a.alert}\``) || doc.includes(`\`${a.alert!.replace(/SlowBurn$/, '')}...SlowBurn\``);
      expect(mentioned ? a.alert : `docs/operating.md does not name ${a.alert}`).toBe(a.alert);
    }
    for (const f of readdirSync(path.join(ROOT, 'docs/runbooks')).filter((x) => x !== 'README.md')) {
      expect(doc.includes(`runbooks/${f}`) ? f : `docs/operating.md does not link ${f}`).toBe(f);
    }
  });

  it('When every alert of the issue is looked for, then each signal has one', () => {
    const names = new Set(alerts.map((a) => a.alert));
    for (const name of [
      'RelayMoneyCallErrorBudgetFastBurn', 'RelayMoneyCallErrorBudgetSlowBurn', 'RelayMoneyCallLatencyBudgetBurn',
      'CasinoWalletErrors', 'CasinoWalletSlow', 'RelayAbandonedTransactions', 'RelayCreditsOwed', 'RelayReconciliationBacklog',
      'RoundEndedDeliveryFailures', 'RoundEndedQueueBacklog', 'PostgresReplicaLagging', 'RelayDatabasePoolSaturated',
      'PostgresConnectionsNearMax', 'RedisMemoryHigh', 'RelayPodsRestarting', 'RelayCertificateExpiresSoon', 'RelayMigrationJobFailed',
      // The reporting database's logical replication.
      'ReportingReplicationLagging', 'ReportingReplicationStopped', 'ReportingSlotRetainingWal', 'ReportingSlotLost',
    ]) {
      expect(names.has(name) ? name : `missing alert ${name}`).toBe(name);
    }
    // The relay's budget never counts a casino's failure.
    for (const r of groups.flatMap((g) => g.rules).filter((x) => x.record?.startsWith('relay:money_calls_relay_error'))) {
      expect(r.expr).not.toContain('casino_error');
    }
  });

  it('When the Kubernetes copy is compared with the rules file, then the PrometheusRule holds exactly its groups', () => {
    const out = spawnSync('node', ['ops/render-k8s.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const rule = parse(readFileSync(path.join(ROOT, 'k8s/components/monitoring/prometheusrule.yaml'), 'utf8'));
    expect(rule.kind).toBe('PrometheusRule');
    expect(rule.spec.groups).toEqual(groups);
  });
});
