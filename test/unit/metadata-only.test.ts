/**
 * Metadata-only reads (issue 14, leaner caches): the `Accept` header the HTTP transport sends for them, the fake
 * answering as the apiserver does, `ResourceClient({ readAs: 'metadata' })` giving the kind's own apiVersion/kind,
 * the factory's metadata informers (a cache of metadata only, separate from the full one), and the builder's
 * `owns(..., { metadataOnly: true })` with the manager client's `metadata()` reads. Against a real apiserver:
 * test/integration/metadata-only.test.ts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { fooResource } from '../../test/golden/sample-controller/samplecontroller.k8s.io/v1alpha1/register.js';
import { settle } from '../support/wait.js';

const DEPLOYMENTS = builtinResources.deployments;
const deployment = (name: string, owner?: string): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'ns',
      labels: { app: name },
      ...(owner ? { ownerReferences: [{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: owner, uid: `u-${owner}`, controller: true }] } : {}),
    },
    spec: { replicas: 3, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  }) as KubeObject;
const foo = (name: string): KubeObject => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name, namespace: 'ns', uid: `u-${name}` }, spec: { deploymentName: name } }) as KubeObject;

describe('HttpTransport: the Accept header of metadata-only reads', () => {
  let server: http.Server;
  const accepts: string[] = [];
  let transport: HttpTransport;
  before(async () => {
    server = http.createServer((req, res) => {
      accepts.push(`${req.method} ${req.url?.split('?')[0]} ${req.headers.accept}`);
      const watch = req.url?.includes('watch=true');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (watch) res.end(`${JSON.stringify({ type: 'ADDED', object: { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'w' } } })}\n`);
      else if (req.method === 'GET' && req.url?.includes('/deployments/')) res.end(JSON.stringify({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'd' } }));
      else res.end(JSON.stringify({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList', metadata: {}, items: [{ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'd' } }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    transport = new HttpTransport({ server: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
  });
  after(async () => {
    transport.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('asks for PartialObjectMetadata(List) on get, list and watch, and plain JSON for writes and full reads', async () => {
    const meta = new ResourceClient<KubeObject>(transport, DEPLOYMENTS, 'ns', { readAs: 'metadata' });
    const got = await meta.get('d');
    const listed = await meta.list();
    const w = await meta.watch();
    for await (const e of w) {
      assert.equal(e.object.metadata?.name, 'w');
      break;
    }
    w.stop();
    await meta.create(deployment('x'));
    await new ResourceClient<KubeObject>(transport, DEPLOYMENTS, 'ns').list();
    assert.deepEqual(accepts, [
      'GET /apis/apps/v1/namespaces/ns/deployments/d application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
      'GET /apis/apps/v1/namespaces/ns/deployments application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      'GET /apis/apps/v1/namespaces/ns/deployments application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
      'POST /apis/apps/v1/namespaces/ns/deployments application/json',
      'GET /apis/apps/v1/namespaces/ns/deployments application/json',
    ]);
    // The client gives the objects the kind's own apiVersion/kind, as controller-runtime does.
    assert.deepEqual(got, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } });
    assert.equal(listed.apiVersion, 'apps/v1');
    assert.equal(listed.kind, 'DeploymentList');
    assert.deepEqual(listed.items, [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } }]);
  });
});

describe('metadata-only reads on the fake transport', () => {
  it('answers get, list and watch as the apiserver does: metadata only', async () => {
    const transport = newFakeTransport([DEPLOYMENTS], deployment('a'));
    const meta = new ResourceClient<KubeObject>(transport, DEPLOYMENTS, 'ns', { readAs: 'metadata' });
    const got = await meta.get('a');
    assert.equal(got.kind, 'Deployment');
    assert.equal(got.metadata?.labels?.['app'], 'a');
    assert.equal((got as { spec?: unknown }).spec, undefined);
    assert.equal(((await meta.list()).items[0] as { spec?: unknown }).spec, undefined);
    const w = await meta.watch({ resourceVersion: '0' });
    for await (const e of w) {
      assert.equal(e.type, 'ADDED');
      assert.deepEqual(Object.keys(e.object).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(e.object.kind, 'PartialObjectMetadata', 'watch events are the server form; informers normalise them');
      break;
    }
    w.stop();
    assert.equal(((await new ResourceClient<KubeObject>(transport, DEPLOYMENTS, 'ns').get('a')) as { spec?: unknown }).spec !== undefined, true, 'full reads unchanged');
  });

  it('a metadata informer caches metadata only, apart from the full informer, then applies the caller transform', async () => {
    const transport = newFakeTransport([DEPLOYMENTS], deployment('a'), deployment('b'));
    const factory = new SharedInformerFactory(transport, { logger: nullLogger });
    const meta = factory.metadataInformerFor(DEPLOYMENTS, { transform: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { seen: 'yes' } } }) });
    const full = factory.informerFor(DEPLOYMENTS);
    assert.notEqual(meta as unknown, full as unknown);
    assert.equal(factory.metadataInformerFor(DEPLOYMENTS), meta, 'shared per kind');
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 5000 });
    const a = meta.lister().namespace('ns').get('a')!;
    assert.deepEqual(Object.keys(a).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.equal(a.apiVersion, 'apps/v1');
    assert.equal(a.kind, 'Deployment');
    assert.equal(a.metadata?.annotations?.['seen'], 'yes');
    assert.ok((full.lister().namespace('ns').get('a') as { spec?: unknown }).spec, 'the full informer keeps the spec');
    // Watch events reach the metadata cache in the same form.
    await new ResourceClient<KubeObject>(transport, DEPLOYMENTS, 'ns').create(deployment('c'));
    await settle(() => meta.lister().namespace('ns').get('c') !== undefined, 'c in the metadata cache');
    assert.equal(meta.lister().namespace('ns').get('c')!.kind, 'Deployment');
    assert.equal((meta.lister().namespace('ns').get('c') as { spec?: unknown }).spec, undefined);
    await factory.shutdown();
  });
});

describe('metadata informers and managedFields', () => {
  it('drops managedFields by default and keeps them with keepManagedFields', async () => {
    const withFields = { ...deployment('m'), metadata: { ...deployment('m').metadata, managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }] } } as KubeObject;
    const transport = newFakeTransport([DEPLOYMENTS], withFields);
    const factory = new SharedInformerFactory(transport, { logger: nullLogger });
    const lean = factory.metadataInformerFor(DEPLOYMENTS);
    const kept = factory.metadataInformerFor(DEPLOYMENTS, { namespace: 'ns', keepManagedFields: true });
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 5000 });
    assert.equal(lean.lister().namespace('ns').get('m')!.metadata?.managedFields, undefined);
    assert.equal((kept.lister().namespace('ns').get('m')!.metadata?.managedFields?.[0] as { manager?: string } | undefined)?.manager, 'kubectl');
    await factory.shutdown();
  });
});

describe('builder owns(..., { metadataOnly: true }) and the manager client metadata()', () => {
  it('enqueues the owner from metadata-only events, and metadata() reads from the metadata cache', async () => {
    const transport = newFakeTransport([fooResource, DEPLOYMENTS], foo('a'), deployment('d-a', 'a'));
    const mgr = new Manager({ transport, metricsBindAddress: '0', logger: nullLogger, registry: new Registry() });
    const seen: string[] = [];
    const reads: KubeObject[] = [];
    controllerFor(mgr, fooResource)
      .owns(DEPLOYMENTS, { metadataOnly: true })
      .complete(async (req) => {
        seen.push(req.name);
        reads.push(await mgr.getClient().metadata(DEPLOYMENTS, 'ns').get(`d-${req.name}`).catch(() => ({}) as KubeObject));
      });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await settle(() => seen.includes('a'), 'reconcile of a');
      const read = reads[0]!;
      assert.equal(read.kind, 'Deployment');
      assert.equal((read as { spec?: unknown }).spec, undefined, 'metadata() returns no spec');
      // A Deployment controlled by Foo "b" enqueues "b" through the metadata informer.
      await new ResourceClient<KubeObject>(transport, DEPLOYMENTS, 'ns').create(deployment('d-b', 'b'));
      await settle(() => seen.includes('b'), 'owner reconcile through the metadata informer');
      // No full Deployment informer: every list and watch of Deployments asked for metadata only.
      const deploymentReads = transport.actions().filter((a) => (a.verb === 'list' || a.verb === 'watch') && a.resource === 'deployments');
      assert.ok(deploymentReads.length >= 2, JSON.stringify(deploymentReads));
      assert.deepEqual(deploymentReads.filter((a) => a.as !== 'metadata'), []);
    } finally {
      stop.abort();
      await run;
    }
  });
});
