/**
 * The scaffold's dashboards and alerts against a real Prometheus (Debian's 2.42, hack/setup-prometheus.sh) scraping
 * a running manager exactly as the scaffold's ServiceMonitor says: HTTPS, path /metrics, the certificate not
 * verified (insecureSkipVerify), a bearer token file holding the token of a ServiceAccount bound to the scaffold's
 * metrics-reader ClusterRole. The manager (envtest, the `full` profile) has secure metrics, leader election, a
 * controller and a webhook server.
 *
 * Phase 1, healthy: Foos reconciled without error and one admission request answered. Every panel query of every
 * dashboard (its variables resolved through Prometheus as Grafana does) returns data, the error panels included:
 * the reconcile error counter is 0 for the controller before its first error (as controller-runtime initialises it),
 * and the leader election panels show the manager, once elected, holding its lease (1, in both phases).
 * Phase 2, errors: reconciles that fail, an admission webhook answering HTTP 500, API requests answered 503 (an
 * aggregated API whose Service has no endpoints). Every panel again; every alert expression is valid and, with its
 * comparisons made `bool`, returns data (each alert has series to judge); Prometheus loads the rules (health ok)
 * and the error alerts are pending.
 *
 * Timing: Prometheus scrapes every second and evaluates the rules every second; `$__rate_interval` is 1m (what
 * Grafana computes for its default 15 s scrape interval) and the alerts' windows 5m or 15m, so every window spans
 * the whole run: all activity happens after Prometheus's first scrape, and each phase then waits for three more
 * scrapes (about 3 s) before querying. The test takes 20-25 s (most of it envtest round trips).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parse } from 'yaml';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { requestServiceAccountToken } from '@kubegen/runtime/internal/testing/envtest/envtest-rbac.js';
import {
  generateServingCertificate, validatingWebhook, WebhookServer, writeServingCertificate,
} from '@kubegen/runtime/webhook';
import { grafanaDashboards, projectJob } from 'kubegen/internal/monitoring/index.js';
import { monitoringScaffoldFiles } from 'kubegen/internal/scaffold/monitoring-files.js';
import { renderTemplate } from 'kubegen/internal/scaffold/render.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { FOO } from './support/crds.js';
import { sharedEnv, uniqueName, type TestEnv } from './support/env.js';
import { panelQueries, resolveVariables, substitute, withBoolComparisons } from './support/grafana-queries.js';
import { startPrometheus, type PrometheusProcess, type VectorSample } from './support/prometheus.js';
import { eventually } from '../support/wait.js';

const PROJECT = 'fleet-operator';
const JOB = projectJob(PROJECT);
const CONTROLLER = 'prom-foo';
/** Grafana's `$__rate_interval` for a data source scrape interval of 15 s (its default): max(4 × 15 s, step + 15 s). */
const RATE_INTERVAL = '1m';
const rbac = (resource: string, kind: string): ResourceInfo => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource, kind, listKind: `${kind}List`, namespaced: false });
const APISERVICES: ResourceInfo = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', listKind: 'APIServiceList', namespaced: false };
const SERVICES: ResourceInfo = { group: '', version: 'v1', resource: 'services', kind: 'Service', listKind: 'ServiceList', namespaced: true };

const scaffoldFile = (p: string): string => {
  const f = monitoringScaffoldFiles(PROJECT).find((x) => x.path === p);
  assert.ok(f, `the scaffold writes ${p}`);
  return Buffer.from(f.content).toString('utf8');
};

interface Endpoint {
  path: string;
  port: string;
  scheme: string;
  bearerTokenFile: string;
  tlsConfig: { insecureSkipVerify: boolean };
}

/**
 * The scrape config the Prometheus Operator makes of the ServiceMonitor's endpoint for one target: scheme, path,
 * bearer token file (here the file the test wrote the ServiceAccount's token to, in place of the Prometheus pod's
 * own token), TLS settings, and the labels it sets (job = the Service's name, namespace, service, endpoint = port).
 * Fails on an endpoint field it does not translate, so a change to the ServiceMonitor cannot go untested.
 */
function scrapeConfig(monitor: { spec: { endpoints: Endpoint[] } }, o: { target: string; tokenFile: string; namespace: string; service: string }): Record<string, unknown> {
  assert.equal(monitor.spec.endpoints.length, 1, 'one endpoint');
  const ep = monitor.spec.endpoints[0]!;
  assert.deepEqual(Object.keys(ep).sort(), ['bearerTokenFile', 'path', 'port', 'scheme', 'tlsConfig'], 'the endpoint fields this test translates');
  assert.deepEqual(Object.keys(ep.tlsConfig), ['insecureSkipVerify'], 'the TLS fields this test translates');
  return {
    job_name: o.service,
    scrape_interval: '1s',
    scrape_timeout: '1s',
    scheme: ep.scheme,
    metrics_path: ep.path,
    authorization: { type: 'Bearer', credentials_file: o.tokenFile },
    tls_config: { insecure_skip_verify: ep.tlsConfig.insecureSkipVerify },
    static_configs: [{ targets: [o.target], labels: { namespace: o.namespace, service: o.service, endpoint: ep.port } }],
  };
}

