/**
 * The load harness's parts that need no control plane: request classification, Prometheus text and quantiles,
 * templates and placeholders, the report's table and plot, and the fault proxy in front of a plain local HTTPS
 * server (its faults: latency, silent watches, dropped connections, its token check). The whole harness against
 * envtest and the sample controllers is test/integration/loadtest.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateServingCertificate } from '@kubegen/runtime/internal/certs/self-signed.js';
import { FaultProxy } from '@kubegen/runtime/internal/testing/loadtest/fault-proxy.js';
import { observedGenerationCheck, parseObjectTemplate, renderChurnPatch, renderPlaceholders } from '@kubegen/runtime/internal/testing/loadtest/load-objects.js';
import { histogramBuckets, histogramQuantile, parsePrometheusText, sumOf } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { MetricsReader } from '@kubegen/runtime/internal/testing/loadtest/metrics-reader.js';
import { formatReport, plotSvg, type LoadTestReport } from '@kubegen/runtime/internal/testing/loadtest/report.js';
import { classifyRequest } from '@kubegen/runtime/internal/testing/loadtest/request-verbs.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { runCli } from '../support/cli.js';

describe('classifyRequest', () => {
  const cases: [string, string, string, string][] = [
    ['GET', '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos', 'list', 'foos.samplecontroller.k8s.io'],
    ['GET', '/apis/samplecontroller.k8s.io/v1alpha1/foos?watch=true&resourceVersion=5', 'watch', 'foos.samplecontroller.k8s.io'],
    ['GET', '/apis/apps/v1/watch/namespaces/ns/deployments', 'watch', 'deployments.apps'],
    ['GET', '/apis/apps/v1/namespaces/ns/deployments/d1', 'get', 'deployments.apps'],
    ['PUT', '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/f/status', 'update', 'foos.samplecontroller.k8s.io/status'],
    ['POST', '/api/v1/namespaces/ns/events', 'create', 'events'],
    ['PATCH', '/api/v1/namespaces/ns/configmaps/c', 'patch', 'configmaps'],
    ['DELETE', '/api/v1/namespaces/ns/pods', 'deletecollection', 'pods'],
    ['DELETE', '/api/v1/namespaces/ns', 'delete', 'namespaces'],
    ['GET', '/api/v1/namespaces', 'list', 'namespaces'],
    ['GET', '/version', 'get', '/version'],
  ];
  for (const [method, url, verb, resource] of cases) {
    it(`${method} ${url} is ${verb} ${resource}`, () => assert.deepEqual(classifyRequest(method, url), { verb, resource }));
  }
  it('a PATCH with the apply content type is apply', () => {
    assert.equal(classifyRequest('PATCH', '/api/v1/namespaces/n/configmaps/c', 'application/apply-patch+yaml').verb, 'apply');
  });
});

describe('Prometheus text and histogram_quantile', () => {
  const text = [
    '# HELP workqueue_depth Current depth of workqueue',
    '# TYPE workqueue_depth gauge',
    'workqueue_depth{name="a"} 3',
    'workqueue_depth{name="b \\"quoted\\""} 4',
    'controller_runtime_reconcile_time_seconds_bucket{controller="c",le="0.1"} 50',
    'controller_runtime_reconcile_time_seconds_bucket{controller="c",le="0.2"} 90',
    'controller_runtime_reconcile_time_seconds_bucket{controller="c",le="+Inf"} 100',
    'controller_runtime_reconcile_total{controller="c",result="success"} 95',
    'controller_runtime_reconcile_errors_total{controller="c"} 5',
    'not a sample line',
  ].join('\n');
  const samples = parsePrometheusText(text);

  it('reads names, labels (with escapes) and values, skipping comments and junk', () => {
    assert.equal(samples.length, 7);
    assert.equal(samples[1]!.labels['name'], 'b "quoted"');
    assert.equal(sumOf(samples, 'workqueue_depth'), 7);
    assert.equal(sumOf(samples, 'missing'), undefined);
  });

  it('interpolates quantiles inside buckets as Prometheus does', () => {
    const buckets = histogramBuckets(samples, 'controller_runtime_reconcile_time_seconds');
    assert.deepEqual(buckets, [[0.1, 50], [0.2, 90], [Infinity, 100]]);
    assert.equal(histogramQuantile(0.5, buckets), 0.1);
    assert.ok(Math.abs(histogramQuantile(0.7, buckets)! - 0.15) < 1e-9);
    assert.equal(histogramQuantile(0.99, buckets), 0.2, 'a rank in +Inf is the highest finite bound');
    assert.equal(histogramQuantile(0.5, []), undefined);
  });

  it('summarises reconciles between two scrapes', () => {
    const before = parsePrometheusText('controller_runtime_reconcile_total{controller="c"} 45\ncontroller_runtime_reconcile_time_seconds_bucket{le="0.1"} 40\ncontroller_runtime_reconcile_time_seconds_bucket{le="0.2"} 45\ncontroller_runtime_reconcile_time_seconds_bucket{le="+Inf"} 45');
    const s = MetricsReader.reconcileSummary(samples, before);
    assert.equal(s.total, 50);
    assert.equal(s.errors, 5);
    assert.equal(s.errorRate, 0.1);
    // Interval buckets: 10 in (0, 0.1], 35 in (0.1, 0.2], 10 above; rank 27.5 of 55 falls 17.5/35 into the second.
    assert.ok(Math.abs(s.p50! - 0.15) < 1e-9, String(s.p50));
  });
});

describe('templates, placeholders and churn patches', () => {
  it('renders each object with its own name and index, in the namespace', () => {
    const t = parseObjectTemplate('apiVersion: x.io/v1\nkind: Foo\nmetadata:\n  name: foo\n  labels: {i: "{{i}}"}\nspec:\n  deploymentName: "{{name}}"\n  replicas: {{random 2 2}}\n', 'foo.yaml');
    assert.equal(t.baseName, 'foo');
    const o = t.render(7, 'ns1') as KubeObject & { spec: { deploymentName: string; replicas: number } };
    assert.deepEqual(o.metadata, { name: 'foo-7', namespace: 'ns1', labels: { i: '7' } });
    assert.equal(o.spec.deploymentName, 'foo-7');
    assert.equal(o.spec.replicas, 2, 'a number outside quotes stays a number');
  });

  it('takes the kind as the name prefix when the template has no name, and generateName without its dash', () => {
    assert.equal(parseObjectTemplate('apiVersion: v1\nkind: ConfigMap\n', 'cm.yaml').baseName, 'configmap');
    assert.equal(parseObjectTemplate('apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: cfg-}\n', 'cm.yaml').render(1, 'n').metadata?.name, 'cfg-1');
  });

  it('refuses unknown placeholders, non-objects and missing kinds, naming the file', () => {
    assert.throws(() => renderPlaceholders('{{nmae}}', { name: 'a' }, 'f.yaml'), /f\.yaml: unknown placeholder \{\{nmae\}\} \(known here: \{\{name\}\}/);
    assert.throws(() => renderPlaceholders('{{random 5 1}}', {}, 'f.yaml'), /unknown placeholder \{\{random 5 1\}\}/);
    assert.throws(() => parseObjectTemplate('- a\n- b\n', 'list.yaml'), /list\.yaml: expected one object/);
    assert.throws(() => parseObjectTemplate('apiVersion: v1\n', 'nokind.yaml'), /nokind\.yaml: the template has no kind/);
    assert.throws(() => parseObjectTemplate('a: [', 'bad.yaml'), /^Error: bad\.yaml: /);
  });

  it('renders churn patches per sequence number and rejects what is not a JSON object', () => {
    assert.deepEqual(renderChurnPatch('{"spec":{"n":{{seq}}},"metadata":{"annotations":{"a":"{{seq}}"}}}', { seq: 4 }, 'p'), { spec: { n: 4 }, metadata: { annotations: { a: '4' } } });
    assert.throws(() => renderChurnPatch('[1]', {}, '--churn-patch'), /--churn-patch: a merge patch must be a JSON object/);
    assert.throws(() => renderChurnPatch('{"a": {{seq}', { seq: 1 }, '--churn-patch'), /--churn-patch: not JSON/);
  });

  it('the default check waits for status.observedGeneration, else a Ready condition, to reach metadata.generation', async () => {
    const o = (name: string, generation: number, status?: object): KubeObject => ({ metadata: { name, generation }, ...(status ? { status } : {}) }) as KubeObject;
    const ready = (status: string, observedGeneration?: number) => ({ conditions: [{ type: 'Ready', status, ...(observedGeneration !== undefined ? { observedGeneration } : {}) }] });
    const left = await observedGenerationCheck(
      [
        o('a', 2, { observedGeneration: 2 }),
        o('b', 3, { observedGeneration: 2 }),
        o('c', 1),
        o('d', 2, ready('True', 2)),
        o('e', 2, ready('True', 1)),
        o('f', 2, ready('False', 2)),
        o('g', 2, ready('True')),
        o('h', 2, { observedGeneration: 1, ...ready('True', 2) }),
      ],
      undefined as never,
    );
    assert.deepEqual(left, ['b', 'c', 'e', 'f', 'g', 'h']);
  });
});

function report(events: { t: number; event: string }[]): LoadTestReport {
  return {
    kind: { apiVersion: 'x.io/v1', kind: 'Foo', resource: 'foos' },
    controlPlane: 'envtest full',
    namespace: 'ns',
    objects: 10,
    churnPerSecond: 2,
    durationSeconds: 5,
    faults: { events },
    phases: { create: { seconds: 1 }, converge: { seconds: 2, left: 0 }, churn: { seconds: 5, patches: 10, patchErrors: 1 }, reconverge: { seconds: 1, left: 1 }, delete: { seconds: 1, left: 0 } },
    unreconciled: 1,
    unreconciledNames: ['foo-3'],
    reconcile: { total: 20, errors: 1, errorRate: 0.05, p50: 0.01, p90: 0.02, p99: 0.05 },
    maxQueueDepth: 4,
    maxPodsRunning: null,
    controller: { command: ['node', 'main.js'], exit: 0, exitedEarly: false, cpuSeconds: 1.5, peakRssMB: 80, logFile: 'c.log' },
    apiRequests: { byVerb: { list: 2, watch: 3 }, byResource: {} },
    samples: [
      { t: 1, unconverged: 10, queueDepth: 4, rssMB: 70, cpuSeconds: 0.5 },
      { t: 2, unconverged: null, queueDepth: null, rssMB: 80, cpuSeconds: 1 },
      { t: 3, unconverged: 0, queueDepth: 0, rssMB: 75, cpuSeconds: 1.5 },
    ],
    totalSeconds: 10,
  };
}

describe('report table and plot', () => {
  it('prints the phases, latency, resources, verbs and what is left unreconciled', () => {
    const text = formatReport(report([{ t: 3, event: 'apiserver killed' }]));
    assert.match(text, /10 Foo \(x\.io\/v1\) on envtest full, churn 2\/s for 5 s/);
    assert.match(text, /3 s apiserver killed/);
    assert.match(text, /reconverge\s+1\.0\s+1/);
    assert.match(text, /latency p50 10\.0 ms, p90 20\.0 ms, p99 50\.0 ms/);
    assert.match(text, /CPU 1\.50 s, peak RSS 80\.0 MB/);
    assert.match(text, /API requests by verb: list 2, watch 3/);
    assert.match(text, /unreconciled at the end: 1 \(foo-3\)/);
  });

  it('plots three panels, skips unknown points, marks faults, and escapes the text it shows', () => {
    const svg = plotSvg(report([{ t: 3, event: 'restart <script>&' }]));
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal((svg.match(/<polyline /g) ?? []).length, 3);
    assert.equal((svg.match(/stroke-dasharray/g) ?? []).length, 3, 'the fault is marked in each panel');
    assert.ok(!svg.includes('<script>'), 'event text is escaped');
    assert.match(svg, /restart &#60;script&#62;&#38;/);
    const unconverged = /<polyline fill="none" stroke="#d62728"[^>]*points="([^"]*)"/.exec(svg)![1]!.split(' ');
    assert.equal(unconverged.length, 2, 'the sample with an unknown value is left out');
    assert.doesNotMatch(formatReport(report([])), /pods running/, 'no Pods line where Pods do not run');
  });

  it('where Pods run (envtest cluster), prints their peak and last count and plots them in a fourth panel', () => {
    const r = report([]);
    r.controlPlane = 'envtest cluster, 2 hollow nodes';
    r.samples = r.samples.map((s, i) => ({ ...s, podsRunning: [0, 3, 2][i]! }));
    r.maxPodsRunning = 3;
    assert.match(formatReport(r), /\npods running: max 3, 2 at the end\n/);
    const svg = plotSvg(r);
    assert.equal((svg.match(/<polyline /g) ?? []).length, 4);
    assert.match(svg, /Pods Running in the namespace \(max 3\)/);
  });
});

describe('FaultProxy in front of an HTTPS server', () => {
  let upstream: https.Server;
  let proxy: FaultProxy;
  const seen: string[] = [];
  before(async () => {
    const cert = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    upstream = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        let n = 0;
        const timer = setInterval(() => res.write(`{"type":"ADDED","object":{"n":${n++}}}\n`), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"kind":"FooList","items":[]}');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const port = (upstream.address() as { port: number }).port;
    proxy = await FaultProxy.start({ upstream: { server: `https://127.0.0.1:${port}`, caData: cert.caCert, token: 'upstream-secret' } });
  });
  after(async () => {
    await proxy.close();
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });

  const request = (path: string, token = proxy.token, onData?: (chunk: string, req: import('node:http').ClientRequest) => void): Promise<{ status: number; body: string; error?: string }> =>
    new Promise((resolve) => {
      const req = https.get(`${proxy.url}${path}`, { ca: proxy.caCert, headers: { Authorization: `Bearer ${token}` }, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
          onData?.(c.toString(), req);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (err) => resolve({ status: res.statusCode ?? 0, body, error: err.message }));
        res.on('aborted', () => resolve({ status: res.statusCode ?? 0, body, error: 'aborted' }));
      });
      req.on('error', (err) => resolve({ status: 0, body: '', error: err.message }));
    });

  it('forwards with the upstream credentials, verifies its own token, and counts verbs', async () => {
    const ok = await request('/apis/x.io/v1/namespaces/n/foos');
    assert.equal(ok.status, 200);
    assert.match(seen.at(-1)!, /GET \/apis\/x\.io\/v1\/namespaces\/n\/foos Bearer upstream-secret/);
    assert.equal((await request('/apis/x.io/v1/foos', 'wrong')).status, 401);
    assert.equal(proxy.counts.byVerb['list'], 1, 'a refused request is not forwarded nor counted');
    assert.equal(proxy.counts.byResource['list foos.x.io'], 1);
  });

  it('adds latency to each request', async () => {
    proxy.latencyMs = 300;
    const started = Date.now();
    await request('/apis/x.io/v1/namespaces/n/foos');
    proxy.latencyMs = 0;
    assert.ok(Date.now() - started >= 290, `took ${Date.now() - started} ms`);
  });

  it('makes a watch silent while frozen, then resets its connection', async () => {
    let chunksWhileFrozen = 0;
    let frozeAt = 0;
    const result = await request('/apis/x.io/v1/foos?watch=true', proxy.token, () => {
      if (frozeAt === 0) {
        frozeAt = Date.now();
        proxy.freezeWatches(500);
      } else if (Date.now() - frozeAt < 450) chunksWhileFrozen++;
    });
    assert.equal(chunksWhileFrozen, 0, 'nothing passes while frozen (the upstream writes every 50 ms)');
    assert.ok(result.error !== undefined, 'the connection is reset when the freeze ends');
    assert.ok(Date.now() - frozeAt >= 450);
    assert.equal(proxy.frozen, false);
  });

  it('drops open connections on demand', async () => {
    const result = await request('/apis/x.io/v1/foos?watch=true', proxy.token, () => void proxy.dropConnections());
    assert.ok(result.error !== undefined, 'the watch was cut');
    assert.equal((await request('/apis/x.io/v1/namespaces/n/foos')).status, 200, 'new connections work');
  });

  it('writes a kubeconfig with its CA and token', () => {
    const kc = JSON.parse(proxy.kubeconfig('n1')) as { clusters: { cluster: Record<string, string> }[]; users: { user: { token: string } }[]; contexts: { context: { namespace: string } }[] };
    assert.equal(kc.clusters[0]!.cluster['server'], proxy.url);
    assert.equal(Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString(), proxy.caCert);
    assert.equal(kc.users[0]!.user.token, proxy.token);
    assert.equal(kc.contexts[0]!.context.namespace, 'n1');
  });
});

describe('kubegen loadtest: bad command lines fail before anything starts', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-loadtest-cli-'));
    fs.writeFileSync(path.join(dir, 'bad.yaml'), 'apiVersion: x.io/v1\nkind: Foo\nspec:\n  n: {{nmae}}\n');
    fs.writeFileSync(path.join(dir, 'ok.yaml'), 'apiVersion: x.io/v1\nkind: Foo\n');
    fs.writeFileSync(path.join(dir, 'check.mjs'), 'export const nothing = 1;\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the template file and the unknown placeholder (exit 1), writing no report folder', async () => {
    const r = await runCli(dir, 'loadtest', '--template', 'bad.yaml', '--count', '3', '--out', 'rep', '--', 'true');
    assert.equal(r.code, 1);
    assert.match(r.err, /bad\.yaml: unknown placeholder \{\{nmae\}\}/);
    assert.equal(fs.existsSync(path.join(dir, 'rep')), false);
  });

  it('refuses a check module without the function, --envtest with --kubeconfig, --nodes without --envtest cluster, and a bad --count', async () => {
    const check = await runCli(dir, 'loadtest', '--template', 'ok.yaml', '--count', '1', '--check', 'check.mjs', '--', 'true');
    assert.equal(check.code, 1);
    assert.match(check.err, /check\.mjs: exports no function unconverged\(objects, ctx\)/);
    const both = await runCli(dir, 'loadtest', '--envtest', '--kubeconfig', 'k', '--template', 'ok.yaml', '--count', '1', '--', 'true');
    assert.equal(both.code, 1);
    assert.match(both.err, /--envtest and --kubeconfig exclude each other/);
    for (const flags of [['--nodes', '2'], ['--envtest', 'full', '--nodes', '2'], ['--kubeconfig', 'k', '--nodes', '1']]) {
      const nodes = await runCli(dir, 'loadtest', ...flags, '--template', 'ok.yaml', '--count', '1', '--out', 'rep', '--', 'true');
      assert.equal(nodes.code, 1, flags.join(' '));
      assert.match(nodes.err, /--nodes needs --envtest cluster/);
      assert.equal(fs.existsSync(path.join(dir, 'rep')), false);
    }
    const count = await runCli(dir, 'loadtest', '--template', 'ok.yaml', '--count', 'many', '--', 'true');
    assert.equal(count.code, 2);
    assert.match(count.err, /--count <n>' argument 'many' is invalid\. expected a number >= 0/);
    const patch = await runCli(dir, 'loadtest', '--template', 'ok.yaml', '--count', '1', '--churn-patch', '[1]', '--kubeconfig', 'missing', '--', 'true');
    assert.equal(patch.code, 1);
    assert.match(patch.err, /churn patch: a merge patch must be a JSON object/);
  });
});
