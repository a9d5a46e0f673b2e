/**
 * Object reconcilers (controller-runtime's `reconcile.AsReconciler`): `controllerFor<T>(mgr, kind).completeObject(fn)`
 * calls `fn` with the request's object, read from the manager's cache as a copy `fn` may change and typed by the
 * kind; a request whose object is gone is skipped (no call, no error); `fn`'s throw is the reconcile's failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { controllerFor, newControllerManagedBy } from '@kubegen/runtime/internal/builder/builder.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { until } from '../support/wait.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
const cm = builtinResources.configMaps;
const configMap = (name: string, data: Record<string, string>): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });

async function reconcileCount(registry: Registry, result: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'controller_runtime_reconcile_total');
  return (metric?.values ?? []).filter((v) => v.labels['result'] === result).reduce((n, v) => n + v.value, 0);
}

test('completeObject: the object from the cache, typed by the kind; a deleted object is skipped; a throw fails the reconcile', async () => {
  const transport = newFakeTransport([cm], configMap('a', { k: '1' }), configMap('boom', { k: '1' }));
  const registry = new Registry();
  const mgr = new Manager({ transport, metricsBindAddress: '0', logger: nullLogger, registry });
  const seen: string[] = [];
  controllerFor<ConfigMap>(mgr, cm).completeObject(async (obj, ctx) => {
    assert.equal(ctx.signal.aborted, false);
    if (obj.metadata!.name === 'boom') throw new Error('boom');
    seen.push(`${obj.metadata!.name}=${obj.data?.['k']}`); // typed: data is ConfigMap's
    obj.data!['k'] = 'changed by the reconciler'; // a copy: the cache keeps its own
  });
  const run = mgr.start();
  try {
    await until(() => seen.includes('a=1'), 'a reconciled');
    await until(async () => (await reconcileCount(registry, 'error')) >= 1, 'boom failed');
    assert.equal((mgr.getInformer<ConfigMap>(cm).getIndexer().getByKey('ns/a'))?.data?.['k'], '1', 'the cache was not changed');
    const api = new ResourceClient<ConfigMap>(transport, cm, 'ns');
    const before = await reconcileCount(registry, 'success');
    await api.delete('a');
    await until(async () => (await reconcileCount(registry, 'success')) > before, 'the request of the deleted object done');
    assert.deepEqual(seen, ['a=1'], 'not called for the deleted object');
    await api.create(configMap('b', { k: '2' }));
    await until(() => seen.includes('b=2'), 'b reconciled');
  } finally {
    await mgr.stop();
    await run;
  }
});

test('completeObject needs for()', () => {
  const mgr = new Manager({ transport: newFakeTransport([cm]), metricsBindAddress: '0', logger: nullLogger, registry: new Registry() });
  assert.throws(() => newControllerManagedBy(mgr).named('x').completeObject(() => undefined), /completeObject\(\) needs for\(\)/);
});
