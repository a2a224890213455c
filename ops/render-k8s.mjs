#!/usr/bin/env node
/* global process, console */
// Writes the Kubernetes copies of the monitoring files, so each has one source under ops/:
//   ops/prometheus/rules.yml         -> k8s/components/monitoring/prometheusrule.yaml (PrometheusRule)
//   ops/grafana/dashboards/*.json    -> k8s/components/monitoring/grafana-dashboards.yaml (ConfigMap)
// Run `node ops/render-k8s.mjs` after editing either; test/ops/prometheus-rules.test.ts and
// test/ops/dashboards.test.ts fail while the copies differ. `--check` only compares.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'k8s/components/monitoring');
const header = (source) => `# Generated from ${source} by \`node ops/render-k8s.mjs\`: edit the source, not this file.\n`;

export function renderPrometheusRule() {
  const rules = parse(readFileSync(path.join(root, 'ops/prometheus/rules.yml'), 'utf8'));
  const object = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'relay', labels: { 'app.kubernetes.io/part-of': 'game-relay', role: 'alert-rules' } },
    spec: { groups: rules.groups },
  };
  return header('ops/prometheus/rules.yml') + stringify(object, { lineWidth: 0 });
}

export function renderDashboards() {
  const dir = path.join(root, 'ops/grafana/dashboards');
  const data = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) data[file] = readFileSync(path.join(dir, file), 'utf8');
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    // The Grafana sidecar (kube-prometheus-stack) loads every ConfigMap with this label.
    metadata: { name: 'relay-grafana-dashboards', labels: { 'app.kubernetes.io/part-of': 'game-relay', grafana_dashboard: '1' } },
    data,
  };
  return header('ops/grafana/dashboards/*.json') + stringify(object, { lineWidth: 0 });
}

const targets = [
  ['prometheusrule.yaml', renderPrometheusRule],
  ['grafana-dashboards.yaml', renderDashboards],
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [file, render] of targets) {
    const text = render();
    const target = path.join(out, file);
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      current = '';
    }
    if (current === text) continue;
    if (check) {
      console.error(`${path.relative(root, target)} is stale: run node ops/render-k8s.mjs`);
      stale++;
    } else {
      writeFileSync(target, text);
      console.error(`wrote ${path.relative(root, target)}`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
