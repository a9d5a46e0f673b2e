/**
 * The scaffold's PrometheusRule (config/prometheus/prometheus_rule.yaml of a new project) through Prometheus's own
 * tool (Debian's promtool 2.42): `promtool check rules` accepts its groups, and `promtool test rules` runs a unit
 * test per alert on synthetic series: it fires (with the labels and rendered annotations below) once its condition
 * has held for its `for`, and stays silent while the condition has held for less, on healthy series, and on the
 * same bad series from another job (the rules match only the project's metrics Service).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { projectJob } from 'kubegen/internal/monitoring/index.js';
import { monitoringScaffoldFiles } from 'kubegen/internal/scaffold/monitoring-files.js';
import { promtool } from './support/prometheus.js';

const PROJECT = 'fleet-operator';
const JOB = projectJob(PROJECT);
const NS = 'fleet-operator-system';

interface Series {
  metric: string;
  labels?: Record<string, string>;
  /** promtool's expanding notation, one sample a minute: `0+10x60` is 0, 10, … 600; `150x60` is 150 for an hour. */
  values: string;
}

interface AlertCase {
  /** Series that make the condition true (for an hour). */
  firing: Series[];
  /** Series that keep it false (for an hour). */
  healthy: Series[];
  /** The alert's labels besides `severity`: what its `by (...)` keeps, for the series above. */
  labels: Record<string, string>;
}

const CONTROLLER = { controller: 'frigate' };
const QUEUE = { controller: 'frigate', name: 'frigate' };
const WEBHOOK = { webhook: '/validate-ships-v1-frigate' };
const INFORMER = { name: 'frigates.ships.example.com/v1', group: 'ships.example.com', version: 'v1', resource: 'frigates' };

/** One case per alert of the PrometheusRule (a new alert without a case fails the test). */
const CASES: Record<string, AlertCase> = {
  ControllerSourcesNotSynced: {
    firing: [{ metric: 'kubegen_controller_source_synced', labels: { ...CONTROLLER, source: 'Frigate' }, values: '0x60' }],
    healthy: [{ metric: 'kubegen_controller_source_synced', labels: { ...CONTROLLER, source: 'Frigate' }, values: '1x60' }],
    labels: { ...CONTROLLER, source: 'Frigate' },
  },
  ControllerReconcileErrorsHigh: {
    firing: [
      { metric: 'controller_runtime_reconcile_total', labels: { ...CONTROLLER, result: 'success' }, values: '0+8x60' },
      { metric: 'controller_runtime_reconcile_total', labels: { ...CONTROLLER, result: 'error' }, values: '0+2x60' },
      { metric: 'controller_runtime_reconcile_errors_total', labels: CONTROLLER, values: '0+2x60' },
    ],
    healthy: [
      { metric: 'controller_runtime_reconcile_total', labels: { ...CONTROLLER, result: 'success' }, values: '0+10x60' },
      { metric: 'controller_runtime_reconcile_total', labels: { ...CONTROLLER, result: 'error' }, values: '0x60' },
      { metric: 'controller_runtime_reconcile_errors_total', labels: CONTROLLER, values: '0x60' },
    ],
    labels: CONTROLLER,
  },
  ControllerWorkqueueDepthHigh: {
    firing: [{ metric: 'workqueue_depth', labels: QUEUE, values: '150x60' }],
    healthy: [{ metric: 'workqueue_depth', labels: QUEUE, values: '50x60' }],
    labels: { name: 'frigate' },
  },
  ControllerWorkqueueDepthGrowing: {
    firing: [{ metric: 'workqueue_depth', labels: QUEUE, values: '20+2x60' }],
    healthy: [{ metric: 'workqueue_depth', labels: QUEUE, values: '50x60' }],
    labels: { name: 'frigate' },
  },
  ControllerWorkqueueStuck: {
    firing: [{ metric: 'workqueue_longest_running_processor_seconds', labels: QUEUE, values: '700x60' }],
    healthy: [{ metric: 'workqueue_longest_running_processor_seconds', labels: QUEUE, values: '30x60' }],
    labels: { name: 'frigate' },
  },
  ControllerWorkqueueUnfinishedWorkHigh: {
    firing: [{ metric: 'workqueue_unfinished_work_seconds', labels: QUEUE, values: '2000x60' }],
    healthy: [{ metric: 'workqueue_unfinished_work_seconds', labels: QUEUE, values: '60x60' }],
    labels: { name: 'frigate' },
  },
  ControllerInformerWatchSilent: {
    firing: [{ metric: 'kubegen_informer_watch_stalled', labels: INFORMER, values: '1x60' }],
    healthy: [{ metric: 'kubegen_informer_watch_stalled', labels: INFORMER, values: '0x60' }],
    labels: { name: INFORMER.name },
  },
  ControllerNoLeader: {
    firing: [
      { metric: 'leader_election_master_status', labels: { name: 'lease', instance: 'a' }, values: '0x60' },
      { metric: 'leader_election_master_status', labels: { name: 'lease', instance: 'b' }, values: '0x60' },
    ],
    healthy: [
      { metric: 'leader_election_master_status', labels: { name: 'lease', instance: 'a' }, values: '1x60' },
      { metric: 'leader_election_master_status', labels: { name: 'lease', instance: 'b' }, values: '0x60' },
    ],
    labels: { name: 'lease' },
  },
  ControllerRestClientErrorsHigh: {
    firing: [
      { metric: 'rest_client_requests_total', labels: { code: '200', method: 'GET' }, values: '0+10x60' },
      { metric: 'rest_client_requests_total', labels: { code: '<error>', method: 'GET' }, values: '0+1x60' },
    ],
    healthy: [
      { metric: 'rest_client_requests_total', labels: { code: '200', method: 'GET' }, values: '0+10x60' },
      { metric: 'rest_client_requests_total', labels: { code: '404', method: 'GET' }, values: '0+5x60' },
    ],
    labels: {},
  },
  ControllerWebhookErrorsHigh: {
    firing: [
      { metric: 'controller_runtime_webhook_requests_total', labels: { ...WEBHOOK, code: '200' }, values: '0+10x60' },
      { metric: 'controller_runtime_webhook_requests_total', labels: { ...WEBHOOK, code: '500' }, values: '0+1x60' },
    ],
    healthy: [{ metric: 'controller_runtime_webhook_requests_total', labels: { ...WEBHOOK, code: '200' }, values: '0+10x60' }],
    labels: WEBHOOK,
  },
};

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** `15m` → 15 (minutes); the rules only use minutes. */
function minutes(d: string): number {
  const m = /^(\d+)m$/.exec(d);
  assert.ok(m, `duration ${d} in minutes`);
  return Number(m[1]);
}

