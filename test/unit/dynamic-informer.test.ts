/**
 * Dynamic informers on the fake transport: one informer per resource and cache options; items of a built-in kind's
 * list carry their apiVersion and kind; handlers hold the informer and the last one removed (with the handle
 * released) stops the watch and frees the store; a generic lister reads the cache.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { DynamicSharedInformerFactory } from '@kubegen/runtime/internal/dynamic/dynamic-informer.js';
import type { Unstructured } from '@kubegen/runtime/internal/dynamic/unstructured.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { until } from '../support/wait.js';

const cm = builtinResources.configMaps;
const CM_GVR = { group: '', version: 'v1', resource: 'configmaps' };
const object = (name: string, ns = 'a', labels?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...(labels ? { labels } : {}) } });
const watches = (t: FakeTransport): number => t.actions().filter((a) => a.verb === 'watch').length;

describe('DynamicSharedInformerFactory', () => {
  it('shares one informer per resource and options; lists give items their apiVersion and kind', async () => {
    const transport = newFakeTransport([cm], object('x'), object('y', 'b', { app: 'web' }));
    // The fake's list items carry kinds; strip them to look like a built-in list from a real apiserver.
    transport.prependReactor('list', 'configmaps', async (action) => {
      const list = transport.tracker.list(cm, action.namespace || undefined, { labelSelector: action.query['labelSelector'] as string | undefined }) as { items: Unstructured[] };
      return { handled: true, result: { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: transport.tracker.resourceVersion }, items: list.items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) } };
    });
    const factory = new DynamicSharedInformerFactory(transport, { logger: nullLogger });
    try {
      const all = factory.forResource(CM_GVR);
      const again = factory.forResource(CM_GVR);
      const labelled = factory.forResource(CM_GVR, { labelSelector: 'app=web' });
      assert.equal(all.informer, again.informer);
      assert.notEqual(all.informer, labelled.informer);
      factory.start();
      await factory.waitForCacheSync({ timeoutMs: 5000 });
      const items = all.lister().list().map((o) => [o.apiVersion, o.kind, o.metadata?.name]);
      assert.deepEqual(items.sort(), [['v1', 'ConfigMap', 'x'], ['v1', 'ConfigMap', 'y']]);
      assert.deepEqual(labelled.lister().list().map((o) => o.metadata?.name), ['y']);
      assert.equal(all.lister().namespace('b').get('y')?.metadata?.name, 'y');
      assert.deepEqual(factory.keys().sort(), ['configmaps.core/v1', 'configmaps.core/v1?app=web']);
    } finally {
      await factory.shutdown();
    }
  });

  it('handlers hold the informer: the last one removed, with the handle released, stops the watch and frees the store', async () => {
    const transport = newFakeTransport([cm], object('x'));
    const factory = new DynamicSharedInformerFactory(transport, { logger: nullLogger });
    factory.start();
    try {
      const handle = factory.forResource(CM_GVR, { namespace: 'a' });
      const seen: string[] = [];
      const first = handle.addEventHandler({ onAdd: (o) => void seen.push(`1:${o.metadata?.name}`) });
      const second = handle.addEventHandler({ onAdd: (o) => void seen.push(`2:${o.metadata?.name}`) });
      await until(() => seen.length === 2 && watches(transport) === 1, 'both handlers see x over one watch');
      await handle.release();
      first.remove();
      assert.equal(handle.informer.stopped, false, 'a handler still holds it');
      transport.tracker.create(cm, 'a', object('z'));
      await until(() => seen.includes('2:z'), 'the remaining handler sees z');
      second.remove();
      await until(() => handle.informer.stopped, 'the informer stops with its last holder');
      assert.deepEqual(factory.keys(), []);
      assert.equal(handle.informer.getIndexer().size, 2, 'a stopped informer keeps what it had; the factory forgot it');
      const fresh = factory.forResource(CM_GVR, { namespace: 'a' });
      assert.notEqual(fresh.informer, handle.informer);
      await fresh.informer.whenSynced();
      assert.deepEqual(fresh.lister().list().map((o) => o.metadata?.name).sort(), ['x', 'z']);
    } finally {
      await factory.shutdown();
    }
  });

  it('metadata only: the smallest cache, objects with apiVersion, kind and metadata', async () => {
    const transport = newFakeTransport([cm], { ...object('x'), data: { big: 'value' } } as KubeObject);
    const factory = new DynamicSharedInformerFactory(transport, { logger: nullLogger });
    try {
      const meta = factory.forResource(cm, { metadataOnly: true });
      factory.start();
      await meta.informer.whenSynced();
      assert.deepEqual(Object.keys(meta.lister().list()[0]!).sort(), ['apiVersion', 'kind', 'metadata']);
    } finally {
      await factory.shutdown();
    }
  });
});
