import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClientset, KubeInformers } from '@kubegen/runtime';
import { allBuiltinResources } from '@kubegen/runtime/testing/fake';
import type { Deployment } from '@kubegen/runtime';
import { createFakeClientset } from '../golden/sample-controller/fake.js';
import { InformerFactory } from '../golden/sample-controller/informers.js';
import type { Foo } from '../golden/sample-controller/samplecontroller.k8s.io/v1alpha1/types.js';

/**
 * The generated, group-aware `InformerFactory` and the runtime's built-in `KubeInformers` share one runtime
 * factory: one informer per kind however many callers ask, typed listers over the cache, events to handlers.
 */
const foo = (ns: string, name: string, labels: Record<string, string> = {}): Foo => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { namespace: ns, name, labels },
  spec: { deploymentName: name, replicas: 1 },
});

async function eventually(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), what);
}

test('generated informers sync, serve typed listers and deliver events; built-in informers share the factory', async () => {
  const cs = createFakeClientset([foo('a', 'one', { tier: 'web' }), foo('a', 'two'), foo('b', 'three', { tier: 'web' })], allBuiltinResources);
  const informers = new InformerFactory(cs.transport);
  const foos = informers.samplecontrollerV1alpha1.foos();
  assert.equal(informers.samplecontrollerV1alpha1.foos().informer, foos.informer, 'one informer per kind');
  const kube = new KubeInformers(informers.factory);
  const deployments = kube.appsV1.deployments();

  const added: string[] = [];
  const deleted: string[] = [];
  foos.informer.addEventHandler({
    // Handlers may return anything (here push's number): no `void` needed.
    onAdd: (f) => added.push(f.metadata!.name!),
    onUpdate: () => {},
    onDelete: (f) => deleted.push(("obj" in f ? f.obj : f).metadata!.name!),
  });
  informers.start();
  await informers.waitForCacheSync({ timeoutMs: 5000 });

  assert.deepEqual(foos.lister.list().map((f) => f.metadata?.name).sort(), ['one', 'three', 'two']);
  assert.deepEqual(foos.lister.namespace('a').list('tier=web').map((f) => f.metadata?.name), ['one']);
  assert.deepEqual(foos.lister.list('tier in (web)').map((f) => f.metadata?.name).sort(), ['one', 'three']);
  assert.equal(foos.lister.namespace('b').get('three')?.spec?.deploymentName, 'three');
  assert.equal(foos.lister.namespace('b').get('one'), undefined);
  await eventually('initial adds delivered', () => added.length === 3);

  const dep: Deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'a', name: 'web' }, spec: { selector: {}, template: {} } };
  await new KubeClientset(cs.transport).appsV1.deployments('a').create(dep);
  await cs.samplecontrollerV1alpha1.foos('a').delete('two');
  await eventually('deployment seen by the built-in informer', () => deployments.lister.namespace('a').get('web') !== undefined);
  await eventually('delete delivered', () => deleted.includes('two'));
  assert.equal(foos.lister.namespace('a').get('two'), undefined);
  await informers.shutdown();
});
