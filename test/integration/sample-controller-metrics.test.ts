/**
 * The running sample controller's `/metrics`, `/healthz` and `/readyz` (`--metrics-bind-address`,
 * `--health-probe-bind-address`): the workqueue series of the `Foos` queue and controller-runtime's reconcile series
 * move as Foos are synced (and fail); `/healthz` answers at once, `/readyz` only once the informer caches synced
 * (a controller whose apiserver is unreachable stays unready).
 * With `--metrics-secure` the same endpoint is HTTPS and refuses clients the apiserver does not authorize.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureSampleControllerBuilt, freePort, SampleControllerProcess, type LogLine } from './support/sample-controller-process.js';
import { eventually } from '../support/wait.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { scrape as scrapeTls } from '../support/scrape.js';
import { metricNames, monitoringQueries } from 'kubegen/internal/monitoring/index.js';

/** Value of the series `name` whose labels include all of `labels`; undefined when absent. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return parsePrometheusText(text).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}


const Q = { name: 'Foos' };
const C = { controller: 'sample-controller' };

describe('sample-controller metrics and health probes (envtest)', () => {
  let env: TestEnv;
  let ns: string;
  let kube: KubeClientset;
  let sample: Clientset;
  const procs: SampleControllerProcess[] = [];
  let tmp: string | undefined;

  before(async () => {
    ensureSampleControllerBuilt();
    env = await sharedEnv();
    ns = await env.newNamespace('sc-metrics');
    kube = new KubeClientset(env.transport);
    sample = new Clientset(env.transport);
  });

  after(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    await env?.release();
  });

  const createFoo = (name: string, deploymentName: string) =>
    sample.samplecontrollerV1alpha1.foos(ns).create({
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      metadata: { name },
      spec: { deploymentName, replicas: 1 },
    });
  const synced = (key: string) => (l: LogLine) => l.msg === 'Successfully synced' && l['resourceName'] === key;

  it('is live but not ready while its caches cannot sync', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sc-unreachable-'));
    const deadPort = await freePort();
    const kubeconfig = path.join(tmp, 'kubeconfig');
    fs.writeFileSync(kubeconfig, fs.readFileSync(env.kubeconfigPath, 'utf8').replace(/https:\/\/127\.0\.0\.1:\d+/g, `https://127.0.0.1:${deadPort}`));
    const probePort = await freePort();
    const p = new SampleControllerProcess('unreachable', [`--kubeconfig=${kubeconfig}`, `--namespace=${ns}`, `--health-probe-bind-address=127.0.0.1:${probePort}`]);
    procs.push(p);
    await p.waitForLog((l) => l.msg === 'serving health probes', 'the probe server');
    assert.equal((await fetch(`http://127.0.0.1:${probePort}/healthz`)).status, 200);
    // Give the informers time to fail a few list attempts: it must stay unready throughout.
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`http://127.0.0.1:${probePort}/readyz`);
      assert.notEqual(res.status, 200, `ready without a synced cache: ${await res.text()}`);
      await res.arrayBuffer().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
    }
    p.child.kill('SIGTERM');
    assert.deepEqual(await p.waitForExit(), { code: 0, signal: null }, p.tail());
  });

  it('serves moving workqueue and reconcile series, /healthz and /readyz once synced', async () => {
    const metricsPort = await freePort();
    const probePort = await freePort();
    const p = new SampleControllerProcess('metrics', [
      `--kubeconfig=${env.kubeconfigPath}`,
      `--namespace=${ns}`,
      '--workers=2',
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
    ]);
    procs.push(p);
    await p.waitForLog((l) => l.msg === 'serving health probes', 'the probe server');
    await eventually('/readyz 200', async () => ((await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200 ? true : undefined));
    assert.equal((await fetch(`http://127.0.0.1:${probePort}/healthz`)).status, 200);
    await p.waitForLog((l) => l.msg === 'Started workers', 'workers');
    const scrape = async (): Promise<string> => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      return res.text();
    };

    // The first scrape, before any Foo: every series the scaffold's dashboards chart is there (the reconcile
    // counters at 0, not "no data"), but the webhook and leader election series (this run has neither).
    const emptyText = await scrape();
    const empty = parsePrometheusText(emptyText);
    const charted = new Set(monitoringQueries().flatMap((q) => metricNames(q.expr)).filter((n) => !n.startsWith('controller_runtime_webhook_') && n !== 'leader_election_master_status'));
    // A histogram's samples are `<name>_bucket`, `_sum`, `_count`: a query may name either.
    const scraped = new Set(empty.flatMap((x) => [x.name, x.name.replace(/_(bucket|sum|count)$/, '')]));
    assert.deepEqual([...charted].filter((n) => !scraped.has(n)), [], 'series the dashboards chart, missing from the first scrape');
    assert.equal(series(emptyText, 'controller_runtime_reconcile_errors_total', C), 0);
    assert.equal(series(emptyText, 'controller_runtime_reconcile_total', { ...C, result: 'error' }), 0);

    await createFoo('m1', 'm1');
    await p.waitForLog(synced(`${ns}/m1`), 'sync of m1');
    const first = await scrape();
    const at = (text: string, name: string, labels: Record<string, string>): number => {
      const v = series(text, name, labels);
      assert.notEqual(v, undefined, `${name}${JSON.stringify(labels)} missing from /metrics:\n${text.slice(0, 3000)}`);
      return v!;
    };
    assert.ok(at(first, 'workqueue_adds_total', Q) >= 1);
    assert.ok(at(first, 'workqueue_depth', Q) >= 0);
    assert.ok(at(first, 'workqueue_work_duration_seconds_count', Q) >= 1);
    assert.ok(at(first, 'workqueue_queue_duration_seconds_count', Q) >= 1);
    assert.ok(at(first, 'controller_runtime_reconcile_total', { ...C, result: 'success' }) >= 1);
    assert.ok(at(first, 'controller_runtime_reconcile_time_seconds_count', C) >= 1);
    assert.equal(at(first, 'controller_runtime_max_concurrent_reconciles', C), 2);
    const active = at(first, 'controller_runtime_active_workers', C); // follow-up syncs (status write echo) may run
    assert.ok(active >= 0 && active <= 2, `active workers ${active}`);

    // Two more good Foos and one whose Deployment belongs to someone else (sync fails, is retried with backoff).
    await kube.appsV1.deployments(ns).create({
      metadata: { name: 'taken' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'other' } },
        template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    await createFoo('m2', 'm2');
    await createFoo('m3', 'm3');
    await createFoo('bad', 'taken');
    await p.waitForLog(synced(`${ns}/m2`), 'sync of m2');
    await p.waitForLog(synced(`${ns}/m3`), 'sync of m3');
    await p.waitForLog((l) => l.level === 'error' && l['resourceName'] === `${ns}/bad`, 'the failed sync of bad');
    const second = await scrape();
    const grew = (name: string, labels: Record<string, string>, by = 1): void => {
      const before = series(first, name, labels) ?? 0;
      const now = at(second, name, labels);
      assert.ok(now >= before + by, `${name}${JSON.stringify(labels)} went ${before} → ${now}, expected +${by}`);
    };
    grew('workqueue_adds_total', Q, 3);
    grew('workqueue_work_duration_seconds_count', Q, 3);
    grew('workqueue_retries_total', Q);
    grew('controller_runtime_reconcile_total', { ...C, result: 'success' }, 2);
    grew('controller_runtime_reconcile_total', { ...C, result: 'error' });
    grew('controller_runtime_reconcile_errors_total', C);
    grew('controller_runtime_reconcile_time_seconds_count', C, 3);

    p.child.kill('SIGTERM');
    assert.deepEqual(await p.waitForExit(), { code: 0, signal: null }, p.tail());
  });

  it('--metrics-secure: HTTPS with a self-signed certificate, 401 without a token, 200 for the admin', async () => {
    const metricsPort = await freePort();
    const p = new SampleControllerProcess('metrics-secure', [
      `--kubeconfig=${env.kubeconfigPath}`,
      `--namespace=${ns}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      '--metrics-secure',
    ]);
    procs.push(p);
    const listening = await p.waitForLog((l) => l.msg === 'serving metrics', 'the metrics server');
    assert.deepEqual([listening['secure'], listening['certificate'], listening['authorization']], [true, 'self-signed', true]);
    const address = `127.0.0.1:${metricsPort}`;
    const anonymous = await scrapeTls(address);
    assert.deepEqual([anonymous.status, anonymous.body], [401, 'Unauthorized\n']);
    await p.waitForLog((l) => l.msg === 'Started workers', 'workers'); // the controller series exist from then on
    const admin = await scrapeTls(address, { token: env.kubeConfig.getCurrentUser()?.token ?? '' });
    assert.equal(admin.status, 200, admin.body);
    assert.equal(admin.certificateCN, 'localhost');
    assert.match(admin.body, /^controller_runtime_max_concurrent_reconciles\{controller="sample-controller"\} 2$/m);
    p.child.kill('SIGTERM');
    assert.deepEqual(await p.waitForExit(), { code: 0, signal: null }, p.tail());
  });
});
