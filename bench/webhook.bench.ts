/**
 * `npm run bench:webhook` (issue 11): what a validating webhook costs. A control plane of its own (envtest), the
 * two-version Foo of fixtures/test-crds, and a WebhookServer in this process with a validating webhook on Foo
 * creates. N Foos are created through the apiserver with C requests in flight, once with the webhook installed and
 * once without; printed: creates/s, p50/p99 create latency for both, the webhook's added latency, and the
 * admission requests/s the server answered. Figures only (nothing asserted); BENCH_FOOS / BENCH_CONCURRENCY.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { installWebhooks, waitForWebhook } from '@kubegen/runtime/internal/testing/envtest/envtest-webhooks.js';
import { generateServingCertificate, writeServingCertificate } from '@kubegen/runtime/internal/certs/self-signed.js';
import { validatingWebhook } from '@kubegen/runtime/internal/webhook/admission.js';
import { WebhookServer } from '@kubegen/runtime/internal/webhook/server.js';
import { forEachConcurrently } from './support/concurrently.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const N = Number(process.env['BENCH_FOOS'] ?? 1000);
const C = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const FOO: ResourceInfo = { group: 'webhooks.kubegen.dev', version: 'v1alpha1', resource: 'foos', kind: 'Foo', listKind: 'FooList', namespaced: true };

interface Run {
  seconds: number;
  latenciesMs: number[];
}

async function createAll(client: ResourceClient<KubeObject>, prefix: string): Promise<Run> {
  const latenciesMs: number[] = [];
  const start = performance.now();
  await forEachConcurrently(N, C, async (i) => {
    const t = performance.now();
    await client.create({ apiVersion: 'webhooks.kubegen.dev/v1alpha1', kind: 'Foo', metadata: { name: `${prefix}-${i}` }, spec: { deploymentName: `d-${i}`, replicas: 1 } } as KubeObject);
    latenciesMs.push(performance.now() - t);
  });
  return { seconds: (performance.now() - start) / 1000, latenciesMs: latenciesMs.sort((a, b) => a - b) };
}

const pct = (xs: number[], p: number): number => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main(): Promise<void> {
  const env = await Envtest.start({ crdPaths: [path.join(repo, 'fixtures/test-crds/foos.webhooks.kubegen.dev.yaml')] });
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhook-'));
  const transport = new HttpTransport(env.kubeConfig);
  const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir, logger: nullLogger });
  try {
    const certs = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    await writeServingCertificate(certDir, certs);
    server.register('/validate-foo', validatingWebhook<KubeObject & { spec?: { deploymentName?: string } }>({
      validateCreate(foo) {
        if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(foo.spec?.deploymentName ?? '')) throw new Error('spec.deploymentName must be a DNS-1123 label');
      },
    }));
    const url = `https://${await server.listen()}`;
    const ns = await createTestNamespace(transport, 'bench-webhook');
    const client = new ResourceClient<KubeObject>(transport, FOO, ns);
    await createAll(client, 'warmup').catch(() => undefined); // connections, apiserver caches
    const off = await createAll(client, 'off');

    const uninstall = await installWebhooks(transport, {
      url,
      caCert: certs.caCert,
      configurations: [{
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'bench-foo-validator' },
        webhooks: [{
          name: 'vfoo.webhooks.kubegen.dev', sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail',
          clientConfig: { service: { name: 'x', namespace: 'x', path: '/validate-foo' } },
          rules: [{ apiGroups: ['webhooks.kubegen.dev'], apiVersions: ['v1alpha1'], operations: ['CREATE'], resources: ['foos'] }],
        }],
      }],
    });
    await waitForWebhook(server, '/validate-foo', () => client.create({ apiVersion: 'webhooks.kubegen.dev/v1alpha1', kind: 'Foo', metadata: { name: 'probe' }, spec: { deploymentName: 'p' } } as KubeObject, { dryRun: true }));
    const served = server.served('/validate-foo');
    const on = await createAll(client, 'on');
    const admissions = server.served('/validate-foo') - served;
    await uninstall();

    const row = (label: string, r: Run): string =>
      `${label.padEnd(12)} ${(N / r.seconds).toFixed(0).padStart(6)} creates/s   p50 ${pct(r.latenciesMs, 50).toFixed(1).padStart(6)} ms   p99 ${pct(r.latenciesMs, 99).toFixed(1).padStart(6)} ms`;
    console.log(`${N} Foo creates through kube-apiserver (envtest), ${C} in flight`);
    console.log(row('webhook off', off));
    console.log(row('webhook on', on));
    console.log(`admission requests answered: ${admissions} (${(admissions / on.seconds).toFixed(0)}/s)`);
    console.log(`added by the webhook: p50 +${(pct(on.latenciesMs, 50) - pct(off.latenciesMs, 50)).toFixed(1)} ms, p99 +${(pct(on.latenciesMs, 99) - pct(off.latenciesMs, 99)).toFixed(1)} ms; throughput ratio on/off ${(off.seconds / on.seconds).toFixed(2)}`);
  } finally {
    await server.close();
    transport.close();
    await env.stop();
    fs.rmSync(certDir, { recursive: true, force: true });
  }
}

await main();
