/**
 * The `cluster` envtest profile: kube-apiserver + etcd + kube-controller-manager + kube-scheduler + 3 Kubemark hollow
 * nodes (the shared one `hack/run-tests.mjs` starts, or one of this file's own). What only a cluster does: nodes
 * Ready, a Deployment's Pods scheduled and Running with their ServiceAccount token mounted, the three cascading
 * deletion modes (support/deletion-scenarios.ts, written to be run against other garbage collectors too), the
 * Deployment -> ReplicaSet -> Pods chain collected, and a namespace deleted to completion.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { Pod } from '@kubegen/runtime/internal/builtin/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { NAMESPACE_RESOURCE } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { eventually } from '../support/wait.js';
import { isReady, listNodes, nginxDeployment, podsOf } from './support/cluster.js';
import { CHILD, DELETION_SCENARIOS, PARENT } from './support/deletion-scenarios.js';
import { sharedEnv, type TestEnv } from './support/env.js';

describe('envtest profile cluster (controller-manager, scheduler, hollow nodes)', () => {
  let env: TestEnv;
  let kube: KubeClientset;
  before(async () => {
    env = await sharedEnv({ profile: 'cluster' });
    kube = new KubeClientset(env.transport);
  });
  after(async () => env?.release());

  it('has 3 hollow nodes, Ready, schedulable, each a kubelet of its own', async () => {
    const nodes = await listNodes(env.transport);
    assert.deepEqual(nodes.map((n) => n.metadata?.name).sort(), ['hollow-node-0', 'hollow-node-1', 'hollow-node-2']);
    for (const n of nodes) {
      assert.ok(isReady(n), `${n.metadata?.name} is Ready`);
      assert.deepEqual(n.spec?.taints ?? [], [], `${n.metadata?.name} carries no taint`);
      assert.equal(n.spec?.providerID, `kubemark://${n.metadata?.name}`);
    }
    // Each kubelet heartbeats through its own Lease, as user system:node:<name> (the Node authorizer lets it).
    const leases = await kube.coordinationV1.leases('kube-node-lease').list();
    assert.deepEqual(leases.items.map((l) => l.spec?.holderIdentity).sort(), ['hollow-node-0', 'hollow-node-1', 'hollow-node-2']);
  });

  it('runs a Deployment of 3 replicas to 3 available Pods on the hollow nodes, with their ServiceAccount token', async () => {
    const ns = await env.newNamespace('cluster-deploy');
    await kube.appsV1.deployments(ns).create(nginxDeployment('web', 3));
    const d = await eventually('3 available replicas', async () => {
      const d = await kube.appsV1.deployments(ns).get('web');
      return d.status?.availableReplicas === 3 ? d : undefined;
    }, 90_000);
    assert.equal(d.status?.readyReplicas, 3);
    const pods = await podsOf(env.transport, ns, 'web');
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.equal(p.status?.phase, 'Running', `${p.metadata?.name} is Running`);
      assert.match(p.spec?.nodeName ?? '', /^hollow-node-[0-2]$/);
      assert.ok(p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      // The ServiceAccount admission plugin mounted the token the controller-manager made for `default`.
      assert.equal(p.spec?.serviceAccountName, 'default');
      assert.ok(p.spec?.volumes?.some((v) => v.secret?.secretName?.startsWith('default-token-')), JSON.stringify(p.spec?.volumes));
    }
    // That token is signed by the controller-manager with the envtest's key and authenticates at the apiserver, whose
    // serving certificate the secret's ca.crt (--root-ca-file) verifies, as a Pod's client would.
    const sa = await kube.coreV1.serviceAccounts(ns).get('default');
    const secret = await kube.coreV1.secrets(ns).get(sa.secrets![0]!.name!);
    const fromSecret = (key: string): string => Buffer.from(secret.data![key]!, 'base64').toString('utf8');
    const asDefault = new HttpTransport({ server: env.restConfig.server, token: fromSecret('token'), caData: fromSecret('ca.crt') });
    try {
      const res = await asDefault.raw('GET', `/api/v1/namespaces/${ns}/secrets`);
      assert.equal(res.statusCode, 403);
      assert.match(res.body.toString('utf8'), new RegExp(`User \\\\"system:serviceaccount:${ns}:default\\\\" cannot list resource \\\\"secrets\\\\"`));
    } finally {
      asDefault.close();
    }
    await kube.coreV1.namespaces().delete(ns);
  });

  describe('cascading deletion by the garbage collector', () => {
    let ns: string;
    before(async () => {
      ns = await env.newNamespace('cluster-gc');
    });
    after(async () => {
      await kube.coreV1.namespaces().delete(ns).catch(() => undefined);
    });
    for (const [mode, scenario] of Object.entries(DELETION_SCENARIOS)) {
      it(`${mode}: ${PARENT.kind} owning ${CHILD.kind}ren`, async () => {
        await scenario({ transport: env.transport, namespace: ns });
      });
    }

    it('background, of what a controller owns: a deleted Deployment takes its ReplicaSet and Pods with it', async () => {
      await kube.appsV1.deployments(ns).create(nginxDeployment('owned', 2));
      const rs = await eventually('the ReplicaSet with 2 Pods Running', async () => {
        const list = await kube.appsV1.replicaSets(ns).list({ labelSelector: 'app=owned' });
        const pods = await podsOf(env.transport, ns, 'owned');
        return list.items.length === 1 && pods.filter((p) => p.status?.phase === 'Running').length === 2 ? list.items[0] : undefined;
      }, 90_000);
      assert.equal(rs!.metadata?.ownerReferences?.[0]?.kind, 'Deployment');
      await kube.appsV1.deployments(ns).delete('owned');
      await eventually('the ReplicaSet and Pods gone', async () => {
        const rsLeft = (await kube.appsV1.replicaSets(ns).list({ labelSelector: 'app=owned' })).items.length;
        const podsLeft = (await podsOf(env.transport, ns, 'owned')).length;
        return rsLeft === 0 && podsLeft === 0 ? true : undefined;
      }, 90_000);
    });
  });

  it('deletes a namespace to completion: Terminating, emptied (Pods on nodes, custom resources, ConfigMaps), gone', async () => {
    const ns = await env.newNamespace('cluster-ns-delete');
    await kube.appsV1.deployments(ns).create(nginxDeployment('web', 2));
    await kube.coreV1.configMaps(ns).create({ metadata: { name: 'settings' }, data: { a: '1' } });
    await new ResourceClient<KubeObject>(env.transport, PARENT, ns).create({ apiVersion: 'gc.kubegen.dev/v1', kind: 'Parent', metadata: { name: 'p' }, spec: {} } as KubeObject);
    await eventually('2 Pods Running', async () => ((await podsOf(env.transport, ns, 'web')).filter((p: Pod) => p.status?.phase === 'Running').length === 2 ? true : undefined), 90_000);
    const answer = await env.transport.request<{ status?: { phase?: string } }>({ verb: 'delete', resource: NAMESPACE_RESOURCE, name: ns });
    assert.equal(answer.status?.phase, 'Terminating');
    await eventually(`namespace ${ns} gone`, async () => {
      try {
        await kube.coreV1.namespaces().get(ns);
        return undefined;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    }, 120_000);
  });
});
