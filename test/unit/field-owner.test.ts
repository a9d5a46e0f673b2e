/**
 * A field owner for every write (controller-runtime's `client.WithFieldOwner`): `withFieldOwner(transport, owner)`
 * names `owner` as the `fieldManager` of create, update, patch (main resource and subresources) and apply alike, a
 * call's own `fieldManager` winning; reads and deletes carry none. `CachedClient.withFieldOwner` and
 * `ManagerOptions.fieldOwner` do the same for the manager's client, and only for it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { withFieldOwner } from '@kubegen/runtime/internal/client/field-owner.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { CachedClient } from '@kubegen/runtime/internal/cluster/cached-client.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { FakeTransport, newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

const cm = builtinResources.configMaps;
const deployments = builtinResources.deployments;
const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { a: '1' } } as KubeObject);

/** `verb[/subresource][ patchType] fieldManager` of each recorded write (reads: `verb -`). */
const writes = (fake: FakeTransport): string[] =>
  fake.actions().map((a) => `${a.verb}${a.subresource ? '/' + a.subresource : ''}${a.patchType ? ' ' + a.patchType : ''} ${a.query['fieldManager'] ?? '-'}`);

test('withFieldOwner: create, update, patch, apply and subresource writes name the owner unless the call names one', async () => {
  const fake = newFakeTransport([cm, deployments]);
  const owned = withFieldOwner(fake, 'kv-operator');
  assert.equal(owned instanceof FakeTransport, true, 'the wrapped transport keeps its class (and its other methods)');
  assert.equal(owned.fieldManager, 'kv-operator');
  const client = new ResourceClient<KubeObject>(owned, cm, 'ns');
  await client.create(configMap('a'));
  const got = await client.get('a');
  await client.update({ ...got, data: { a: '2' } } as KubeObject);
  await client.patch('a', { type: 'merge', patch: { data: { b: '1' } } });
  await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { c: '1' } } as unknown as KubeObject);
  await client.create(configMap('b'), { fieldManager: 'by-hand' });
  await client.list();
  await client.delete('b');
  const dep = new ResourceClient<KubeObject>(owned, deployments, 'ns');
  await dep.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } } as KubeObject);
  await dep.patchStatus('d', { type: 'merge', patch: { status: { replicas: 1 } } });
  await dep.updateScale('d', { spec: { replicas: 2 } });
  assert.deepEqual(writes(fake), [
    'create kv-operator', 'get -', 'update kv-operator', 'patch merge kv-operator', 'patch apply kv-operator',
    'create by-hand', 'list -', 'delete -',
    'create kv-operator', 'patch/status merge kv-operator', 'update/scale kv-operator',
  ]);
  // The fake's managedFields name the owner of the apply.
  const applied = await new ResourceClient<KubeObject>(fake, cm, 'ns').get('a');
  assert.ok(applied.metadata?.managedFields?.some((f) => f.manager === 'kv-operator' && f.operation === 'Apply'));
  // The transport itself is unchanged.
  await new ResourceClient<KubeObject>(fake, cm, 'ns').create(configMap('plain'));
  assert.equal(writes(fake).at(-1), 'create -');
  assert.throws(() => withFieldOwner(fake, ''), /needs a field owner/);
});

test('CachedClient.withFieldOwner and ManagerOptions.fieldOwner: the manager client writes as the owner, nothing else does', async () => {
  const fake = newFakeTransport([cm]);
  await CachedClient.direct(fake).withFieldOwner('by-client').resource<KubeObject>(cm, 'ns').create(configMap('a'));
  const mgr = new Manager({ transport: fake, fieldOwner: 'by-manager', metricsBindAddress: '0', logger: nullLogger, registry: new Registry() });
  const client = mgr.getClient().resource<KubeObject>(cm, 'ns');
  await client.create(configMap('b'));
  await client.patch('b', { type: 'merge', patch: { data: { b: '1' } } });
  await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' }, data: { c: '1' } } as unknown as KubeObject, { fieldManager: 'explicit' });
  await new ResourceClient<KubeObject>(mgr.transport, cm, 'ns').create(configMap('c'));
  assert.deepEqual(writes(fake), ['create by-client', 'create by-manager', 'patch merge by-manager', 'patch apply explicit', 'create -']);
});
