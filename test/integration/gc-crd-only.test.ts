/**
 * kubegen's garbage collector (testing/gc), which the `crd-only` envtest profile (CRD apiserver 1.36) runs, against
 * kube-controller-manager's on the `cluster` profile: the same deletion scenarios (support/deletion-scenarios.ts:
 * background, foreground with blockOwnerDeletion, orphan), run on both control planes at once, must give the same
 * outcomes and the same records of what happened (support/deletion-recorder.ts: which dependents went before the
 * owner, the owner's finalizers over time, every object's owner references over time, which objects were marked
 * for deletion). On `crd-only` the scenarios' CRDs are installed after the collector started, so it must pick up
 * kinds that appear later; a further test does so with a group of its own.
 *
 * The `cluster` control plane is the shared one when hack/run-tests.mjs started it; else this file starts one with no
 * hollow nodes (the garbage collector needs none).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '@kubegen/runtime/internal/client/types.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { installCrds, parseCrds } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { GC_CRDS } from './support/crds.js';
import { recordDeletion, type DeletionRecord } from './support/deletion-recorder.js';
import { backgroundDeletion, CHILD, DELETION_SCENARIOS, PARENT, type DeletionTarget } from './support/deletion-scenarios.js';
import { KUBECONFIG_CLUSTER_ENV, sharedEnv, type TestEnv } from './support/env.js';

/** The `cluster` control plane: the shared one, or one of this file's own without nodes. */
async function clusterPlane(): Promise<{ transport: Transport; namespace: string; newNamespace: () => Promise<string>; release: () => Promise<void> }> {
  if (process.env[KUBECONFIG_CLUSTER_ENV]) {
    const env: TestEnv = await sharedEnv({ profile: 'cluster' });
    return { transport: env.transport, namespace: await env.newNamespace('gc-diff'), newNamespace: () => env.newNamespace('gc-diff'), release: () => env.release() };
  }
  const envtest = await Envtest.start({ profile: 'cluster', crdPaths: [GC_CRDS], cluster: { nodes: 0 } });
  const transport = envtest.transport();
  return {
    transport,
    namespace: await createTestNamespace(transport, 'gc-diff'),
    newNamespace: () => createTestNamespace(transport, 'gc-diff'),
    release: async () => {
      transport.close();
      await envtest.stop();
    },
  };
}