/** POSTs an AdmissionReview for a Foo to `url` over TLS trusting `ca`; resolves with the HTTP status. */
function admissionReview(url: string, ca: string, ns: string, uid: string): Promise<number> {
  const object = { apiVersion: `${FOO.group}/${FOO.version}`, kind: FOO.kind, metadata: { name: uid, namespace: ns }, spec: { deploymentName: 'd', replicas: 1 } };
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid, kind: { group: FOO.group, version: FOO.version, kind: FOO.kind }, resource: { group: FOO.group, version: FOO.version, resource: FOO.resource }, operation: 'CREATE', namespace: ns, name: uid, userInfo: { username: 'test' }, object },
  });
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Some garbage, so that the GC panels have collections to show. */
function makeGarbage(): number {
  let junk: number[][] = [];
  for (let i = 0; i < 2000; i++) junk.push(new Array(1000).fill(i));
  const n = junk.length;
  junk = [];
  return n + junk.length;
}

const finite = (s: VectorSample): boolean => Number.isFinite(Number(s.value[1]));

describe('dashboards and alerts through a real Prometheus scraping a manager (envtest)', () => {
  let env: TestEnv;
  let dir: string;
  before(async () => {
    env = await sharedEnv();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-prometheus-test-'));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await env?.release();
  });

  it('every panel query and alert expression returns data, before and after errors', { timeout: 180_000 }, async (t) => {
    const ns = await env.newNamespace('prometheus');
    const cleanups: (() => Promise<unknown>)[] = [];

    // The scraper's identity, as the scaffold's RBAC says: a ServiceAccount bound to the metrics-reader ClusterRole
    // (config/rbac/metrics_reader_role.yaml; kustomize prefixes its name with the project's).
    const readerRole = parse(renderTemplate('init/metrics_reader_role.yaml.tmpl', { projectName: PROJECT })) as KubeObject;
    const roleName = uniqueName(`${PROJECT}-metrics-reader`);
    const roles = new ResourceClient<KubeObject>(env.transport, rbac('clusterroles', 'ClusterRole'));
    const bindings = new ResourceClient<KubeObject>(env.transport, rbac('clusterrolebindings', 'ClusterRoleBinding'));
    await roles.create({ ...readerRole, metadata: { ...readerRole.metadata, name: roleName } });
    cleanups.push(() => roles.delete(roleName));
    await new ResourceClient<KubeObject>(env.transport, builtinResources.serviceAccounts, ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'prometheus-k8s' } });
    await bindings.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: roleName },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: ns }],
    } as KubeObject);
    cleanups.push(() => bindings.delete(roleName));
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, await requestServiceAccountToken(env.transport, { namespace: ns, name: 'prometheus-k8s' }, { expirationSeconds: 3600 }));

    // The manager: secure metrics, leader election, a controller that fails when told to, webhooks.
    const registry = new Registry();
    const certs = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    await writeServingCertificate(path.join(dir, 'webhook-certs'), certs);
    const webhooks = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: path.join(dir, 'webhook-certs'), logger: nullLogger, registry });
    webhooks.register('/validate-foo', validatingWebhook<KubeObject>({ validateCreate: () => undefined }));
    // A webhook with a bug: its response cannot be serialised (a BigInt), which the server answers with HTTP 500.
    webhooks.register('/validate-foo-broken', { handle: () => ({ allowed: true, auditAnnotations: { n: 1n as unknown as string } }) });
    const mgr = new Manager({
      transport: env.transport,
      namespace: ns,
      metricsBindAddress: '127.0.0.1:0',
      metricsSecureServing: true,
      registry,
      logger: nullLogger,
      leaderElection: true,
      leaderElectionId: 'prometheus-test',
      leaderElectionNamespace: ns,
      webhookServer: webhooks,
    });
    const failing = new Set<string>();
    const reconciled = new Set<string>();
    controllerFor(mgr, FOO)
      .named(CONTROLLER)
      .complete(async (req) => {
        if (failing.delete(req.name)) throw new Error(`reconcile of ${req.name} fails on purpose`);
        reconciled.add(req.name);
      });
    const foos = new ResourceClient<KubeObject>(env.transport, FOO, ns);
    const createFoos = async (names: string[]): Promise<void> => {
      for (const name of names) await foos.create({ apiVersion: `${FOO.group}/${FOO.version}`, kind: FOO.kind, metadata: { name }, spec: { deploymentName: name, replicas: 1 } } as KubeObject);
      await eventually(`${names.join(', ')} reconciled`, async () => (names.every((n) => reconciled.has(n)) ? true : undefined), 30_000);
    };
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    let prom: PrometheusProcess | undefined;
    try {
      const metricsAddress = await eventually('the metrics server to listen', async () => mgr.metricsAddress);
      await eventually('this manager to lead', async () => (mgr.elector?.isLeader() ? true : undefined), 30_000);

      const monitor = parse(scaffoldFile('config/prometheus/monitor.yaml')) as { spec: { endpoints: Endpoint[]; selector: { matchLabels: Record<string, string> } } };
      const service = parse(renderTemplate('init/metrics_service.yaml.tmpl', { projectName: PROJECT })) as { metadata: { labels: Record<string, string> }; spec: { ports: { name: string }[] } };
      for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels)) assert.equal(service.metadata.labels[k], v, `the ServiceMonitor selects the metrics Service (${k})`);
      assert.ok(service.spec.ports.some((p) => p.name === monitor.spec.endpoints[0]!.port), 'the ServiceMonitor\'s port is one of the metrics Service');
      const rule = parse(scaffoldFile('config/prometheus/prometheus_rule.yaml')) as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } };
      const alerts = rule.spec.groups.flatMap((g) => g.rules);
      prom = await startPrometheus(
        {
          global: { evaluation_interval: '1s' },
          scrape_configs: [scrapeConfig(monitor, { target: metricsAddress, tokenFile, namespace: ns, service: JOB })],
        },
        { 'rules.yaml': JSON.stringify({ groups: rule.spec.groups }) },
      );
      const p = prom;
      const target = await eventually('Prometheus to scrape the manager', async () => {
        const [tg] = await p.targets();
        return tg?.health === 'up' ? tg : undefined;
      }, 30_000);
      assert.equal(target.scrapeUrl, `https://${metricsAddress}/metrics`);
      assert.deepEqual([target.labels['job'], target.labels['namespace']], [JOB, ns]);
      /** Waits until Prometheus has scraped `n` more times (the `up` series' sample count over the last minute). */
      const scrapes = async (): Promise<number> => Number((await p.query(`count_over_time(up{job="${JOB}"}[5m])`)).result[0]?.value[1] ?? 0);
      const waitScrapes = async (n: number): Promise<void> => {
        const from = await scrapes();
        await eventually(`${n} more scrapes`, async () => ((await scrapes()) >= from + n ? true : undefined), 30_000);
      };

      /**
       * Every panel query of every dashboard, variables resolved through Prometheus; fails naming those that came
       * back empty. Returns each query's samples by where it is (file, panel title, refId).
       */
      const checkPanels = async (phase: string): Promise<Map<string, VectorSample[]>> => {
        const empty: string[] = [];
        const results = new Map<string, VectorSample[]>();
        for (const d of grafanaDashboards(PROJECT)) {
          const vars = await resolveVariables(d.json, p, { namespace: ns, job: JOB, controller: CONTROLLER });
          for (const q of panelQueries(d.file, d.json)) {
            const expr = substitute(q.expr, { ...vars, __rate_interval: RATE_INTERVAL });
            const res = await p.query(expr).catch((err: Error) => assert.fail(`${q.where}: ${expr}: ${err.message}`));
            results.set(q.where, res.result);
            if (!res.result.some(finite)) empty.push(`${q.where}: ${expr} → ${JSON.stringify(res.result)}`);
          }
        }
        assert.deepEqual(empty, [], `${phase}: panel queries with no data (or only NaN):\n${empty.join('\n')}`);
        return results;
      };
      /** The leader election panels: this manager, the one replica, holds the test's lease (1, not "no leader"). */
      const checkLeaderPanels = (phase: string, results: Map<string, VectorSample[]>): void => {
        const leader = [...results].filter(([where]) => /panel "Leader(s per lease| by replica)"/.test(where));
        assert.equal(leader.length, 2, `${phase}: the two leader election panels: ${[...results.keys()].join(', ')}`);
        for (const [where, samples] of leader) {
          assert.deepEqual(samples.map((s) => [s.metric['name'], s.value[1]]), [['prometheus-test', '1']], `${phase}: ${where}`);
        }
      };

      // Phase 1: healthy. Everything happens after the first scrape, so the rate windows see it.
      const healthy = ['ok-1', 'ok-2', 'ok-3'];
      await createFoos(healthy);
      assert.equal(await admissionReview(`https://${webhooks.address}/validate-foo`, certs.caCert, ns, 'healthy'), 200);
      makeGarbage();
      await waitScrapes(3);
      const errorsBefore = await p.query(`controller_runtime_reconcile_errors_total{job="${JOB}", controller="${CONTROLLER}"}`);
      assert.deepEqual(errorsBefore.result.map((s) => s.value[1]), ['0'], 'the reconcile error counter is there, at 0, before the first error');
      const healthyPanels = await checkPanels('healthy');
      const panels = healthyPanels.size;
      assert.ok(panels >= 40, `${panels} panel queries`);
      checkLeaderPanels('healthy', healthyPanels);

      // Phase 2: errors of every kind the dashboards and alerts watch.
      const broken = ['bad-1', 'bad-2', 'bad-3'];
      for (const n of broken) failing.add(n);
      await createFoos(broken);
      assert.equal(await admissionReview(`https://${webhooks.address}/validate-foo-broken`, certs.caCert, ns, 'broken'), 500);
      assert.equal(await admissionReview(`https://${webhooks.address}/validate-foo`, certs.caCert, ns, 'fine'), 200);
      // An aggregated API whose Service has no endpoints: the apiserver answers 503 (metrics-server down, say).
      const group = `${uniqueName('unavailable')}.prometheus.kubegen.dev`;
      await new ResourceClient<KubeObject>(env.transport, SERVICES, ns).create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'no-endpoints' }, spec: { ports: [{ port: 443 }] } } as KubeObject);
      const apiServices = new ResourceClient<KubeObject>(env.transport, APISERVICES);
      await apiServices.create({
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: `v1.${group}` },
        spec: { group, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: ns, name: 'no-endpoints', port: 443 } },
      } as KubeObject);
      cleanups.unshift(() => apiServices.delete(`v1.${group}`));
      const gone: ResourceInfo = { group, version: 'v1', resource: 'things', kind: 'Thing', listKind: 'ThingList', namespaced: true };
      const status = async (): Promise<number> => new ResourceClient<KubeObject>(env.transport, gone, ns).list().then(() => 200, (err: { code?: number }) => err.code ?? 0);
      await eventually('the aggregated API to answer 503', async () => ((await status()) === 503 ? true : undefined));
      // The first 503 made the code="503" series (client-go's counter has no series per code before one is seen):
      // a scrape first, so that rate() sees the next ones as an increase.
      await waitScrapes(1);
      // Enough of them that 5xx are over a fifth of the process's requests (the alert's threshold is 5%).
      const restRequests = async (): Promise<{ all: number; failed: number }> => {
        const samples = parsePrometheusText(await registry.metrics()).filter((x) => x.name === 'rest_client_requests_total');
        return { all: samples.reduce((n, x) => n + x.value, 0), failed: samples.filter((x) => /^5/.test(x.labels['code'] ?? '')).reduce((n, x) => n + x.value, 0) };
      };
      for (let i = 0, r = await restRequests(); r.failed < r.all / 5; i++, r = await restRequests()) {
        assert.ok(i < 2000, `5xx stay under a fifth of the requests: ${JSON.stringify(r)}`);
        assert.equal(await status(), 503);
      }
      makeGarbage();
      await waitScrapes(3);
      checkLeaderPanels('after errors', await checkPanels('after errors'));

      // Every alert expression: valid, and with its comparisons made `bool`, data for every condition to judge.
      const silent: string[] = [];
      for (const a of alerts) {
        const full = await p.query(a.expr).catch((err: Error) => assert.fail(`alert ${a.alert}: ${err.message}`));
        assert.equal(full.resultType, 'vector', a.alert);
        const judged = withBoolComparisons(a.expr);
        assert.notEqual(judged, a.expr, `${a.alert} compares`);
        const res = await p.query(judged);
        if (res.result.length === 0) silent.push(`${a.alert}: ${judged}`);
      }
      assert.deepEqual(silent, [], `alert conditions with nothing to judge:\n${silent.join('\n')}`);
      // Prometheus evaluates the rules itself: all healthy, and the error alerts pending (their `for` not yet over).
      const pending = ['ControllerReconcileErrorsHigh', 'ControllerRestClientErrorsHigh', 'ControllerWebhookErrorsHigh'];
      let states = await p.rules();
      const deadline = performance.now() + 20_000;
      while (!pending.every((n) => states.find((r) => r.name === n)?.state === 'pending') && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        states = await p.rules();
      }
      assert.deepEqual(states.filter((r) => pending.includes(r.name)).map((r) => `${r.name} ${r.state}`).sort(), pending.map((n) => `${n} pending`), JSON.stringify(states, null, 1));
      assert.deepEqual(states.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`), []);
      assert.deepEqual(states.map((r) => r.name).sort(), alerts.map((a) => a.alert).sort());
      assert.equal(states.find((r) => r.name === 'ControllerNoLeader')?.state, 'inactive', 'a leader is elected');
      t.diagnostic(`${panels} panel queries (x2 phases) and ${alerts.length} alert expressions evaluated by Prometheus; ${await scrapes()} scrapes`);
    } finally {
      stop.abort();
      await run;
      await prom?.stop();
      for (const c of cleanups) await c().catch(() => undefined);
    }
  });
});
