/**
 * Monitoring (issue 13): the Grafana dashboards are importable Grafana JSON (inputs, variables, panels with unique
 * ids, queries on the `datasource` variable), the PrometheusRule is a well-formed list of alerts, both are
 * deterministic; the PromQL reader finds metric names and only them; `kubegen dashboard` prints and writes them;
 * `codegen init` scaffolds them with the ServiceMonitor.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { grafanaDashboards, metricNames, monitoringFiles, monitoringQueries, prometheusRuleYaml, unknownMetrics } from 'kubegen/internal/monitoring/index.js';
import { runCli } from '../support/cli.js';

type Json = Record<string, any>;

describe('Grafana dashboards', () => {
  const dashboards = grafanaDashboards('fleet-operator').map((d) => ({ file: d.file, json: JSON.parse(d.json) as Json }));

  it('are three files with unique titles and uids of at most 40 characters', () => {
    assert.deepEqual(dashboards.map((d) => d.file), ['controller-runtime-metrics.json', 'controller-resources-metrics.json', 'controller-api-metrics.json']);
    const uids = dashboards.map((d) => d.json['uid'] as string);
    assert.equal(new Set(uids).size, 3);
    assert.equal(new Set(dashboards.map((d) => d.json['title'])).size, 3);
    for (const d of dashboards) {
      assert.ok(uids.every((u) => u.length <= 40 && /^[a-zA-Z0-9-]+$/.test(u)), d.file);
      assert.match(d.json['title'], /^fleet-operator \/ /);
      assert.equal(d.json['schemaVersion'], 39);
      assert.equal(d.json['id'], null, 'an id would tie the JSON to one Grafana database');
    }
    const long = grafanaDashboards('a'.repeat(63)).map((d) => JSON.parse(d.json).uid as string);
    assert.ok(long.every((u) => u.length <= 40), long.join());
    assert.equal(new Set(long).size, 3);
    assert.notDeepEqual(long, grafanaDashboards(`${'a'.repeat(62)}b`).map((d) => JSON.parse(d.json).uid as string), 'the hash keeps long names apart');
  });

  it('import as is: a DS_PROMETHEUS input, a datasource variable on it, namespace/job (and controller) variables', () => {
    for (const { file, json } of dashboards) {
      assert.deepEqual(json['__inputs'].map((i: Json) => [i.name, i.type, i.pluginId]), [['DS_PROMETHEUS', 'datasource', 'prometheus']], file);
      const vars = new Map<string, Json>(json['templating'].list.map((v: Json) => [v.name, v]));
      assert.equal(vars.get('datasource')?.type, 'datasource', file);
      assert.equal(vars.get('datasource')?.query, 'prometheus');
      assert.equal(vars.get('datasource')?.current.value, '${DS_PROMETHEUS}', 'starts on the data source picked at import');
      for (const name of ['namespace', 'job']) {
        assert.equal(vars.get(name)?.type, 'query', `${file} ${name}`);
        assert.deepEqual(vars.get(name)?.datasource, { type: 'prometheus', uid: '${datasource}' });
        assert.match(vars.get(name)?.definition, new RegExp(`^label_values\\(controller_runtime_reconcile_total.*, ${name}\\)$`));
      }
    }
    const controller = dashboards[0]!.json['templating'].list.find((v: Json) => v.name === 'controller');
    assert.equal(controller?.multi, true);
    assert.equal(controller?.allValue, '.*');
  });

  it('lay out panels with unique ids on a 24-column grid without overlaps, each querying through the datasource variable', () => {
    for (const { file, json } of dashboards) {
      const panels = json['panels'] as Json[];
      assert.ok(panels.length >= 8, file);
      assert.equal(new Set(panels.map((p) => p.id)).size, panels.length, `${file}: ids unique`);
      const cells = new Set<string>();
      for (const p of panels) {
        const where = `${file} ${p.title}`;
        assert.ok(['row', 'timeseries', 'stat'].includes(p.type), where);
        assert.ok(Number.isInteger(p.id) && p.id > 0, where);
        const { h, w, x, y } = p.gridPos;
        assert.ok([h, w, x, y].every(Number.isInteger) && x + w <= 24 && h > 0 && w > 0, `${where}: ${JSON.stringify(p.gridPos)}`);
        for (let i = x; i < x + w; i++) for (let j = y; j < y + h; j++) {
          assert.ok(!cells.has(`${i},${j}`), `${where} overlaps another panel at ${i},${j}`);
          cells.add(`${i},${j}`);
        }
        if (p.type === 'row') continue;
        assert.ok(typeof p.title === 'string' && p.title !== '' && typeof p.description === 'string' && p.description !== '', where);
        assert.deepEqual(p.datasource, { type: 'prometheus', uid: '${datasource}' }, where);
        assert.ok(p.targets.length > 0, where);
        assert.equal(new Set(p.targets.map((t: Json) => t.refId)).size, p.targets.length, `${where}: refIds unique`);
        for (const t of p.targets) {
          assert.deepEqual(t.datasource, { type: 'prometheus', uid: '${datasource}' }, where);
          assert.ok(metricNames(t.expr).length > 0, `${where}: ${t.expr} selects no metric`);
          assert.match(t.expr, /namespace=~"\$namespace", job=~"\$job"/, `${where}: scoped to the picked job`);
        }
      }
    }
  });

  it('cover the runtime series the issue asks for', () => {
    const names = new Set(monitoringQueries().flatMap((q) => metricNames(q.expr)));
    for (const m of [
      'controller_runtime_reconcile_total', 'controller_runtime_reconcile_errors_total', 'controller_runtime_reconcile_time_seconds_bucket', 'controller_runtime_active_workers',
      'workqueue_depth', 'workqueue_adds_total', 'workqueue_retries_total', 'workqueue_queue_duration_seconds_bucket', 'workqueue_work_duration_seconds_bucket',
      'workqueue_unfinished_work_seconds', 'workqueue_longest_running_processor_seconds', 'rest_client_requests_total', 'rest_client_request_duration_seconds_bucket',
      'leader_election_master_status', 'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds_sum', 'controller_runtime_webhook_requests_total', 'controller_runtime_webhook_latency_seconds_bucket',
      'informer_queued_items', 'informer_processing_latency_seconds_bucket', 'informer_store_resource_version', 'kubegen_informer_watch_stalled',
      'kubegen_informer_watch_stalls_total',
    ]) {
      assert.ok(names.has(m), m);
    }
  });

  it('are deterministic', () => {
    assert.deepEqual(monitoringFiles('demo'), monitoringFiles('demo'));
    assert.deepEqual(monitoringFiles(), monitoringFiles());
    for (const f of monitoringFiles()) assert.ok(f.content.endsWith('}\n') || f.path.endsWith('.yaml'), f.path);
  });
});

describe('PrometheusRule', () => {
  const rule = parse(prometheusRuleYaml('fleet-operator')) as Json;

  it('is a monitoring.coreos.com/v1 PrometheusRule whose rules each have alert, expr, for, a severity, summary and description', () => {
    assert.equal(rule['apiVersion'], 'monitoring.coreos.com/v1');
    assert.equal(rule['kind'], 'PrometheusRule');
    assert.equal(rule['metadata'].namespace, 'system');
    assert.equal(rule['metadata'].labels['app.kubernetes.io/name'], 'fleet-operator');
    const rules = rule['spec'].groups.flatMap((g: Json) => g.rules) as Json[];
    assert.ok(rules.length >= 6);
    assert.equal(new Set(rules.map((r) => r.alert)).size, rules.length, 'alert names unique');
    for (const r of rules) {
      assert.match(r.alert, /^Controller[A-Z][A-Za-z]+$/);
      assert.match(r.for, /^\d+m$/, r.alert);
      assert.ok(['warning', 'critical'].includes(r.labels.severity), r.alert);
      assert.ok(r.annotations.summary && r.annotations.description, r.alert);
      assert.ok(metricNames(r.expr).length > 0, r.alert);
      assert.match(r.expr, /job="fleet-operator-controller-manager-metrics-service"/, `${r.alert} is scoped to the project's metrics Service`);
    }
    for (const a of ['ControllerInformerWatchSilent', 'ControllerReconcileErrorsHigh', 'ControllerWorkqueueDepthHigh', 'ControllerWorkqueueDepthGrowing', 'ControllerNoLeader', 'ControllerWorkqueueStuck', 'ControllerRestClientErrorsHigh']) {
      assert.ok(rules.some((r) => r.alert === a), a);
    }
    assert.equal(rules.find((r) => r.alert === 'ControllerNoLeader')!.labels.severity, 'critical');
  });

  it('matches any job without a project', () => {
    const rules = (parse(prometheusRuleYaml()) as Json)['spec'].groups.flatMap((g: Json) => g.rules) as Json[];
    for (const r of rules) assert.doesNotMatch(r.expr, /job=/, r.alert);
    assert.match(rules.find((r) => r.alert === 'ControllerRestClientErrorsHigh')!.expr, /rest_client_requests_total\{code=~"5\.\.\|<error>"\}/);
  });
});

describe('PromQL metric names', () => {
  it('finds selected metrics and skips functions, aggregations, labels, strings, ranges, keywords and numbers', () => {
    assert.deepEqual(metricNames('histogram_quantile(0.99, sum by (controller, le) (rate(a_bucket{job=~"$job", x="b_total"}[$__rate_interval])))'), ['a_bucket']);
    assert.deepEqual(metricNames('sum without (le) (b) / on (job) group_left (name) c offset 5m > 1e3 and d unless count by (x) (e) or vector(1)'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(metricNames('max_over_time(rate(f[5m])[1h:1m]) == bool 0 or absent(g{name=`raw "q"`})'), ['f', 'g']);
    assert.deepEqual(metricNames('sum(h) by (i)'), ['h']);
    assert.deepEqual(metricNames('j:recorded:rate5m * 2'), ['j:recorded:rate5m']);
    assert.throws(() => metricNames('k{a="b'), /unterminated string/);
    assert.throws(() => metricNames('rate(l[5m)'), /unterminated \[/);
  });

  it('reports a query naming a metric that is not exported (a misspelt panel)', () => {
    const known = new Set(['controller_runtime_reconcile_total', 'workqueue_depth']);
    const bad = { where: 'test panel "Typo"', expr: 'sum by (controller) (rate(controller_runtime_reconcile_totl{controller=~"$controller"}[5m])) / workqueue_depth' };
    assert.deepEqual(unknownMetrics([bad], known), [{ where: bad.where, expr: bad.expr, metric: 'controller_runtime_reconcile_totl' }]);
    assert.deepEqual(unknownMetrics([{ where: 'ok', expr: 'sum(rate(controller_runtime_reconcile_total[5m]))' }], known), []);
  });
});

describe('kubegen dashboard', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-dashboard-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('prints every file after a ==> path <== line, outside a project for any job', async () => {
    const res = await runCli(tmp, 'dashboard');
    assert.equal(res.code, 0, res.err);
    assert.deepEqual([...res.out.matchAll(/^==> (\S+) <==$/gm)].map((m) => m[1]), monitoringFiles().map((f) => f.path));
    assert.equal(res.out, monitoringFiles().map((f) => `==> ${f.path} <==\n${f.content}`).join('\n'));
  });

  it('prints one file with --only, named by path or base name', async () => {
    const json = await runCli(tmp, 'dashboard', '--only', 'controller-api-metrics.json', '--name', 'demo');
    assert.equal(json.code, 0, json.err);
    assert.equal(JSON.parse(json.out).title, 'demo / Controller API Client, Leader Election and Webhooks');
    const rule = await runCli(tmp, 'dashboard', '--only', 'prometheus/prometheus_rule.yaml');
    assert.equal((parse(rule.out) as Json)['kind'], 'PrometheusRule');
    const bad = await runCli(tmp, 'dashboard', '--only', 'nope.json');
    assert.equal(bad.code, 2, 'a usage error');
    assert.match(bad.err, /^error: --only nope\.json: no such file; one of grafana\/controller-runtime-metrics\.json, /);
    const typo = await runCli(tmp, 'dashboard', '--only', 'controler-runtime-metrics.json');
    assert.equal(typo.code, 2);
    assert.match(typo.err, /^error: --only controler-runtime-metrics\.json: no such file \(did you mean controller-runtime-metrics\.json\?\); one of /);
    const name = await runCli(tmp, 'dashboard', '--name', 'Not_A_Label');
    assert.equal(name.code, 1);
    assert.match(name.err, /project name "Not_A_Label" is not a DNS-1123 label/);
  });

  it('writes the files under --out for the project of the nearest kubegen.project.yaml', async () => {
    const project = path.join(tmp, 'proj');
    fs.mkdirSync(path.join(project, 'src'), { recursive: true });
    fs.writeFileSync(path.join(project, 'kubegen.project.yaml'), 'layout: kubegen.io/v1\nprojectName: proj\ndomain: example.com\nresources: []\n');
    const res = await runCli(path.join(project, 'src'), 'dashboard', '--out', '../config');
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /^wrote 4 files into \S*config for project proj\n {2}grafana\/controller-runtime-metrics\.json\n/);
    for (const f of monitoringFiles('proj')) assert.equal(fs.readFileSync(path.join(project, 'config', f.path), 'utf8'), f.content, f.path);
    // Again: the files are replaced (same content), nothing else is left in the folders.
    assert.equal((await runCli(project, 'dashboard', '--out', 'config')).code, 0);
    assert.deepEqual(fs.readdirSync(path.join(project, 'config', 'grafana')).sort(), ['controller-api-metrics.json', 'controller-resources-metrics.json', 'controller-runtime-metrics.json']);
  });

  it('names a malformed kubegen.project.yaml, exits 1 and writes nothing', async () => {
    const project = path.join(tmp, 'broken');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'kubegen.project.yaml'), 'projectName: [\n');
    const res = await runCli(project, 'dashboard', '--out', 'config');
    assert.equal(res.code, 1);
    assert.match(res.err, new RegExp(`^error: ${path.join(project, 'kubegen.project.yaml').replace(/[.]/g, '\\.')}: not valid YAML`));
    assert.equal(fs.existsSync(path.join(project, 'config')), false);
  });

  it('leaves the previous files as they were when one target cannot be written', async () => {
    const out = path.join(tmp, 'half');
    fs.mkdirSync(path.join(out, 'grafana'), { recursive: true });
    fs.writeFileSync(path.join(out, 'grafana', 'controller-runtime-metrics.json'), 'previous\n');
    fs.mkdirSync(path.join(out, 'prometheus', 'prometheus_rule.yaml'), { recursive: true }); // a folder in the way
    const res = await runCli(tmp, 'dashboard', '--out', out);
    assert.equal(res.code, 1);
    assert.match(res.err, /prometheus_rule\.yaml exists and is not a file/);
    assert.equal(fs.readFileSync(path.join(out, 'grafana', 'controller-runtime-metrics.json'), 'utf8'), 'previous\n');
    assert.deepEqual(fs.readdirSync(path.join(out, 'grafana')), ['controller-runtime-metrics.json'], 'no other dashboard, no temporary file');
    assert.deepEqual(fs.readdirSync(path.join(out, 'prometheus')), ['prometheus_rule.yaml']);
  });
});

describe('codegen init: monitoring files', () => {
  it('scaffolds config/grafana and config/prometheus (ServiceMonitor on the https metrics Service, the alerts)', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-init-monitoring-'));
    try {
      const res = await runCli(tmp, 'init', '--domain', 'example.com', 'fleet-operator');
      assert.equal(res.code, 0, res.err);
      const dir = path.join(tmp, 'fleet-operator');
      const read = (p: string): string => fs.readFileSync(path.join(dir, p), 'utf8');
      for (const f of monitoringFiles('fleet-operator')) assert.equal(read(`config/${f.path}`), f.content, f.path);
      assert.match(res.out, /created config\/grafana\/controller-runtime-metrics\.json/);
      assert.deepEqual(parse(read('config/prometheus/kustomization.yaml')).resources, ['monitor.yaml', 'prometheus_rule.yaml']);
      assert.match(read('config/prometheus/kustomization.yaml'), /metrics-reader\s+# ClusterRole/);
      const monitor = parse(read('config/prometheus/monitor.yaml')) as Json;
      assert.equal(monitor['kind'], 'ServiceMonitor');
      assert.equal(monitor['apiVersion'], 'monitoring.coreos.com/v1');
      assert.equal(monitor['metadata'].namespace, 'system');
      assert.deepEqual(monitor['spec'].endpoints, [
        { path: '/metrics', port: 'https', scheme: 'https', bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token', tlsConfig: { insecureSkipVerify: true } },
      ]);
      assert.deepEqual(monitor['spec'].selector, { matchLabels: { 'control-plane': 'controller-manager', 'app.kubernetes.io/name': 'fleet-operator' } });
      assert.match(read('config/prometheus/monitor.yaml'), /cert-manager/);
      const defaults = read('config/default/kustomization.yaml');
      assert.match(defaults, /^ {2}# - \.\.\/prometheus$/m, 'off by default, one uncomment away');
      assert.deepEqual(parse(defaults).resources, ['../crd', '../rbac', '../manager', 'metrics_service.yaml']);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
