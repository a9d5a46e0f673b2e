/**
 * examples/kv-store as a user runs it — `node examples/kv-store/dist/src/main.js --kubeconfig …` — on the envtest
 * profiles that serve what it owns, and on one that serves none of it:
 *
 * - `full` (kube-apiserver 1.20, which serves PodDisruptionBudget as policy/v1beta1 only), the operator running as
 *   its ServiceAccount bound to config/rbac as deployed: `--pdb-version=auto` finds policy/v1beta1; every owned object
 *   is applied (the Role and RoleBinding too: its RBAC holds what it grants), the NetworkPolicy read back has its
 *   rules' `from`, the status says 0 of 3 members ready (no controller-manager runs Pods here); drift is undone; a
 *   deleted store takes exactly its claims with it; nothing is refused; SIGTERM exits 0.
 * - `full` with `--pdb-version=policy/v1` (said, not served by 1.20): the controller is held back and `/readyz` names
 *   the kind and the release it needs.
 * - `cluster` (the same apiserver with a controller-manager, a scheduler and hollow nodes): the StatefulSet controller
 *   makes the members and their claims from the claim template; with a PersistentVolume for each claim the members
 *   run, and the store becomes Available, then Ready; deleting it deletes the claims, and the garbage collector the
 *   objects it owned.
 * - `crd-only` (the CRD apiserver 1.36: no built-in kinds): the operator refuses to start, naming both versions.
 *
 * The policy/v1 path (every cluster from 1.21 on) runs in the example's unit tests, on the fake.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/api/clientset.js';
import type { PersistentVolumeClaim } from '@kubegen/runtime/internal/api/core/v1/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { clusterOf, runAsServiceAccount } from '@kubegen/runtime/internal/testing/envtest/envtest-rbac.js';
import { readProjectRbac } from '@kubegen/runtime/internal/testing/envtest/project-rbac.js';
import { Clientset } from '../../examples/kv-store/src/generated/index.js';
import type { KVStore } from '../../examples/kv-store/src/generated/kv.kubegen.io/v1alpha1/index.js';
import { REPO_ROOT } from '../support/paths.js';
import { eventually } from '../support/wait.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureExampleBuilt, freePort, SampleControllerProcess } from './support/sample-controller-process.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/kv-store');
const CRD = path.join(EXAMPLE, 'config/crd/bases/kv.kubegen.io_kvstores.yaml');
const members = (store: string) => ({ 'app.kubernetes.io/name': 'kv-store', 'app.kubernetes.io/instance': store });
const kvStore = (name: string, spec: KVStore['spec'] = {}): KVStore => ({ apiVersion: 'kv.kubegen.io/v1alpha1', kind: 'KVStore', metadata: { name }, spec });
const condition = (s: KVStore | undefined, type: string) => s?.status?.conditions?.find((c) => c.type === type);
const claim = (name: string, labels: Record<string, string>): PersistentVolumeClaim => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, labels }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

/** Whether a read failed with a 404 (the object is gone). */
const gone = (read: Promise<unknown>): Promise<boolean> => read.then(() => false, (err: unknown) => {
  if (isNotFound(err)) return true;
  throw err;
});