/** `{{ $labels.x }}` filled in as Prometheus renders it; a label the alert does not carry fails (it would read "<no value>"). */
function render(template: string, labels: Record<string, string>, where: string): string {
  return template.replace(/\{\{\s*\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g, (_, l: string) => {
    assert.ok(l in labels, `${where} uses $labels.${l}, which the alert does not carry (${Object.keys(labels).join(', ')})`);
    return labels[l]!;
  });
}

function seriesText(s: Series, job: string): string {
  const labels = { namespace: NS, job, ...s.labels };
  return `${s.metric}{${Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
}

const inputSeries = (series: Series[], job = JOB) => series.map((s) => ({ series: seriesText(s, job), values: s.values }));

/** promtool's test groups for one alert: fires after `for`, silent before, on healthy series and for another job. */
function alertTests(rule: Rule, c: AlertCase): unknown[] {
  const holdFor = minutes(rule.for);
  const labels = { namespace: NS, job: JOB, ...c.labels, ...rule.labels };
  const annotations = Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, render(v, labels, `${rule.alert} ${k}`)]));
  const late = `${holdFor + 10}m`;
  return [
    { name: `${rule.alert} fires once its condition held for ${rule.for}`, interval: '1m', input_series: inputSeries(c.firing),
      alert_rule_test: [{ eval_time: late, alertname: rule.alert, exp_alerts: [{ exp_labels: labels, exp_annotations: annotations }] }] },
    { name: `${rule.alert} is silent while its condition held for less than ${rule.for}`, interval: '1m', input_series: inputSeries(c.firing),
      alert_rule_test: [{ eval_time: `${holdFor - 1}m`, alertname: rule.alert, exp_alerts: [] }] },
    { name: `${rule.alert} is silent on healthy series`, interval: '1m', input_series: inputSeries(c.healthy),
      alert_rule_test: [{ eval_time: late, alertname: rule.alert, exp_alerts: [] }] },
    { name: `${rule.alert} is silent for another job`, interval: '1m', input_series: inputSeries(c.firing, 'some-other-service'),
      alert_rule_test: [{ eval_time: late, alertname: rule.alert, exp_alerts: [] }] },
  ];
}

describe('the scaffold\'s PrometheusRule through promtool (Debian\'s Prometheus 2.42)', () => {
  let dir: string;
  let rules: Rule[];
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-promtool-'));
    const file = monitoringScaffoldFiles(PROJECT).find((f) => f.path === 'config/prometheus/prometheus_rule.yaml');
    assert.ok(file, 'the scaffold writes config/prometheus/prometheus_rule.yaml');
    const rule = parse(Buffer.from(file.content).toString('utf8')) as { kind: string; spec: { groups: { name: string; rules: Rule[] }[] } };
    assert.equal(rule.kind, 'PrometheusRule');
    // What the Prometheus Operator hands Prometheus: the spec's groups as a rule file.
    fs.writeFileSync(path.join(dir, 'rules.yaml'), stringify({ groups: rule.spec.groups }));
    rules = rule.spec.groups.flatMap((g) => g.rules);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('promtool check rules accepts every rule', () => {
    const res = promtool(['check', 'rules', 'rules.yaml'], dir);
    assert.equal(res.status, 0, res.output);
    assert.match(res.output, new RegExp(`SUCCESS: ${rules.length} rules found`));
    assert.ok(rules.length >= 9, `${rules.length} rules`);
  });

  it('promtool test rules: each alert fires on its bad series and is silent otherwise', () => {
    assert.deepEqual(rules.map((r) => r.alert).sort(), Object.keys(CASES).sort(), 'a test case for every alert of the rule');
    const tests = rules.flatMap((r) => alertTests(r, CASES[r.alert]!));
    fs.writeFileSync(path.join(dir, 'alerts.test.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }));
    const res = promtool(['test', 'rules', 'alerts.test.yaml'], dir);
    assert.equal(res.status, 0, res.output);
    assert.match(res.output, /SUCCESS/);
    assert.equal(tests.length, rules.length * 4);
  });

  it('the harness has teeth: expecting an alert from healthy series fails promtool test rules', () => {
    const rule = rules.find((r) => r.alert === 'ControllerReconcileErrorsHigh')!;
    const c = CASES[rule.alert]!;
    const [fires] = alertTests(rule, c) as { input_series: unknown }[];
    const wrong = { ...fires!, name: 'expects an alert from healthy series', input_series: inputSeries(c.healthy) };
    fs.writeFileSync(path.join(dir, 'wrong.test.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests: [wrong] }));
    const res = promtool(['test', 'rules', 'wrong.test.yaml'], dir);
    assert.equal(res.status, 1, res.output);
    assert.match(res.output, /FAILED/);
    assert.match(res.output, /ControllerReconcileErrorsHigh/);
  });
});
