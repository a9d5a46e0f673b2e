/** controllerutil: owner references, createOrUpdate/createOrPatch results, finalizers and the finalizer registry. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Deployment } from '@kubegen/runtime/internal/builtin/types.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { createOrPatch, createOrUpdate } from '@kubegen/runtime/internal/controllerutil/create-or-update.js';
import { FinalizerRegistry } from '@kubegen/runtime/internal/controllerutil/finalizer-registry.js';
import {
  addFinalizer,
  containsFinalizer,
  removeFinalizer,
} from '@kubegen/runtime/internal/controllerutil/finalizers.js';
import {
  AlreadyOwnedError,
  getControllerOf,
  hasOwnerReference,
  isControlledBy,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from '@kubegen/runtime/internal/controllerutil/owner-references.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

const foo = (name = 'foo', uid = 'uid-foo', namespace = 'demo'): KubeObject => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { name, namespace, uid },
});
const child = (namespace: string | undefined = 'demo'): KubeObject => ({ metadata: { name: 'child', ...(namespace ? { namespace } : {}) } });

describe('owner references', () => {
  it('setControllerReference adds a controller reference that blocks owner deletion', () => {
    const obj = child();
    setControllerReference(foo(), obj);
    assert.deepEqual(obj.metadata?.ownerReferences, [
      { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'foo', uid: 'uid-foo', blockOwnerDeletion: true, controller: true },
    ]);
    assert.equal(getControllerOf(obj)?.name, 'foo');
    assert.equal(isControlledBy(obj, foo()), true);
    assert.equal(isControlledBy(obj, foo('foo', 'other-uid')), false, 'compares UIDs');
    setControllerReference(foo(), obj); // idempotent for the same owner
    assert.equal(obj.metadata?.ownerReferences?.length, 1);
  });

  it('refuses a second controller with AlreadyOwnedError, keeping the object untouched', () => {
    const obj = child();
    setControllerReference(foo('a', 'uid-a'), obj);
    const before = structuredClone(obj);
    assert.throws(() => setControllerReference(foo('b', 'uid-b'), obj), (err: unknown) => {
      assert.ok(err instanceof AlreadyOwnedError);
      assert.equal(err.owner.name, 'a');
      assert.match(err.message, /demo\/child is already owned by another Foo controller a/);
      return true;
    });
    assert.deepEqual(obj, before);
  });

  it('checks scopes: no namespaced owner for cluster-scoped objects or across namespaces', () => {
    assert.throws(() => setControllerReference(foo(), child('')), /cluster-scoped resource must not have a namespace-scoped owner/);
    assert.throws(() => setOwnerReference(foo(), child('elsewhere')), /cross-namespace owner references are disallowed/);
    const clusterOwner: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo', uid: 'ns-uid' } };
    const obj = child();
    setControllerReference(clusterOwner, obj);
    assert.equal(getControllerOf(obj)?.kind, 'Namespace');
  });

  it('refuses owners without uid, apiVersion or kind', () => {
    assert.throws(() => setControllerReference({ ...foo(), metadata: { name: 'foo', namespace: 'demo' } }, child()), /uid/);
    assert.throws(() => setControllerReference({ metadata: { name: 'foo', uid: 'u', namespace: 'demo' } }, child()), /apiVersion and kind/);
  });

  it('setOwnerReference adds a plain owner; same group+kind+name is replaced, other versions count as same', () => {
    const obj = child();
    setOwnerReference(foo('a', 'uid-a'), obj);
    setOwnerReference({ ...foo('a', 'uid-a2'), apiVersion: 'samplecontroller.k8s.io/v1' }, obj);
    setOwnerReference(foo('b', 'uid-b'), obj);
    assert.deepEqual(
      obj.metadata?.ownerReferences?.map((r) => [r.apiVersion, r.name, r.uid, r.controller]),
      [
        ['samplecontroller.k8s.io/v1', 'a', 'uid-a2', undefined],
        ['samplecontroller.k8s.io/v1alpha1', 'b', 'uid-b', undefined],
      ],
    );
    assert.equal(getControllerOf(obj), undefined);
    assert.equal(hasOwnerReference(foo('b'), obj), true);
    assert.equal(removeOwnerReference(foo('b'), obj), true);
    assert.equal(removeOwnerReference(foo('b'), obj), false);
    assert.equal(hasOwnerReference(foo('b'), obj), false);
  });
});

describe('finalizers', () => {
  it('add/remove/contains report whether they changed anything', () => {
    const obj: KubeObject = { metadata: { name: 'x' } };
    assert.equal(addFinalizer(obj, 'example.com/a'), true);
    assert.equal(addFinalizer(obj, 'example.com/a'), false);
    assert.equal(containsFinalizer(obj, 'example.com/a'), true);
    assert.equal(removeFinalizer(obj, 'example.com/b'), false);
    assert.equal(removeFinalizer(obj, 'example.com/a'), true);
    assert.deepEqual(obj.metadata?.finalizers, []);
    assert.equal(containsFinalizer(obj, 'example.com/a'), false);
  });

  it('the registry adds missing finalizers to live objects and runs none of them', async () => {
    let ran = 0;
    const reg = new FinalizerRegistry().register('example.com/a', () => void ran++).register('example.com/b', () => void ran++);
    assert.throws(() => reg.register('example.com/a', () => {}), /already registered/);
    const obj: KubeObject = { metadata: { name: 'x', finalizers: ['example.com/b'] } };
    const res = await reg.finalize(obj);
    assert.deepEqual(res.added, ['example.com/a']);
    assert.equal(res.updated, true);
    assert.equal(ran, 0);
    assert.deepEqual(obj.metadata?.finalizers, ['example.com/b', 'example.com/a']);
    assert.equal((await reg.finalize(obj)).updated, false);
  });

  it('on deletion runs the cleanups of present finalizers, removes the ones that succeeded, keeps failures', async () => {
    const ran: string[] = [];
    const reg = new FinalizerRegistry()
      .register('example.com/ok', async () => {
        ran.push('ok');
        return { statusUpdated: true };
      })
      .register('example.com/fails', () => {
        ran.push('fails');
        throw new Error('external system unavailable');
      })
      .register('example.com/absent', () => void ran.push('absent'));
    const obj: KubeObject = {
      metadata: { name: 'x', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['other.io/keep', 'example.com/ok', 'example.com/fails'] },
    };
    const res = await reg.finalize(obj);
    assert.deepEqual(ran, ['ok', 'fails']);
    assert.deepEqual(res.removed, ['example.com/ok']);
    assert.equal(res.updated, true);
    assert.equal(res.statusUpdated, true);
    assert.ok(res.error instanceof AggregateError);
    assert.match(res.error.message, /finalizer "example.com\/fails" failed: external system unavailable/);
    assert.deepEqual(obj.metadata?.finalizers, ['other.io/keep', 'example.com/fails']);
  });
});

describe('createOrUpdate / createOrPatch', () => {
  const setup = () => {
    const transport = newFakeTransport([builtinResources.deployments]);
    return { transport, deployments: new KubeClientset(transport).appsV1.deployments('demo') };
  };
  const desired = (d: Deployment, replicas: number): void => {
    d.metadata!.labels = { app: 'nginx' };
    d.spec = {
      replicas,
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } },
    };
  };

  for (const [fnName, fn] of [
    ['createOrUpdate', createOrUpdate],
    ['createOrPatch', createOrPatch],
  ] as const) {
    it(`${fnName} returns created, then unchanged, then updated`, async () => {
      const { transport, deployments } = setup();
      const obj: Deployment = { metadata: { name: 'web', namespace: 'demo' } };
      assert.equal(await fn(deployments, obj, (d) => desired(d, 1)), 'created');
      assert.ok(obj.metadata?.uid, 'obj holds the created object');
      transport.clearActions();
      const again: Deployment = { metadata: { name: 'web', namespace: 'demo' } };
      assert.equal(await fn(deployments, again, (d) => desired(d, 1)), 'unchanged');
      assert.deepEqual(transport.actions().map((a) => a.verb), ['get'], 'nothing written when nothing changed');
      const third: Deployment = { metadata: { name: 'web', namespace: 'demo' } };
      assert.equal(await fn(deployments, third, (d) => desired(d, 3)), 'updated');
      assert.equal((await deployments.get('web')).spec?.replicas, 3);
      assert.equal(third.spec?.replicas, 3);
      assert.notEqual(third.metadata?.resourceVersion, obj.metadata?.resourceVersion);
    });

    it(`${fnName} refuses a mutate function that renames the object`, async () => {
      const { deployments } = setup();
      await assert.rejects(
        fn(deployments, { metadata: { name: 'web', namespace: 'demo' } }, (d) => {
          d.metadata!.name = 'other';
        }),
        /cannot mutate object name/,
      );
      await assert.rejects(deployments.get('other'));
    });
  }

  it('createOrPatch sends a merge patch of only what changed', async () => {
    const { transport, deployments } = setup();
    await createOrPatch(deployments, { metadata: { name: 'web', namespace: 'demo' } }, (d) => desired(d, 1));
    transport.clearActions();
    const res = await createOrPatch(deployments, { metadata: { name: 'web', namespace: 'demo' } }, (d) => {
      desired(d, 2);
      d.metadata!.labels = { app: 'nginx', tier: 'web' };
    });
    assert.equal(res, 'updated');
    const patch = transport.actions().find((a) => a.verb === 'patch');
    assert.deepEqual(patch?.patch, { metadata: { labels: { tier: 'web' } }, spec: { replicas: 2 } });
  });

  it('createOrPatch patches the status subresource when the status changed', async () => {
    const { transport, deployments } = setup();
    await createOrPatch(deployments, { metadata: { name: 'web', namespace: 'demo' } }, (d) => desired(d, 1));
    transport.clearActions();
    const res = await createOrPatch(deployments, { metadata: { name: 'web', namespace: 'demo' } }, (d) => {
      d.status = { ...d.status, availableReplicas: 1 };
    });
    assert.equal(res, 'updatedStatusOnly');
    const writes = transport.actions().filter((a) => a.verb !== 'get');
    assert.deepEqual(writes.map((a) => [a.verb, a.subresource]), [['patch', 'status']]);
    assert.equal((await deployments.get('web')).status?.availableReplicas, 1);
  });

  it('propagates API errors other than NotFound from get', async () => {
    const { transport, deployments } = setup();
    transport.prependReactor('get', 'deployments', () => ({ handled: true, error: new Error('connection refused') }));
    let mutated = false;
    await assert.rejects(createOrUpdate(deployments, { metadata: { name: 'web', namespace: 'demo' } }, () => void (mutated = true)), /connection refused/);
    assert.equal(mutated, false);
  });
});