describe('garbage collector of the crd-only profile, differential against kube-controller-manager on cluster', () => {
  let crdOnly: TestEnv;
  let cluster: Awaited<ReturnType<typeof clusterPlane>>;
  let ours: DeletionTarget;
  let theirs: DeletionTarget;
  before(async () => {
    [crdOnly, cluster] = await Promise.all([sharedEnv({ profile: 'crd-only', crdPaths: [GC_CRDS] }), clusterPlane()]);
    ours = { transport: crdOnly.transport, namespace: await crdOnly.newNamespace('gc-diff') };
    theirs = { transport: cluster.transport, namespace: cluster.namespace };
  });
  after(async () => {
    await Promise.all([crdOnly?.release(), cluster?.release()]);
  });

  for (const [mode, play] of Object.entries(DELETION_SCENARIOS)) {
    const scenario = play as (t: DeletionTarget) => Promise<unknown>;
    it(`${mode}: the same outcome and the same record on both`, async () => {
      const [a, b] = await Promise.all([recordDeletion(ours, mode, () => scenario(ours)), recordDeletion(theirs, mode, () => scenario(theirs))]);
      assert.deepEqual(a.outcome, b.outcome, `${mode}: outcome (crd-only = cluster)`);
      assert.deepEqual(a.record, b.record, `${mode}: record (crd-only = cluster)`);
      assert.deepEqual(a.record, EXPECTED_RECORDS[mode], `${mode}: what both did`);
    });
  }

  it('a dependent naming an owner of another namespace: deleted (its owner is not in its namespace), as kube-controller-manager does', async () => {
    const play = async (transport: Transport, home: string, away: string) => {
      const parents = new ResourceClient<KubeObject>(transport, PARENT, home);
      const owner = await parents.create({ apiVersion: 'gc.kubegen.dev/v1', kind: 'Parent', metadata: { name: 'owner' }, spec: {} } as KubeObject);
      const ref = { apiVersion: 'gc.kubegen.dev/v1', kind: 'Parent', name: 'owner', uid: owner.metadata!.uid! };
      const child = (n: string) => ({ apiVersion: 'gc.kubegen.dev/v1', kind: 'Child', metadata: { name: n, ownerReferences: [ref] }, spec: {} }) as KubeObject;
      const near = await new ResourceClient<KubeObject>(transport, CHILD, home).create(child('near'));
      const farClient = new ResourceClient<KubeObject>(transport, CHILD, away);
      await farClient.create(child('far'));
      const deadline = performance.now() + 90_000;
      while (await farClient.get('far').then(() => true, () => false)) {
        if (performance.now() > deadline) assert.fail('timed out waiting for the dependent in the other namespace to be deleted');
        await new Promise((r) => setTimeout(r, 200));
      }
      const nearNow = await new ResourceClient<KubeObject>(transport, CHILD, home).get('near');
      return { farDeleted: true, nearKept: nearNow.metadata?.uid === near.metadata?.uid, nearReferences: nearNow.metadata?.ownerReferences?.map((r) => r.name), ownerKept: (await parents.get('owner')).metadata?.uid === owner.metadata?.uid };
    };
    const [a, b] = await Promise.all([play(ours.transport, ours.namespace, await crdOnly.newNamespace('gc-away')), play(theirs.transport, theirs.namespace, await cluster.newNamespace())]);
    assert.deepEqual(a, b, 'crd-only = cluster');
    assert.deepEqual(a, { farDeleted: true, nearKept: true, nearReferences: ['owner'], ownerKept: true });
  });

  it('collects kinds whose CRDs are installed after it started (a group of its own)', async () => {
    const group = `late${randomBytes(3).toString('hex')}.gc.kubegen.dev`;
    const owner: ResourceInfo = { group, version: 'v1', resource: 'roots', kind: 'Root', listKind: 'RootList', namespaced: true };
    const dependent: ResourceInfo = { group, version: 'v1', resource: 'leaves', kind: 'Leaf', listKind: 'LeafList', namespaced: true };
    const crd = (r: ResourceInfo) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${r.resource}.${group}` },
      spec: {
        group,
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        names: { kind: r.kind, listKind: r.listKind, plural: r.resource, singular: r.kind.toLowerCase() },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
      },
    });
    await installCrds(crdOnly.transport, [crd(owner), crd(dependent)].flatMap((c) => parseCrds(JSON.stringify(c))), 30_000);
    const outcome = await backgroundDeletion({ ...ours, owner, dependent, timeoutMs: 30_000 });
    assert.deepEqual(outcome, { ownerGoneAtOnce: true, dependentsGone: ['a', 'b'], unownedKept: true });
    // In this process when this file started the control plane: the collector watches the new kinds.
    const watched = crdOnly.envtest?.garbageCollector?.resources().filter((r) => r.group === group).map((r) => r.kind).sort();
    if (crdOnly.envtest) assert.deepEqual(watched, ['Leaf', 'Root']);
  });

  it('garbageCollector: false starts the crd-only profile without one: nothing is collected, and require says so', async () => {
    const bare = await Envtest.start({ profile: 'crd-only', crdPaths: [GC_CRDS], garbageCollector: false });
    const transport = bare.transport();
    try {
      assert.equal(bare.garbageCollector, undefined);
      assert.equal(bare.serves('garbage-collection'), false);
      assert.throws(() => bare.requireCapabilities('garbage-collection'), /started with garbageCollector: false; it cannot serve garbage-collection/);
      const parents = new ResourceClient<KubeObject>(transport, PARENT, 'ns');
      const children = new ResourceClient<KubeObject>(transport, CHILD, 'ns');
      const p = await parents.create({ apiVersion: 'gc.kubegen.dev/v1', kind: 'Parent', metadata: { name: 'p' }, spec: {} } as KubeObject);
      await children.create({ apiVersion: 'gc.kubegen.dev/v1', kind: 'Child', metadata: { name: 'c', ownerReferences: [{ apiVersion: 'gc.kubegen.dev/v1', kind: 'Parent', name: 'p', uid: p.metadata!.uid! }] }, spec: {} } as KubeObject);
      await parents.delete('p');
      await new Promise((r) => setTimeout(r, 2000));
      assert.equal((await children.get('c')).metadata?.ownerReferences?.[0]?.name, 'p', 'the dependent of a deleted owner stays');
    } finally {
      transport.close();
      await bare.stop();
    }
  });
});

/** What kube-controller-manager does in each scenario (and so must kubegen's collector). */
const EXPECTED_RECORDS: Record<string, DeletionRecord> = {
  background: {
    deletedBeforeOwner: [],
    ownerFinalizers: [[]],
    ownerReferences: { a: [['owner']], b: [['owner']], owner: [[]], unowned: [[]] },
    markedForDeletion: [],
  },
  foreground: {
    deletedBeforeOwner: ['blocking', 'free'],
    ownerFinalizers: [[], ['foregroundDeletion']],
    ownerReferences: { blocking: [['owner']], free: [['owner']], owner: [[]] },
    markedForDeletion: ['blocking', 'owner'],
  },
  orphan: {
    deletedBeforeOwner: [],
    ownerFinalizers: [[], ['orphan']],
    ownerReferences: { a: [['owner'], []], b: [['other', 'owner'], ['other']], other: [[]], owner: [[]] },
    markedForDeletion: ['owner'],
  },
};
