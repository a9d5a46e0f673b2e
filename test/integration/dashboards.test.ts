/**
 * The Grafana dashboards and the PrometheusRule only name series a kubegen manager exports (issue 13): a Manager
 * against the envtest apiserver — leader election on, a controller built with the builder whose first reconcile
 * of each Foo fails, a WebhookServer whose handler is called once — serves /metrics; every metric name of every
 * panel query, variable and alert rule must be among the sample names scraped (histograms' `_bucket`, `_sum` and
 * `_count` samples included).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import {
  generateServingCertificate, validatingWebhook, WebhookServer, writeServingCertificate,
} from '@kubegen/runtime/webhook';
import { metricNames, monitoringQueries, unknownMetrics } from 'kubegen/internal/monitoring/index.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { FOO } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { eventually } from '../support/wait.js';

/** The sample names of a Prometheus text exposition (`name{labels} value`), e.g. `workqueue_depth`, `x_bucket`. */
function sampleNames(text: string): Set<string> {
  return new Set(parsePrometheusText(text).map((s) => s.name));
}

/** POSTs an AdmissionReview for a Foo to `url` over TLS trusting `ca`; resolves with the HTTP status. */
function admissionReview(url: string, ca: string, ns: string): Promise<number> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'dashboards-1',
      kind: { group: FOO.group, version: FOO.version, kind: FOO.kind },
      resource: { group: FOO.group, version: FOO.version, resource: FOO.resource },
      operation: 'CREATE',
      namespace: ns,
      name: 'reviewed',
      userInfo: { username: 'test' },
      object: { apiVersion: `${FOO.group}/${FOO.version}`, kind: FOO.kind, metadata: { name: 'reviewed', namespace: ns }, spec: { deploymentName: 'd', replicas: 1 } },
    },
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

describe('Grafana dashboards and alerts against a running manager (envtest)', () => {
  let env: TestEnv;
  let certDir: string;
  before(async () => {
    env = await sharedEnv();
    certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-dashboards-certs-'));
  });
  after(async () => {
    fs.rmSync(certDir, { recursive: true, force: true });
    await env?.release();
  });

  it('every metric a panel, variable or alert names is exported', async () => {
    const ns = await env.newNamespace('dashboards');
    const registry = new Registry();
    const certs = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    await writeServingCertificate(certDir, certs);
    let validated = 0;
    const webhooks = new WebhookServer({ host: '127.0.0.1', port: 0, certDir, logger: nullLogger, registry });
    webhooks.register('/validate-foo', validatingWebhook<KubeObject>({ validateCreate: () => void validated++ }));
    const mgr = new Manager({
      transport: env.transport,
      namespace: ns,
      metricsBindAddress: '127.0.0.1:0',
      registry,
      logger: nullLogger,
      leaderElection: true,
      leaderElectionId: 'dashboards-test',
      leaderElectionNamespace: ns,
      webhookServer: webhooks,
    });
    const failedOnce = new Set<string>();
    const reconciled = new Set<string>();
    controllerFor(mgr, FOO)
      .named('dashboards-foo')
      .complete(async (req) => {
        // The first reconcile of each Foo fails: reconcile errors and workqueue retries get series.
        if (!failedOnce.has(req.name)) {
          failedOnce.add(req.name);
          throw new Error(`first reconcile of ${req.name} fails on purpose`);
        }
        reconciled.add(req.name);
      });
    const foos = new ResourceClient<KubeObject>(env.transport, FOO, ns);
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      for (const name of ['a', 'b']) {
        await foos.create({ apiVersion: `${FOO.group}/${FOO.version}`, kind: FOO.kind, metadata: { name }, spec: { deploymentName: name, replicas: 1 } } as KubeObject);
      }
      await eventually('both Foos reconciled after their failure', async () => (reconciled.size === 2 ? true : undefined));
      assert.equal(await admissionReview(`https://${webhooks.address}/validate-foo`, certs.caCert, ns), 200);
      assert.equal(validated, 1);

      const scrape = async (): Promise<string> => (await fetch(`http://${mgr.metricsAddress}/metrics`)).text();
      const text = await eventually('a garbage collection observed (nodejs_gc_duration_seconds)', async () => {
        // Garbage for the collector: prom-client observes GCs as they happen.
        let junk: number[][] = [];
        for (let i = 0; i < 2000; i++) junk.push(new Array(1000).fill(i));
        junk = [];
        const t = await scrape();
        return sampleNames(t).has('nodejs_gc_duration_seconds_count') && junk.length === 0 ? t : undefined;
      });
      const scraped = sampleNames(text);
      assert.match(text, /^leader_election_master_status\{name="dashboards-test"\} 1$/m, 'this manager leads');
      assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="dashboards-foo"\} [1-9]/m);
      assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/validate-foo",code="200"\} 1$/m);

      const queries = monitoringQueries('dashboards');
      assert.ok(queries.length >= 50, `${queries.length} queries`);
      const referenced = new Set(queries.flatMap((q) => metricNames(q.expr)));
      assert.ok(referenced.size >= 25, [...referenced].join(', '));
      const missing = unknownMetrics(queries, scraped);
      assert.deepEqual(
        missing.map((m) => `${m.where}: ${m.metric}`),
        [],
        `metrics named by the dashboards or alerts but not exported:\n${missing.map((m) => `  ${m.where}: ${m.metric} in ${m.expr}`).join('\n')}`,
      );
      // The check has teeth: a misspelt name in the same kind of query is caught against this scrape.
      assert.deepEqual(unknownMetrics([{ where: 'typo', expr: 'sum(rate(workqueue_add_total[5m]))' }], scraped).map((m) => m.metric), ['workqueue_add_total']);
    } finally {
      stop.abort();
      await run;
    }
  });
});
