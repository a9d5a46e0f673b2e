/**
 * `npm run bench:metadata-informer [-- --objects=10000]`: the heap a shared informer's cache of N Deployments takes,
 * full objects against metadata only (`SharedInformerFactory.metadataInformerFor`, PartialObjectMetadata lists and
 * watches), each with and without `managedFields` (the `stripManagedFields()` transform; for the metadata informer,
 * its default, against `keepManagedFields: true`). One envtest (kube-apiserver 1.20); the
 * Deployments (nginx, one container with ports, resources and probes, as a typical workload) are created first;
 * then each informer syncs in a fresh process of its own (`--child`), and the heap growth after a full GC
 * (`--expose-gc`) is measured with the informer alive. Goal (issue 14): metadata only ≤ 40 % of the full informer's heap.
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { stripManagedFields } from '@kubegen/runtime/internal/cache/transform.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadRestConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';

const DEPLOYMENTS = builtinResources.deployments;

function deployment(i: number): KubeObject {
  const app = `web-${i}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app, labels: { app, tier: 'frontend', 'app.kubernetes.io/managed-by': 'bench' }, annotations: { 'bench.kubegen.dev/index': String(i) } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app, tier: 'frontend' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              ports: [{ name: 'http', containerPort: 80 }],
              env: [{ name: 'MODE', value: 'production' }],
              resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
              readinessProbe: { httpGet: { path: '/healthz', port: 80 }, periodSeconds: 10 },
            },
          ],
        },
      },
    },
  } as KubeObject;
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('run with node --expose-gc');
  g();
  g();
}

/** One informer sync, in this process (the `--child` run): prints `{ seconds, heapMB }` as JSON. */
async function child(kubeconfig: string, ns: string, objects: number, metadataOnly: boolean, strip: boolean): Promise<void> {
  const transport = new HttpTransport(loadRestConfig({ kubeconfig }));
  gc();
  const before = process.memoryUsage().heapUsed;
  const factory = new SharedInformerFactory(transport, { namespace: ns, logger: nullLogger, ...(strip ? { transform: stripManagedFields() } : {}) });
  // Metadata only keeps managedFields here unless asked to strip them, so that the four rows compare like with like.
  const informer = metadataOnly ? factory.metadataInformerFor(DEPLOYMENTS, { keepManagedFields: !strip }) : factory.informerFor(DEPLOYMENTS);
  const t0 = performance.now();
  factory.start();
  await factory.waitForCacheSync({ timeoutMs: 300_000 });
  const seconds = (performance.now() - t0) / 1000;
  if (informer.getIndexer().size !== objects) throw new Error(`synced ${informer.getIndexer().size} objects, expected ${objects}`);
  gc();
  const heapMB = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
  process.stdout.write(`${JSON.stringify({ seconds, heapMB })}\n`);
  await factory.shutdown();
  transport.close();
}

/** Runs {@link child} in a fresh process, so that no earlier cache is still on the heap. */
async function measure(kubeconfig: string, ns: string, objects: number, metadataOnly: boolean, strip: boolean): Promise<{ seconds: number; heapMB: number }> {
  const args = ['--conditions=kubegen-internal', '--expose-gc', fileURLToPath(import.meta.url), '--child', `--kubeconfig=${kubeconfig}`, `--ns=${ns}`, `--objects=${objects}`];
  if (metadataOnly) args.push('--metadata');
  if (strip) args.push('--strip');
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { seconds: number; heapMB: number };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      objects: { type: 'string', default: '10000' },
      child: { type: 'boolean', default: false },
      kubeconfig: { type: 'string' },
      ns: { type: 'string' },
      metadata: { type: 'boolean', default: false },
      strip: { type: 'boolean', default: false },
    },
  });
  const objects = Number(values.objects);
  if (values.child) return child(values.kubeconfig!, values.ns!, objects, values.metadata, values.strip);
  const env = await Envtest.start({ attachOutput: false });
  try {
    const admin = env.transport({ timeoutMs: 60_000 });
    const ns = await createTestNamespace(admin, 'bench-meta');
    const client = new ResourceClient<KubeObject>(admin, DEPLOYMENTS, ns);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < objects) await client.create(deployment(next++));
    }));
    process.stderr.write(`created ${objects} Deployments in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const rows: { name: string; seconds: number; heapMB: number }[] = [];
    for (const [name, metadataOnly, strip] of [
      ['full', false, false],
      ['full, stripManagedFields', false, true],
      ['metadata only', true, false],
      ['metadata only, no managedFields *', true, true],
    ] as const) {
      rows.push({ name, ...(await measure(env.kubeconfigPath, ns, objects, metadataOnly, strip)) });
    }
    console.log(`informer cache of ${objects} Deployments (kube-apiserver 1.20), heap growth after GC with the informer alive`);
    console.log('informer                              sync s    heap MB   bytes/object   vs full');
    const full = rows[0]!.heapMB;
    for (const r of rows) {
      console.log(`${r.name.padEnd(36)} ${r.seconds.toFixed(2).padStart(8)} ${r.heapMB.toFixed(1).padStart(10)} ${String(Math.round((r.heapMB * 1024 * 1024) / objects)).padStart(14)} ${`${((100 * r.heapMB) / full).toFixed(0)} %`.padStart(9)}`);
    }
    const ratio = rows[3]!.heapMB / full;
    console.log('* the default of metadataInformerFor (keepManagedFields: false)');
    console.log(`metadata informer (default) / full informer: ${(ratio * 100).toFixed(0)} % (goal <= 40 %: ${ratio <= 0.4 ? 'met' : 'NOT met'})`);
    admin.close();
  } finally {
    await env.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
