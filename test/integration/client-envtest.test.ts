/**
 * The envtest harness itself (its own control plane, not the shared one): CRDs from objects, the kubeconfig file,
 * apiserver restart on the same port with the same data, etcd compaction, and a clear error when binaries are missing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { isGone, isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadKubeConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';

const GADGET: ResourceInfo = { group: 'envtest.kubegen.dev', version: 'v1', resource: 'gadgets', kind: 'Gadget', listKind: 'GadgetList', namespaced: true };

const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.envtest.kubegen.dev' },
  spec: {
    group: 'envtest.kubegen.dev',
    scope: 'Namespaced',
    names: { plural: 'gadgets', kind: 'Gadget', listKind: 'GadgetList', singular: 'gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

describe('Envtest harness', () => {
  let env: Envtest;
  let transport: HttpTransport;

  before(async () => {
    env = await Envtest.start({ crds: [gadgetCrd] });
    transport = env.transport();
  });
  after(async () => {
    transport?.close();
    await env?.stop();
  });

  it('serves CRDs given as objects and writes a usable kubeconfig', async () => {
    const kc = loadKubeConfig({ kubeconfig: env.kubeconfigPath });
    assert.equal(kc.getCurrentCluster()?.server, env.apiserverUrl);
    const fromFile = new HttpTransport(kc);
    try {
      const ns = await createTestNamespace(fromFile, 'harness');
      const gadgets = new ResourceClient<KubeObject>(fromFile, GADGET, ns);
      await gadgets.create({ metadata: { name: 'g1' } });
      assert.equal((await gadgets.list()).items.length, 1);
    } finally {
      fromFile.close();
    }
  });

  it('restarts the apiserver on the same port with the same data', async () => {
    const ns = await createTestNamespace(transport, 'restart');
    const gadgets = new ResourceClient<KubeObject>(transport, GADGET, ns);
    await gadgets.create({ metadata: { name: 'kept' } });
    const url = env.apiserverUrl;
    await env.stopApiServer();
    await assert.rejects(transport.raw('GET', '/readyz', { timeoutMs: 1000 }), 'the apiserver is down');
    await env.startApiServer();
    assert.equal(env.apiserverUrl, url);
    assert.equal((await gadgets.get('kept')).metadata?.name, 'kept');
  });

  it('compactEtcd compacts to the current revision: older resource versions are gone', async () => {
    const ns = await createTestNamespace(transport, 'compact');
    const gadgets = new ResourceClient<KubeObject>(transport, GADGET, ns);
    const first = await gadgets.create({ metadata: { name: 'a' } });
    const oldRv = first.metadata!.resourceVersion!;
    await gadgets.create({ metadata: { name: 'b' } });
    // Before compaction an exact read at the old revision works.
    const before = await gadgets.list({ resourceVersion: oldRv, resourceVersionMatch: 'Exact' });
    assert.deepEqual(before.items.map((g) => g.metadata?.name), ['a']);
    const rev = await env.compactEtcd();
    assert.ok(rev >= Number(oldRv) + 1, `compacted to ${rev}`);
    await assert.rejects(gadgets.list({ resourceVersion: oldRv, resourceVersionMatch: 'Exact' }), (err: unknown) => isGone(err));
  });

  it('deleting a missing object is NotFound (sanity check through the restarted server)', async () => {
    const gadgets = new ResourceClient<KubeObject>(transport, GADGET, 'default');
    await assert.rejects(gadgets.delete('nope'), (err: unknown) => isNotFound(err));
  });

  it('fails fast with a clear message when the binaries are missing', async () => {
    const missing = fs.mkdtempSync('/tmp/kubegen-no-assets-');
    try {
      await assert.rejects(Envtest.start({ assetsDir: missing }), /set KUBEBUILDER_ASSETS or run `npx kubegen-setup-envtest`/);
    } finally {
      fs.rmSync(missing, { recursive: true, force: true });
    }
  });
});
