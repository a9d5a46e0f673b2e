/**
 * The KVStore reconcile on the fake API (no cluster, no cache: `CachedClient.direct` reads from the fake): every owned
 * object applied with its fields and the store's controller reference, the PodDisruptionBudget in the version the
 * operator runs with, conditions from the StatefulSet's status, the finalizer deleting exactly the store's claims,
 * and a refused apply reported.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, CachedClient, isTerminalError, KubeClientset, type Condition } from '@kubegen/runtime';
import { newStatus } from '@kubegen/runtime/client';
import { statefulSetApply } from '@kubegen/runtime/api/apps/v1';
import type { PersistentVolumeClaim } from '@kubegen/runtime/api/core/v1';
import { FakeEventRecorder } from '@kubegen/runtime/testing';
import type { FakeClientset } from './generated/fake.js';
import type { KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import type { DisruptionBudgetVersion } from './disruption.js';
import { FIELD_MANAGER, FINALIZER } from './names.js';
import { KVStoreReconciler } from './reconciler.js';
import { context, fakeCluster, kvStore } from './test-support.js';

const NS = 'db';
const MEMBERS = { 'app.kubernetes.io/name': 'kv-store', 'app.kubernetes.io/instance': 'orders' };
const OWNED_LABELS = { ...MEMBERS, 'app.kubernetes.io/managed-by': 'kv-store' };

async function reconcile(cs: FakeClientset, version: DisruptionBudgetVersion = 'policy/v1', recorder = new FakeEventRecorder()): Promise<void> {
  await new KVStoreReconciler(CachedClient.direct(cs.transport), recorder, version).reconcile({ namespace: NS, name: 'orders' }, context());
}

const condition = (store: KVStore, type: string): Condition | undefined => store.status?.conditions?.find((c) => c.type === type);

/** The writes of the fake's recorded actions, as `verb resource[/subresource] name`. */
const writes = (cs: FakeClientset): string[] =>
  cs.fake.actions().filter((a) => !['get', 'list', 'watch'].includes(a.verb)).map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}`);

describe('KVStore reconcile', () => {
  it('applies every owned object with its fields, labels and the store as controller', async () => {
    const cs = fakeCluster([kvStore('orders', { clients: { matchLabels: { role: 'api' } }, storage: { size: '5Gi', storageClassName: 'fast' } })]);
    await reconcile(cs);
    const kube = new KubeClientset(cs.transport);

    const sts = await kube.appsV1.statefulSets(NS).get('orders');
    assert.equal(sts.spec?.replicas, 3, 'the CRD default, when the spec has none');
    assert.equal(sts.spec?.serviceName, 'orders-peers');
    assert.equal(sts.spec?.podManagementPolicy, 'Parallel');
    assert.deepEqual(sts.spec?.selector, { matchLabels: MEMBERS });
    assert.deepEqual(sts.spec?.template.metadata?.labels, MEMBERS);
    assert.equal(sts.spec?.template.spec?.serviceAccountName, 'orders');
    const etcd = sts.spec?.template.spec?.containers[0];
    assert.equal(etcd?.image, 'registry.k8s.io/etcd:3.5.21-0');
    assert.deepEqual(etcd?.envFrom, [{ configMapRef: { name: 'orders-config' } }]);
    assert.equal(etcd?.env?.find((e) => e.name === 'ETCD_INITIAL_ADVERTISE_PEER_URLS')?.value, 'http://$(POD_NAME).orders-peers.db.svc:2380');
    assert.deepEqual(etcd?.volumeMounts, [{ name: 'data', mountPath: '/var/lib/kv' }]);
    const claim = sts.spec?.volumeClaimTemplates?.[0];
    assert.deepEqual([claim?.metadata?.name, claim?.spec?.accessModes, claim?.spec?.resources?.requests?.['storage'], claim?.spec?.storageClassName], ['data', ['ReadWriteOnce'], '5Gi', 'fast']);

    const peers = await kube.coreV1.services(NS).get('orders-peers');
    assert.deepEqual([peers.spec?.clusterIP, peers.spec?.publishNotReadyAddresses, peers.spec?.ports?.map((p) => `${p.name}:${p.port}`)], ['None', true, ['peer:2380', 'client:2379']]);
    const client = await kube.coreV1.services(NS).get('orders');
    assert.deepEqual([client.spec?.clusterIP, client.spec?.selector, client.spec?.ports?.map((p) => `${p.name}:${p.port}`)], [undefined, MEMBERS, ['client:2379']]);

    // Every port names its protocol, a key of the ports' list maps: kube-apiserver 1.20 refuses an apply without it.
    const ports = [...(peers.spec?.ports ?? []), ...(client.spec?.ports ?? []), ...(etcd?.ports ?? [])];
    assert.deepEqual(ports.map((p) => p.protocol), ['TCP', 'TCP', 'TCP', 'TCP', 'TCP']);

    const config = await kube.coreV1.configMaps(NS).get('orders-config');
    assert.equal(config.data?.['ETCD_INITIAL_CLUSTER'], [0, 1, 2].map((i) => `orders-${i}=http://orders-${i}.orders-peers.db.svc:2380`).join(','));

    const pdb = await kube.policyV1.podDisruptionBudgets(NS).get('orders');
    assert.deepEqual([pdb.apiVersion, pdb.spec?.minAvailable, pdb.spec?.selector], ['policy/v1', 2, { matchLabels: MEMBERS }]);

    // The field this issue started from: an ingress rule's sources are `from` on the wire. Without them the rule
    // would admit every Pod; here the members admit each other, and the `clients` Pods on the client port only.
    const policy = await kube.networkingV1.networkPolicies(NS).get('orders');
    const rules = policy.spec?.ingress ?? [];
    assert.deepEqual(rules.map((r) => r.from), [[{ podSelector: { matchLabels: MEMBERS } }], [{ podSelector: { matchLabels: { role: 'api' } } }]]);
    assert.deepEqual(rules.map((r) => r.ports?.map((p) => p.port)), [[2380, 2379], [2379]]);
    assert.ok(!rules.some((r) => '_from' in r), 'no client-node spelling reaches the object');
    assert.deepEqual([policy.spec?.podSelector, policy.spec?.policyTypes], [{ matchLabels: MEMBERS }, ['Ingress']]);

    const sa = await kube.coreV1.serviceAccounts(NS).get('orders');
    const role = await kube.rbacV1.roles(NS).get('orders');
    assert.deepEqual(role.rules, [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['orders-config'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    ]);
    const binding = await kube.rbacV1.roleBindings(NS).get('orders');
    assert.deepEqual([binding.roleRef, binding.subjects], [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'orders' }, [{ kind: 'ServiceAccount', name: 'orders', namespace: NS }]]);

    for (const obj of [sts, peers, client, config, pdb, policy, sa, role, binding]) {
      const what = `${obj.kind} ${obj.metadata?.name}`;
      assert.deepEqual(obj.metadata?.ownerReferences, [{ apiVersion: 'kv.kubegen.io/v1alpha1', kind: 'KVStore', name: 'orders', uid: 'uid-orders', controller: true, blockOwnerDeletion: true }], what);
      assert.deepEqual(obj.metadata?.labels, OWNED_LABELS, what);
      assert.deepEqual(obj.metadata?.managedFields?.map((f) => [f.manager, f.operation]), [[FIELD_MANAGER, 'Apply']], `${what} is owned by one apply`);
    }
    assert.deepEqual(writes(cs), [
      'update kvstores orders',
      ...['serviceaccounts orders', 'roles orders', 'rolebindings orders', 'configmaps orders-config', 'services orders-peers', 'services orders',
        'networkpolicies orders', 'poddisruptionbudgets orders', 'statefulsets orders', 'kvstores/status orders'].map((w) => `patch ${w}`),
    ], 'the finalizer, then one apply per object, then the status');
    assert.deepEqual((await cs.kvV1alpha1.kvStores(NS).get('orders')).metadata?.finalizers, [FINALIZER]);
  });

  it('owns its PodDisruptionBudget in policy/v1beta1 where the operator runs with that version', async () => {
    const cs = fakeCluster([kvStore('orders', { replicas: 5 })], ['policy/v1beta1']);
    await reconcile(cs, 'policy/v1beta1');
    const pdb = await new KubeClientset(cs.transport).policyV1beta1.podDisruptionBudgets(NS).get('orders');
    assert.deepEqual([pdb.apiVersion, pdb.spec?.minAvailable, pdb.metadata?.ownerReferences?.[0]?.uid], ['policy/v1beta1', 3, 'uid-orders']);
    assert.equal((await cs.kvV1alpha1.kvStores(NS).get('orders')).status?.disruptionBudgetVersion, 'policy/v1beta1');
  });

  it('reports Ready and Available from the members the StatefulSet has ready, and writes the status only when it changes', async () => {
    const cs = fakeCluster([kvStore('orders')]);
    await reconcile(cs);
    let store = await cs.kvV1alpha1.kvStores(NS).get('orders');
    assert.deepEqual(store.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]), [
      ['Ready', 'False', 'MembersNotReady', '0/3 members ready', 1],
      ['Available', 'False', 'QuorumNotReady', '0/3 members ready; a quorum is 2', 1],
    ]);
    assert.deepEqual([store.status?.readyReplicas, store.status?.disruptionBudgetVersion], [0, 'policy/v1']);
    const notReadySince = condition(store, 'Ready')?.lastTransitionTime;

    // Nothing changed: the objects are applied again (a no-op for the server), the status is not written.
    cs.fake.clearActions();
    await reconcile(cs);
    assert.ok(!writes(cs).some((w) => w.startsWith('patch kvstores/status')), writes(cs).join('\n'));

    // Two members ready: a quorum, so the store answers (Available), but it is not Ready; then all three.
    const statefulSets = new KubeClientset(cs.transport).appsV1.statefulSets(NS);
    await statefulSets.applyStatus({ ...statefulSetApply('orders', NS), status: { replicas: 3, readyReplicas: 2 } }, { fieldManager: 'kube-controller-manager' });
    await reconcile(cs);
    store = await cs.kvV1alpha1.kvStores(NS).get('orders');
    assert.deepEqual([condition(store, 'Ready')?.status, condition(store, 'Available')?.status, condition(store, 'Available')?.reason, store.status?.readyReplicas], ['False', 'True', 'QuorumReady', 2]);
    assert.equal(condition(store, 'Ready')?.lastTransitionTime, notReadySince, 'Ready did not flip: its transition time stays');
    await statefulSets.applyStatus({ ...statefulSetApply('orders', NS), status: { replicas: 3, readyReplicas: 3 } }, { fieldManager: 'kube-controller-manager' });
    await reconcile(cs);
    store = await cs.kvV1alpha1.kvStores(NS).get('orders');
    assert.deepEqual(condition(store, 'Ready'), { ...condition(store, 'Ready'), status: 'True', reason: 'MembersReady', message: '3/3 members ready' });
  });

  it('follows the spec and keeps what other field managers added', async () => {
    const cs = fakeCluster([kvStore('orders')]);
    await reconcile(cs);
    const kube = new KubeClientset(cs.transport);
    // A sidecar injector (another field manager) adds a container: containers merge by name, so both stay.
    await kube.appsV1.statefulSets(NS).apply(
      { ...statefulSetApply('orders', NS), spec: { template: { spec: { containers: [{ name: 'metrics', image: 'exporter:1' }] } } } },
      { fieldManager: 'injector' },
    );
    const stores = cs.kvV1alpha1.kvStores(NS);
    await stores.update({ ...(await stores.get('orders')), spec: { replicas: 5, clients: { matchLabels: { role: 'api' } } } });
    await reconcile(cs);
    const sts = await kube.appsV1.statefulSets(NS).get('orders');
    assert.deepEqual([sts.spec?.replicas, sts.spec?.template.spec?.containers.map((c) => c.name).sort()], [5, ['etcd', 'metrics']]);
    assert.equal((await kube.policyV1.podDisruptionBudgets(NS).get('orders')).spec?.minAvailable, 3);
    assert.equal((await kube.coreV1.configMaps(NS).get('orders-config')).data?.['ETCD_INITIAL_CLUSTER']?.split(',').length, 5);
    assert.deepEqual((await kube.networkingV1.networkPolicies(NS).get('orders')).spec?.ingress?.[1]?.from, [{ podSelector: { matchLabels: { role: 'api' } } }]);
  });

  it('on deletion deletes the store\'s claims, and only them, then lets the store go', async () => {
    const cs = fakeCluster([kvStore('orders')]);
    await reconcile(cs);
    const claims = new KubeClientset(cs.transport).coreV1.persistentVolumeClaims(NS);
    const claim = (name: string, labels: Record<string, string>): PersistentVolumeClaim => ({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, labels }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    // As the StatefulSet controller makes them: data-<store>-<i>, with the selector's labels.
    for (const name of ['data-orders-0', 'data-orders-1', 'data-orders-2']) await claims.create(claim(name, MEMBERS));
    await claims.create(claim('data-orders-archive', MEMBERS)); // the store's labels, not a member's claim
    await claims.create(claim('data-other-0', { ...MEMBERS, 'app.kubernetes.io/instance': 'other' })); // another store's
    await claims.create(claim('data-orders-3', {})); // a member's name, not the store's labels

    await cs.kvV1alpha1.kvStores(NS).delete('orders');
    assert.ok((await cs.kvV1alpha1.kvStores(NS).get('orders')).metadata?.deletionTimestamp, 'the finalizer holds the store');
    const recorder = new FakeEventRecorder();
    cs.fake.clearActions();
    await reconcile(cs, 'policy/v1', recorder);

    assert.deepEqual((await claims.list()).items.map((c) => c.metadata?.name).sort(), ['data-orders-3', 'data-orders-archive', 'data-other-0']);
    assert.deepEqual(writes(cs), ['delete persistentvolumeclaims data-orders-0', 'delete persistentvolumeclaims data-orders-1', 'delete persistentvolumeclaims data-orders-2', 'update kvstores orders'], 'no apply to a store being deleted');
    await assert.rejects(cs.kvV1alpha1.kvStores(NS).get('orders'), /not found/, 'the finalizer removed, the store is gone');
    assert.deepEqual(recorder.events, ['Normal ClaimsDeleted deleted PersistentVolumeClaims data-orders-0, data-orders-1, data-orders-2']);
  });

  it('keeps the finalizer when a claim cannot be deleted, and retries', async () => {
    const cs = fakeCluster([kvStore('orders')]);
    await reconcile(cs);
    await new KubeClientset(cs.transport).coreV1.persistentVolumeClaims(NS).create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-orders-0', labels: MEMBERS } });
    await cs.kvV1alpha1.kvStores(NS).delete('orders');
    cs.fake.prependReactor('delete', 'persistentvolumeclaims', () => ({ handled: true, error: new ApiError(newStatus(500, 'InternalError', 'etcd is down')) }));
    await assert.rejects(reconcile(cs), /finalizer "kv\.kubegen\.io\/delete-claims" failed: etcd is down/);
    assert.deepEqual((await cs.kvV1alpha1.kvStores(NS).get('orders')).metadata?.finalizers, [FINALIZER]);
  });

  it('reports an apply the apiserver refuses in Ready; an invalid one is not retried', async () => {
    const cs = fakeCluster([kvStore('orders')]);
    const refusal = 'StatefulSet.apps "orders" is invalid: spec: Forbidden: updates to statefulset spec for fields other than \'replicas\', \'template\', \'updateStrategy\' and \'minReadySeconds\' are forbidden';
    cs.fake.prependReactor('patch', 'statefulsets', () => ({ handled: true, error: new ApiError(newStatus(422, 'Invalid', refusal)) }));
    await assert.rejects(reconcile(cs), (err: unknown) => isTerminalError(err));
    const ready = condition(await cs.kvV1alpha1.kvStores(NS).get('orders'), 'Ready');
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', 'InvalidSpec', refusal]);

    cs.fake.prependReactor('patch', 'statefulsets', () => ({ handled: true, error: new ApiError(newStatus(500, 'InternalError', 'etcd is down')) }));
    await assert.rejects(reconcile(cs), (err: unknown) => !isTerminalError(err) && /etcd is down/.test(String(err)));
    assert.equal(condition(await cs.kvV1alpha1.kvStores(NS).get('orders'), 'Ready')?.reason, 'ApplyFailed');
  });

  it('does nothing for a store that is gone', async () => {
    const cs = fakeCluster([]);
    await reconcile(cs);
    assert.deepEqual(writes(cs), []);
  });
});
