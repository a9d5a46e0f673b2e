/**
 * The dynamic client against a real kube-apiserver 1.20 (the `full` envtest profile; issue 24): every verb for a
 * built-in kind (ConfigMap, whose list items the server sends without apiVersion/kind), the sample CRD Foo (status
 * subresource), Deployments' scale subresource, and a cluster-scoped CRD with status and scale (Widget). The fake
 * dynamic client's answers for the same requests (the 404s) are checked against the server's here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, isConflict, isNotFound, isNotServed } from '@kubegen/runtime/internal/client/errors.js';
import type { ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { DynamicClient } from '@kubegen/runtime/internal/dynamic/dynamic-client.js';
import type { Unstructured } from '@kubegen/runtime/internal/dynamic/unstructured.js';
import { nestedInt64, nestedString } from '@kubegen/runtime/internal/dynamic/nested.js';
import { newFakeDynamicClient } from '@kubegen/runtime/internal/testing/fake/fake-dynamic.js';
import { uniqueName, sharedEnv, type TestEnv } from './support/env.js';
import { FOO, WIDGET } from './support/crds.js';
import { rejection } from '../support/rejection.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const FOOS = { group: FOO.group, version: FOO.version, resource: FOO.resource };
const WIDGETS = { group: WIDGET.group, version: WIDGET.version, resource: WIDGET.resource };

const cm = (name: string, data: Record<string, string>, labels: Record<string, string> = {}): Unstructured => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

function mappingOf(info: ResourceInfo) {
  return {
    resource: { group: info.group, version: info.version, resource: info.resource },
    groupVersionKind: { group: info.group, version: info.version, kind: info.kind },
    namespaced: info.namespaced,
    info,
  };
}

describe('DynamicClient against kube-apiserver', () => {
  let env: TestEnv;
  let dyn: DynamicClient;
  let ns: string;

  before(async () => {
    env = await sharedEnv();
    dyn = new DynamicClient(env.transport);
    ns = await env.newNamespace('dynamic');
  });
  after(async () => {
    await env?.release();
  });

  it('a built-in kind (ConfigMap): create, get, list with item kinds, paged listAll, watch, update, patches, apply, delete, deleteCollection', async () => {
    const cms = dyn.resource(CONFIGMAPS).namespace(ns);
    const created = await cms.create(cm('one', { a: '1' }, { set: 'x' }));
    assert.equal(created.metadata!.namespace, ns);
    await cms.create(cm('two', { a: '2' }, { set: 'x' }));
    await cms.create(cm('three', { a: '3' }));

    // The server leaves apiVersion/kind out of a built-in list's items; the dynamic client puts them back.
    const raw = await env.transport.raw('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const rawItems = (JSON.parse(raw.body.toString('utf8')) as { items: Unstructured[] }).items;
    assert.ok(rawItems.length === 3 && rawItems.every((i) => i.kind === undefined && i.apiVersion === undefined), 'the server omits item kinds');
    const list = await cms.list();
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(list.items.map((i) => [i.apiVersion, i.kind, i.metadata!.name]), [['v1', 'ConfigMap', 'one'], ['v1', 'ConfigMap', 'three'], ['v1', 'ConfigMap', 'two']]);
    const paged: Unstructured[] = [];
    for await (const o of cms.listAll({ limit: 1 })) paged.push(o);
    assert.deepEqual(paged.map((o) => `${o.kind}/${o.metadata!.name}`), ['ConfigMap/one', 'ConfigMap/three', 'ConfigMap/two']);

    const w = await cms.watch({ resourceVersion: list.metadata!.resourceVersion });
    const events: string[] = [];
    const watched = (async () => {
      for await (const e of w) {
        events.push(`${e.type} ${e.object.kind}/${e.object.metadata!.name}`);
        if (events.length === 2) break;
      }
    })();
    const got = await cms.get('one');
    assert.equal(nestedString(got, 'data', 'a').value, '1');
    const updated = await cms.update({ ...got, data: { a: 'updated' } });
    assert.equal(nestedString(updated, 'data', 'a').value, 'updated');
    assert.ok(isConflict(await rejection(cms.update({ ...got, data: { a: 'stale' } }))), 'a stale update conflicts');
    await cms.create(cm('four', { a: '4' }));
    await watched;
    w.stop();
    assert.deepEqual(events, ['MODIFIED ConfigMap/one', 'ADDED ConfigMap/four']);

    const merged = await cms.patch('two', { type: 'merge', patch: { data: { b: 'merge' } } });
    assert.deepEqual(merged['data'], { a: '2', b: 'merge' });
    const jsonPatched = await cms.patch('two', { type: 'json', patch: [{ op: 'replace', path: '/data/a', value: 'json' }] });
    assert.deepEqual(jsonPatched['data'], { a: 'json', b: 'merge' });
    const strategic = await cms.patch('two', { type: 'strategic', patch: { data: { c: 'strategic' } } });
    assert.deepEqual(strategic['data'], { a: 'json', b: 'merge', c: 'strategic' });
    const applied = await cms.apply(cm('applied', { owned: 'yes' }), { fieldManager: 'dynamic-test' });
    assert.ok(applied.metadata!.managedFields!.some((m) => (m as { manager?: string }).manager === 'dynamic-test'));
    assert.ok(applied.metadata!.managedFields!.length > 0);
    await assert.rejects(cms.apply(applied, { fieldManager: 'dynamic-test' }), /cannot apply an object with metadata\.managedFields set/);

    await cms.delete('three');
    assert.ok(isNotFound(await rejection(cms.get('three'))));
    await cms.deleteCollection({ labelSelector: 'set=x' });
    // envtest runs no kube-controller-manager, so the namespace holds only what this test made.
    assert.deepEqual((await cms.list()).items.map((i) => i.metadata!.name).sort(), ['applied', 'four']);
  });

  it('from a RESTMapping: the kind is filled in, a namespaced kind needs a namespace', async () => {
    const cms = dyn.forMapping(mappingOf({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true }));
    const created = await cms.create({ metadata: { name: 'mapped', namespace: ns }, data: { k: 'v' } });
    assert.equal(created.kind, 'ConfigMap');
    assert.equal((await cms.namespace(ns).get('mapped')).metadata!.name, 'mapped');
    await assert.rejects(cms.get('mapped'), /a namespace is required for get/);
  });

  it('the sample CRD Foo: status through updateStatus, applyStatus and the status subresource verbs', async () => {
    const foos = dyn.resource(FOOS).namespace(ns);
    const created = await foos.create({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'f1' }, spec: { deploymentName: 'd', replicas: 1 }, status: { availableReplicas: 5 } });
    assert.equal(created['status'], undefined, 'status is ignored on create (status subresource)');
    const withStatus = await foos.updateStatus({ ...created, status: { availableReplicas: 1 } });
    assert.equal(nestedInt64(withStatus, 'status', 'availableReplicas').value, 1);
    assert.equal(withStatus.metadata!.generation, 1, 'a status write leaves the generation');
    const applied = await foos.applyStatus({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'f1' }, status: { availableReplicas: 2 } }, { fieldManager: 'dyn-status', force: true });
    assert.equal(nestedInt64(applied, 'status', 'availableReplicas').value, 2);
    const status = await foos.getSubresource('f1', 'status');
    assert.equal(nestedInt64(status, 'status', 'availableReplicas').value, 2);
    const patched = await foos.patchSubresource('f1', 'status', { type: 'merge', patch: { status: { availableReplicas: 3 } } });
    assert.equal(nestedInt64(patched, 'status', 'availableReplicas').value, 3);
    const specApplied = await foos.apply({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'f2' }, spec: { deploymentName: 'x', replicas: 2 } }, { fieldManager: 'dyn' });
    assert.equal(nestedInt64(specApplied, 'spec', 'replicas').value, 2);
    const invalid = (await rejection(foos.patch('f2', { type: 'merge', patch: { spec: { replicas: 99 } } }))) as ApiError;
    assert.equal(invalid.code, 422, 'the CRD schema is enforced (maximum 10)');
    const err = (await rejection(foos.getSubresource('f1', 'scale'))) as ApiError;
    assert.ok(isNotFound(err), 'Foo has no scale subresource');
  });

  it('a built-in scale subresource (deployments/scale): get, update, patch', async () => {
    const deployments = dyn.resource(DEPLOYMENTS).namespace(ns);
    await deployments.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const scale = await deployments.getSubresource('web', 'scale');
    assert.equal(scale.kind, 'Scale');
    assert.equal(nestedInt64(scale, 'spec', 'replicas').value, 1);
    await deployments.updateSubresource('web', 'scale', { ...scale, spec: { replicas: 3 } });
    assert.equal(nestedInt64(await deployments.get('web'), 'spec', 'replicas').value, 3);
    await deployments.patchSubresource('web', 'scale', { type: 'merge', patch: { spec: { replicas: 4 } } });
    assert.equal(nestedInt64(await deployments.get('web'), 'spec', 'replicas').value, 4);
  });

  it('a cluster-scoped CRD (Widget): every verb without a namespace, scale and status; a namespace is a 404 as on the fake', async () => {
    const widgets = dyn.resource(WIDGETS);
    const name = uniqueName('dyn-widget');
    const created = await widgets.create({ apiVersion: 'test.kubegen.dev/v1', kind: 'Widget', metadata: { name, labels: { dyn: 'yes' } }, spec: { replicas: 1, color: 'red' } });
    assert.equal(created.metadata!.namespace, undefined);
    assert.ok((await widgets.list({ labelSelector: 'dyn=yes' })).items.some((w) => w.metadata!.name === name && w.kind === 'Widget'));
    await widgets.updateStatus({ ...(await widgets.get(name)), status: { replicas: 1, selector: 'app=w' } });
    const scale = await widgets.getSubresource(name, 'scale');
    assert.deepEqual([nestedInt64(scale, 'spec', 'replicas').value, nestedString(scale, 'status', 'selector').value], [1, 'app=w']);
    await widgets.updateSubresource(name, 'scale', { ...scale, spec: { replicas: 5 } });
    await widgets.patchSubresource(name, 'scale', { type: 'merge', patch: { spec: { replicas: 6 } } });
    assert.equal(nestedInt64(await widgets.get(name), 'spec', 'replicas').value, 6);
    await widgets.patch(name, { type: 'merge', patch: { spec: { color: 'blue' } } });
    await widgets.apply({ apiVersion: 'test.kubegen.dev/v1', kind: 'Widget', metadata: { name }, spec: { size: 3 } }, { fieldManager: 'dyn' });
    const now = await widgets.get(name);
    assert.deepEqual(now['spec'], { replicas: 6, color: 'blue', size: 3 });

    const real = (await rejection(widgets.namespace(ns).get(name))) as ApiError;
    const fake = newFakeDynamicClient([{ ...WIDGET }], { apiVersion: 'test.kubegen.dev/v1', kind: 'Widget', metadata: { name } });
    const faked = (await rejection(fake.resource(WIDGETS).namespace(ns).get(name))) as ApiError;
    assert.deepEqual([real.code, real.reason], [404, 'NotFound']);
    assert.deepEqual([faked.code, faked.reason], [real.code, real.reason], 'the fake answers as the server');

    await widgets.delete(name);
    assert.ok(isNotFound(await rejection(widgets.get(name))));
  });

  it('a resource the server does not serve: a 404 naming it, as the fake says', async () => {
    const gvr = { group: 'nothere.kubegen.dev', version: 'v1', resource: 'ghosts' };
    const real = (await rejection(dyn.resource(gvr).namespace(ns).list())) as ApiError;
    const faked = (await rejection(newFakeDynamicClient([]).resource(gvr).namespace(ns).list())) as ApiError;
    assert.equal(real.code, 404);
    assert.ok(isNotServed(real) && isNotServed(faked));
    assert.equal(real.message, 'ghosts nothere.kubegen.dev/v1 is not served by this apiserver (it serves no version of nothere.kubegen.dev); is the CustomResourceDefinition ghosts.nothere.kubegen.dev installed and established, with version v1 served?');
    assert.equal(faked.message, real.message);
  });
});
