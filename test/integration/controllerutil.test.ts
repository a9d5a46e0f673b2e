/** controllerutil against a real kube-apiserver: createOrUpdate/createOrPatch on a Deployment, owner refs, finalizers. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { ConfigMap, Deployment } from '@kubegen/runtime/internal/builtin/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { createOrPatch, createOrUpdate } from '@kubegen/runtime/internal/controllerutil/create-or-update.js';
import { FinalizerRegistry } from '@kubegen/runtime/internal/controllerutil/finalizer-registry.js';
import {
  AlreadyOwnedError,
  isControlledBy,
  setControllerReference,
} from '@kubegen/runtime/internal/controllerutil/owner-references.js';
import { sharedEnv, type TestEnv } from './support/env.js';

/** Sets only the fields we own, so apiserver defaults don't count as drift (the controller-runtime idiom). */
function nginx(owner: ConfigMap, replicas: number) {
  return (d: Deployment): void => {
    d.metadata!.labels = { ...d.metadata!.labels, app: 'nginx' };
    d.spec ??= {
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } },
    };
    d.spec.replicas = replicas;
    setControllerReference(owner, d);
  };
}

describe('controllerutil (envtest)', () => {
  let env: TestEnv;
  let ns: string;
  let kube: KubeClientset;
  let owner: ConfigMap;

  before(async () => {
    env = await sharedEnv();
    ns = await env.newNamespace('controllerutil');
    kube = new KubeClientset(env.transport);
    owner = await kube.coreV1.configMaps(ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
  });
  after(async () => {
    await env?.release();
  });

  for (const [fnName, fn] of [
    ['createOrUpdate', createOrUpdate],
    ['createOrPatch', createOrPatch],
  ] as const) {
    it(`${fnName} on a Deployment: created, unchanged, updated`, async () => {
      const deployments = kube.appsV1.deployments(ns);
      const name = `web-${fnName.toLowerCase()}`;
      const d1: Deployment = { metadata: { name, namespace: ns } };
      assert.equal(await fn(deployments, d1, nginx(owner, 1)), 'created');
      assert.ok(isControlledBy(d1, owner), 'the created Deployment carries the controller reference');
      const d2: Deployment = { metadata: { name, namespace: ns } };
      assert.equal(await fn(deployments, d2, nginx(owner, 1)), 'unchanged');
      assert.equal(d2.metadata?.resourceVersion, d1.metadata?.resourceVersion);
      const d3: Deployment = { metadata: { name, namespace: ns } };
      assert.equal(await fn(deployments, d3, nginx(owner, 4)), 'updated');
      const live = await deployments.get(name);
      assert.equal(live.spec?.replicas, 4);
      assert.equal(live.metadata?.resourceVersion, d3.metadata?.resourceVersion);
    });
  }

  it('a second controller is refused before anything is written', async () => {
    const other = await kube.coreV1.configMaps(ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } });
    const deployments = kube.appsV1.deployments(ns);
    await createOrUpdate(deployments, { metadata: { name: 'taken', namespace: ns } }, nginx(owner, 1));
    await assert.rejects(
      createOrUpdate(deployments, { metadata: { name: 'taken', namespace: ns } }, nginx(other, 2)),
      (err) => err instanceof AlreadyOwnedError,
    );
    assert.equal((await deployments.get('taken')).spec?.replicas, 1);
  });

  it('a FinalizerRegistry keeps the object until its cleanup succeeded', async () => {
    const cms = kube.coreV1.configMaps(ns);
    const reg = new FinalizerRegistry<ConfigMap>();
    let attempts = 0;
    reg.register('kubegen.dev/cleanup', () => {
      if (++attempts === 1) throw new Error('not yet');
    });
    let cm = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'finalized' } });
    assert.equal((await reg.finalize(cm)).updated, true);
    cm = await cms.update(cm);
    await cms.delete('finalized');
    cm = await cms.get('finalized');
    assert.ok(cm.metadata?.deletionTimestamp, 'kept by the finalizer');
    const first = await reg.finalize(cm);
    assert.ok(first.error);
    assert.equal(first.updated, false);
    const second = await reg.finalize(cm);
    assert.deepEqual(second.removed, ['kubegen.dev/cleanup']);
    await cms.update(cm);
    await assert.rejects(cms.get('finalized'), (err) => isNotFound(err));
  });
});
