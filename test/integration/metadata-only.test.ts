/**
 * Metadata-only reads against real apiservers: kube-apiserver 1.20 converts lists, gets and watches of Deployments
 * to PartialObjectMetadata, and a metadata informer caches only `metadata` (with the kind's own apiVersion/kind) and
 * follows changes; on the CRD apiserver 1.36 a metadata informer of Foos syncs through a WatchList stream (no LIST)
 * of PartialObjectMetadata.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { metadataAccept, type KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { FOO, FOO_CRD, foo } from './support/crds.js';
import { CountingTransport } from './support/counting-transport.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { until } from '../support/wait.js';

const DEPLOYMENTS = builtinResources.deployments;
const deployment = (name: string): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  }) as KubeObject;
const keys = (o: object): string[] => Object.keys(o).sort();

describe('metadata-only reads on kube-apiserver 1.20', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it('the apiserver answers PartialObjectMetadataList; the client and a metadata informer keep metadata only and follow changes', { timeout: 60_000 }, async () => {
    const ns = await env.newNamespace('metaonly');
    const full = new ResourceClient<KubeObject>(env.transport, DEPLOYMENTS, ns);
    for (const n of ['a', 'b', 'c']) await full.create(deployment(n));

    // The server converts (the client asked with the Accept header, nothing stripped on our side).
    const raw = await env.transport.raw('GET', `/apis/apps/v1/namespaces/${ns}/deployments`, { accept: metadataAccept('list') });
    const body = JSON.parse(raw.body.toString('utf8')) as { kind: string; items: object[] };
    assert.equal(body.kind, 'PartialObjectMetadataList');
    assert.deepEqual(keys(body.items[0]!), ['apiVersion', 'kind', 'metadata']);

    const meta = new ResourceClient<KubeObject>(env.transport, DEPLOYMENTS, ns, { readAs: 'metadata' });
    const a = await meta.get('a');
    assert.deepEqual(keys(a), ['apiVersion', 'kind', 'metadata']);
    assert.equal(a.apiVersion, 'apps/v1');
    assert.equal(a.kind, 'Deployment');
    assert.equal(a.metadata?.labels?.['app'], 'a');

    const factory = new SharedInformerFactory(new CountingTransport(env.transport), { namespace: ns, logger: nullLogger });
    const informer = factory.metadataInformerFor(DEPLOYMENTS);
    factory.start();
    try {
      await factory.waitForCacheSync({ timeoutMs: 20_000 });
      const cached = informer.lister().list();
      assert.deepEqual(cached.map((o) => o.metadata?.name).sort(), ['a', 'b', 'c']);
      for (const o of cached) {
        assert.deepEqual(keys(o), ['apiVersion', 'kind', 'metadata']);
        assert.equal(o.kind, 'Deployment');
        assert.ok(o.metadata?.resourceVersion && o.metadata.uid);
      }
      // A label change arrives through the metadata watch.
      const b = await full.get('b');
      await full.update({ ...b, metadata: { ...b.metadata, labels: { ...b.metadata?.labels, tier: 'web' } } });
      await until(() => informer.lister().namespace(ns).get('b')?.metadata?.labels?.['tier'] === 'web', 'label change in the metadata cache', 10_000);
      assert.deepEqual(keys(informer.lister().namespace(ns).get('b')!), ['apiVersion', 'kind', 'metadata']);
      await full.delete('c');
      await until(() => informer.lister().namespace(ns).get('c') === undefined, 'deletion in the metadata cache', 10_000);
    } finally {
      await factory.shutdown();
    }
  });
});

describe('metadata-only informer on the CRD apiserver 1.36 (WatchList)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'crd-only', crdPaths: [FOO_CRD] });
  });
  after(async () => {
    await env?.release();
  });

  it('syncs through one WatchList stream of PartialObjectMetadata, without a LIST', { timeout: 60_000 }, async () => {
    const ns = await env.newNamespace('metaonly-wl');
    const client = new ResourceClient<KubeObject>(env.transport, FOO, ns);
    for (let i = 0; i < 20; i++) await client.create(foo(ns, `foo-${i}`, 1) as KubeObject);
    const counting = new CountingTransport(env.transport);
    const factory = new SharedInformerFactory(counting, { namespace: ns, logger: nullLogger, reflector: { watchList: true } });
    const informer = factory.metadataInformerFor(FOO);
    factory.start();
    try {
      await factory.waitForCacheSync({ timeoutMs: 20_000 });
      assert.equal(counting.lists, 0, 'no LIST');
      assert.equal(counting.watchLists, 1, 'one WatchList stream');
      const objs = informer.lister().list();
      assert.equal(objs.length, 20);
      for (const o of objs) {
        assert.deepEqual(keys(o), ['apiVersion', 'kind', 'metadata']);
        assert.equal(o.apiVersion, 'samplecontroller.k8s.io/v1alpha1');
      }
    } finally {
      await factory.shutdown();
    }
  });
});