let main: string;
let tmp: string;
before(() => {
  main = ensureExampleBuilt('kv-store', { main: 'dist/src/main.js', sources: ['src', 'apis'] });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kv-store-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The operator as a process with `args`, logging JSON; the caller kills it. */
const operator = (kubeconfig: string, ...args: string[]): SampleControllerProcess =>
  new SampleControllerProcess('kv-store', [`--kubeconfig=${kubeconfig}`, '--metrics-bind-address=0', '--log-format=json', ...args], {}, main);

describe('examples/kv-store on the full profile (kube-apiserver 1.20)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ crdPaths: [CRD] });
  });
  after(async () => env?.release());

  it('as its ServiceAccount: finds policy/v1beta1, applies every owned object, undoes drift, reports status, and deletes exactly its claims with the store', async () => {
    const ns = await env.newNamespace('kv');
    // config/rbac as `kubectl apply -k config/default` creates it, its names prefixed with the namespace (the
    // ClusterRole and its binding are cluster-wide).
    const rbac = readProjectRbac(EXAMPLE, { namespace: `${ns}-system`, namePrefix: `${ns}-` });
    const identity = await runAsServiceAccount(env.transport, clusterOf(env.kubeConfig), rbac, { kubeconfigPath: path.join(tmp, `${ns}.kubeconfig`) });
    const kube = new KubeClientset(env.transport);
    const stores = new Clientset(env.transport).kvV1alpha1.kvStores(ns);
    const proc = operator(identity.kubeconfigPath);
    try {
      const chosen = await proc.waitForLog((l) => l.msg === 'PodDisruptionBudget version', 'the PodDisruptionBudget version');
      assert.deepEqual([chosen['version'], chosen['from']], ['policy/v1beta1', 'discovery']);

      await stores.create(kvStore('orders', { clients: { matchLabels: { role: 'api' } } }));
      const store = await eventually('the status of orders', async () => {
        const s = await stores.get('orders');
        return condition(s, 'Available') ? s : undefined;
      }, 30_000).catch((err: unknown) => assert.fail(`${String(err)}\n${proc.tail()}`));
      assert.deepEqual(store.spec, { replicas: 3, image: 'registry.k8s.io/etcd:3.5.21-0', storage: { size: '1Gi' }, clients: { matchLabels: { role: 'api' } } }, 'the CRD defaults');
      assert.deepEqual(store.metadata?.finalizers, ['kv.kubegen.io/delete-claims']);
      assert.deepEqual([condition(store, 'Ready')?.reason, condition(store, 'Ready')?.message, condition(store, 'Available')?.reason], ['MembersNotReady', '0/3 members ready', 'QuorumNotReady'], 'no controller-manager: no Pods');
      assert.equal(store.status?.disruptionBudgetVersion, 'policy/v1beta1');

      const owner = { apiVersion: 'kv.kubegen.io/v1alpha1', kind: 'KVStore', name: 'orders', uid: store.metadata!.uid!, controller: true, blockOwnerDeletion: true };
      const pdb = await kube.policyV1beta1.podDisruptionBudgets(ns).get('orders');
      assert.deepEqual([pdb.spec?.minAvailable, pdb.spec?.selector, pdb.metadata?.ownerReferences], [2, { matchLabels: members('orders') }, [owner]]);
      // The bug this example was written for: the ingress rules' sources, `from` on the wire, as the apiserver keeps them.
      const policy = await kube.networkingV1.networkPolicies(ns).get('orders');
      assert.deepEqual(policy.spec?.ingress?.map((r) => r.from), [[{ podSelector: { matchLabels: members('orders') } }], [{ podSelector: { matchLabels: { role: 'api' } } }]]);
      const raw = JSON.parse((await env.transport.raw('GET', `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies/orders`)).body.toString()) as { spec: { ingress: Record<string, unknown>[] } };
      assert.deepEqual(raw.spec.ingress.map((r) => Object.keys(r).sort()), [['from', 'ports'], ['from', 'ports']]);
      const sts = await kube.appsV1.statefulSets(ns).get('orders');
      assert.deepEqual([sts.spec?.replicas, sts.spec?.serviceName, sts.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.['storage']], [3, 'orders-peers', '1Gi']);
      assert.equal((await kube.coreV1.services(ns).get('orders-peers')).spec?.clusterIP, 'None');
      assert.deepEqual((await kube.coreV1.services(ns).get('orders')).spec?.ports?.map((p) => p.port), [2379]);
      assert.match((await kube.coreV1.configMaps(ns).get('orders-config')).data?.['ETCD_INITIAL_CLUSTER'] ?? '', /^orders-0=http:\/\/orders-0\.orders-peers\.[a-z0-9-]+\.svc:2380,orders-1=/);
      assert.deepEqual((await kube.rbacV1.roleBindings(ns).get('orders')).subjects, [{ kind: 'ServiceAccount', name: 'orders', namespace: ns }]);
      for (const obj of [sts, policy, await kube.coreV1.serviceAccounts(ns).get('orders'), await kube.rbacV1.roles(ns).get('orders')]) {
        assert.deepEqual(obj.metadata?.ownerReferences, [owner], `${obj.kind} is the store's`);
      }

      // Drift: a deleted ConfigMap comes back; a NetworkPolicy opened up by someone else is closed again.
      await kube.coreV1.configMaps(ns).delete('orders-config');
      await kube.networkingV1.networkPolicies(ns).update({ ...policy, spec: { ...policy.spec, ingress: [{}] } }, { fieldManager: 'someone' });
      await eventually('the ConfigMap back and the NetworkPolicy closed', async () => {
        const cm = await kube.coreV1.configMaps(ns).get('orders-config').catch(() => undefined);
        const np = await kube.networkingV1.networkPolicies(ns).get('orders');
        return cm && np.spec?.ingress?.length === 2 && np.spec.ingress.every((r) => r.from?.length === 1) ? true : undefined;
      }, 30_000);

      // The claims, as the StatefulSet controller would have made them, and two that are not the store's.
      const claims = kube.coreV1.persistentVolumeClaims(ns);
      for (const name of ['data-orders-0', 'data-orders-1', 'data-orders-2']) await claims.create(claim(name, members('orders')));
      await claims.create(claim('data-other-0', members('other')));
      await claims.create(claim('backup', members('orders')));
      await stores.delete('orders');
      await eventually('orders gone', async () => ((await gone(stores.get('orders'))) ? true : undefined), 30_000);
      // Deleted: gone, or held by the kubernetes.io/pvc-protection finalizer of the admission plugin (no controller here releases it).
      const left = (await claims.list()).items.filter((c) => !c.metadata?.deletionTimestamp).map((c) => c.metadata?.name).sort();
      assert.deepEqual(left, ['backup', 'data-other-0']);
      const events = (await kube.coreV1.events(ns).list()).items.filter((e) => e.reason === 'ClaimsDeleted');
      assert.deepEqual(events.map((e) => [e.involvedObject.name, e.message]), [['orders', 'deleted PersistentVolumeClaims data-orders-0, data-orders-1, data-orders-2']]);

      const refused = proc.lines.filter((l) => l.level === 'error'); // a 403 is a Reconciler error or a failed list, at error level
      assert.deepEqual(refused, [], 'no request refused, no reconcile error');
      proc.child.kill('SIGTERM');
      assert.deepEqual(await proc.waitForExit(30_000), { code: 0, signal: null }, proc.tail());
    } finally {
      await proc.kill();
      await identity.uninstall();
    }
  });

  it('with --pdb-version=policy/v1, which 1.20 does not serve: the controller waits and /readyz says why', async () => {
    const ns = await env.newNamespace('kv-v1');
    const port = await freePort();
    const proc = operator(env.kubeconfigPath, '--pdb-version=policy/v1', `--health-probe-bind-address=127.0.0.1:${port}`);
    try {
      const chosen = await proc.waitForLog((l) => l.msg === 'PodDisruptionBudget version', 'the PodDisruptionBudget version');
      assert.deepEqual([chosen['version'], chosen['from']], ['policy/v1', '--pdb-version']);
      await new Clientset(env.transport).kvV1alpha1.kvStores(ns).create(kvStore('orders'));
      const why = await eventually('/readyz/controller-kvstore to name the kind', async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz/controller-kvstore`);
        const body = await res.text();
        return res.status !== 200 && /is not served/.test(body) ? body : undefined;
      }, 30_000);
      assert.match(why, /PodDisruptionBudget policy\/v1 is not served by this apiserver \(it serves policy\/v1beta1\); policy\/v1 PodDisruptionBudget needs Kubernetes 1\.21 or later/);
      assert.equal((await new Clientset(env.transport).kvV1alpha1.kvStores(ns).get('orders')).metadata?.finalizers, undefined, 'not reconciled');
    } finally {
      await proc.kill();
    }
  });
});

describe('examples/kv-store on the cluster profile (1.20 with a controller-manager, a scheduler and hollow nodes)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'cluster', crdPaths: [CRD] });
  });
  after(async () => env?.release());

  it('the StatefulSet controller makes the members and their claims; the members run; deleting the store deletes the claims, the garbage collector the rest', async (t) => {
    const ns = await env.newNamespace('kv-cluster');
    const kube = new KubeClientset(env.transport);
    const stores = new Clientset(env.transport).kvV1alpha1.kvStores(ns);
    // A PersistentVolume for each claim, of a class of this test's own (nothing else binds them; no provisioner needed).
    const storageClassName = `kv-${ns}`;
    const volumes = [0, 1, 2].map((i) => `${ns}-${i}`);
    for (const name of volumes) {
      await kube.coreV1.persistentVolumes().create({
        apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
        spec: { storageClassName, capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, persistentVolumeReclaimPolicy: 'Retain' },
      });
    }
    const proc = operator(env.kubeconfigPath);
    /** What the cluster made, for a failure's message. */
    const state = async (): Promise<string> => [
      ...(await kube.coreV1.persistentVolumeClaims(ns).list()).items.map((c) => `claim ${c.metadata?.name}: ${c.status?.phase}`),
      ...(await kube.coreV1.pods(ns).list()).items.map((p) => `pod ${p.metadata?.name}: ${p.status?.phase} on ${p.spec?.nodeName}, ${JSON.stringify(p.status?.conditions?.map((c) => [c.type, c.status, c.reason]))}`),
      ...(await kube.coreV1.events(ns).list()).items.map((e) => `event ${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}: ${e.message}`),
    ].join('\n');
    try {
      await stores.create(kvStore('orders', { storage: { storageClassName } }));
      const started = performance.now();
      const claims = await eventually('3 claims bound', async () => {
        const list = (await kube.coreV1.persistentVolumeClaims(ns).list()).items;
        return list.length === 3 && list.every((c) => c.status?.phase === 'Bound') ? list : undefined;
      }, 60_000).catch(async (err: unknown) => assert.fail(`${String(err)}\n${await state()}`));
      assert.deepEqual(claims.map((c) => c.metadata?.name).sort(), ['data-orders-0', 'data-orders-1', 'data-orders-2']);
      for (const c of claims) assert.deepEqual(c.metadata?.labels, members('orders'), 'the StatefulSet controller copies the selector labels');
      const store = await eventually('orders Ready', async () => {
        const s = await stores.get('orders');
        return condition(s, 'Ready')?.status === 'True' ? s : undefined;
      }, 90_000).catch(async (err: unknown) => assert.fail(`${String(err)}\n${await state()}\n${proc.tail()}`));
      assert.deepEqual([store.status?.readyReplicas, condition(store, 'Available')?.status], [3, 'True']);
      t.diagnostic(`3 members Ready ${((performance.now() - started) / 1000).toFixed(1)} s after the KVStore was created`);

      await stores.delete('orders');
      // The store's finalizer deletes the claims (kept by the pvc-protection controller until the Pods are gone), the
      // garbage collector what the store owned, and the StatefulSet's Pods after it.
      const mine = { labelSelector: 'app.kubernetes.io/instance=orders' };
      await eventually('everything of orders gone', async () => {
        const left = [
          ...(await kube.coreV1.persistentVolumeClaims(ns).list(mine)).items.map((o) => `claim ${o.metadata?.name}`),
          ...(await kube.coreV1.pods(ns).list(mine)).items.map((o) => `pod ${o.metadata?.name}`),
          ...(await kube.appsV1.statefulSets(ns).list(mine)).items.map((o) => `statefulset ${o.metadata?.name}`),
          ...(await kube.coreV1.services(ns).list(mine)).items.map((o) => `service ${o.metadata?.name}`),
          ...(await kube.coreV1.configMaps(ns).list(mine)).items.map((o) => `configmap ${o.metadata?.name}`),
          ...(await kube.policyV1beta1.podDisruptionBudgets(ns).list(mine)).items.map((o) => `pdb ${o.metadata?.name}`),
          ...(await kube.networkingV1.networkPolicies(ns).list(mine)).items.map((o) => `networkpolicy ${o.metadata?.name}`),
          ...(await kube.rbacV1.roleBindings(ns).list(mine)).items.map((o) => `rolebinding ${o.metadata?.name}`),
        ];
        if (left.length > 0) throw new Error(`left: ${left.join(', ')}`);
        return true;
      }, 90_000);
    } finally {
      await proc.kill();
      for (const name of volumes) await kube.coreV1.persistentVolumes().delete(name).catch(() => undefined);
    }
  });
});

describe('examples/kv-store on the crd-only profile (the CRD apiserver 1.36: no built-in kinds)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
  });
  after(async () => env?.release());

  it('refuses to start, naming the PodDisruptionBudget versions it looked for', async () => {
    const proc = operator(env.kubeconfigPath);
    const exit = await proc.waitForExit(30_000);
    assert.equal(exit.code, 1, proc.tail());
    assert.match(proc.tail(), /the apiserver serves no PodDisruptionBudget \(neither policy\/v1 nor policy\/v1beta1; its policy group: not served\): kv-store needs one/);
  });
});
