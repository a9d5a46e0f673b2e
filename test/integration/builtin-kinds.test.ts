/**
 * Every built-in kind kube-apiserver 1.20 (envtest's `full` profile) serves in a version the Kubernetes 1.36 API also
 * has — computed from the live server's discovery intersected with the built-in API model, not listed here — gets one
 * object through its life, starting from its `kubegen sample` (`sampleOfBuiltin`): created, read, listed, watched
 * (the typed client's watch and the kind's `KubeInformers` informer), updated and deleted through the accessor
 * `KubeClientset` has for its group version, with only the verbs discovery lists for it: the reviews are created
 * (the server answers with its verdict), ComponentStatus is listed and read. What the server cannot finish without
 * controllers is asserted as it answers (a Namespace waits on its `kubernetes` finalizer, a claim on its protection
 * finalizer) and then finished as the controller would. The samples' seeds are kept honest here.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/api/clientset.js';
import { KubeInformers } from '@kubegen/runtime/internal/api/informers.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { DiscoveryClient } from '@kubegen/runtime/internal/discovery/discovery-client.js';
import { loadBuiltinApi } from 'kubegen/internal/builtin-api/index.js';
import { groupVersionMember, pluralMember } from 'kubegen/internal/generate/names.js';
import { groupIdentifiers } from 'kubegen/internal/model/index.js';
import type { KindVersion } from 'kubegen/internal/model/index.js';
import { createOnly, fullLifecycle, readOnly, type KindClient, type KindInformer, type LifecycleReport, type ServedKind } from './support/builtin-kind-lifecycle.js';
import { sharedEnv, uniqueName } from './support/env.js';

describe('every built-in kind kube-apiserver 1.20 serves in a version Kubernetes 1.36 has: its life through the typed client and informer, from its sample', { concurrency: 4 }, async () => {
  const env = await sharedEnv();
  const ns = await env.newNamespace('builtin-kinds');
  const factory = new SharedInformerFactory(env.transport, { informerName: 'builtin-kinds' });
  const cs = new KubeClientset(env.transport);
  const informers = new KubeInformers(factory);
  after(async () => {
    await factory.shutdown();
    await env.release();
  });

  const { model, kubernetesVersion } = loadBuiltinApi();
  const groupIds = groupIdentifiers(model);
  const modelKinds: KindVersion[] = model.resources.flatMap((resource) => resource.versions.map((version) => ({ resource: { ...resource, versions: [version] }, version })));
  const discovery = await new DiscoveryClient(env.transport).serverGroupsAndResources();
  assert.equal(discovery.failed.size, 0, `discovery failed for ${[...discovery.failed.keys()].join(', ')}`);
  const served: ServedKind[] = [];
  const notInModel: string[] = [];
  for (const resources of discovery.resources.values()) {
    for (const r of resources) {
      const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
      const kv = modelKinds.find((k) => k.resource.group === r.group && k.version.name === r.version && k.resource.names.kind === r.kind && k.resource.names.plural === r.resource);
      if (kv) served.push({ kv, apiVersion, verbs: r.verbs, namespaced: r.namespaced });
      else notInModel.push(`${r.kind} ${apiVersion}`);
    }
  }
  served.sort((a, b) => (a.apiVersion < b.apiVersion ? -1 : a.apiVersion > b.apiVersion ? 1 : a.kv.resource.names.kind < b.kv.resource.names.kind ? -1 : 1));
  const reports = new Map<string, LifecycleReport>();
  // The last test reads every kind's report: it waits for the kinds' tests, which run four at a time.
  const finished = served.map(() => {
    let resolve!: () => void;
    return { promise: new Promise<void>((r) => (resolve = r)), resolve: () => resolve() };
  });
  const label = (k: ServedKind): string => `${k.kv.resource.names.kind} ${k.apiVersion}`;

  it(`the kinds: those the server serves in a version the ${kubernetesVersion} API has`, (t) => {
    t.diagnostic(`${served.length} kinds: ${served.map(label).join(', ')}`);
    t.diagnostic(`served, but not kinds of kubegen's built-in ${kubernetesVersion} API (left out): ${notInModel.join(', ')}`);
    assert.ok(served.length >= 60, `${served.length} kinds`);
    for (const must of ['Pod v1', 'Namespace v1', 'Deployment apps/v1', 'PodDisruptionBudget policy/v1beta1', 'CronJob batch/v1beta1', 'TokenReview authentication.k8s.io/v1', 'ComponentStatus v1']) {
      assert.ok(served.some((k) => label(k) === must), `${must} is among them`);
    }
  });

  for (const [i, kind] of served.entries()) {
    it(`${label(kind)}: ${kind.verbs.join(', ')}`, async () => {
      try {
        await lifeOf(kind);
      } finally {
        finished[i]!.resolve();
      }
    });
  }

  async function lifeOf(kind: ServedKind): Promise<void> {
    const { kv } = kind;
    const group = (cs as unknown as Record<string, Record<string, (ns?: string) => KindClient>>)[groupVersionMember(groupIds.get(kv.resource.group)!, kv.version.name)]!;
    const accessor = pluralMember(kv);
    assert.equal(typeof group[accessor], 'function', `KubeClientset has ${groupVersionMember(groupIds.get(kv.resource.group)!, kv.version.name)}.${accessor}`);
    const client = kind.namespaced ? group[accessor]!(ns) : group[accessor]!();
    const base = `${kv.resource.names.singular}-${kv.version.name}`;
    const name = kind.namespaced ? base : uniqueName(base);
    let report: LifecycleReport;
    if (!kind.verbs.includes('create')) report = await readOnly(kind, client);
    else if (!kind.verbs.includes('get')) report = await createOnly(kind, client, name, ns);
    else {
      let inf: KindInformer | undefined;
      if (kind.verbs.includes('list') && kind.verbs.includes('watch')) {
        const groupInformers = (informers as unknown as Record<string, Record<string, (o: object) => KindInformer>>)[groupVersionMember(groupIds.get(kv.resource.group)!, kv.version.name)]!;
        inf = groupInformers[accessor]!({ namespace: ns, fieldSelector: `metadata.name=${name}` });
        factory.start();
      }
      report = await fullLifecycle(kind, client, inf, name, ns);
      if (kind.verbs.includes('watch')) {
        assert.equal(report.watched[0], 'MODIFIED', `the watch from the creation's resourceVersion: ${report.watched.join(', ')}`);
        assert.match(report.watched.at(-1) ?? '', /^DELETED/, `the watch ends with the deletion: ${report.watched.join(', ')}`);
        assert.equal(report.informed[0], 'add:');
        assert.ok(report.informed.includes('update:true'), `the informer heard the update: ${report.informed.join(', ')}`);
        assert.equal(report.informed.at(-1), 'delete');
      }
    }
    const expected = ['create', 'get', 'list', 'watch', 'update', 'delete'].filter((v) => kind.verbs.includes(v));
    assert.deepEqual([...report.verbs].sort(), [...(kind.verbs.includes('create') && !kind.verbs.includes('get') ? ['create'] : expected)].sort());
    reports.set(label(kind), report);
  }

  it('what deletion waited on, as the server answered', async (t) => {
    await Promise.all(finished.map((f) => f.promise));
    const waited = [...reports].filter(([, r]) => r.deletion !== undefined && r.deletion !== 'gone');
    t.diagnostic(`deleted at once: ${[...reports].filter(([, r]) => r.deletion === 'gone').length}; waited on finalizers: ${waited.map(([k, r]) => `${k} (${r.deletion})`).join('; ')}`);
    const of = (k: string): string | undefined => reports.get(k)?.deletion;
    assert.equal(of('Namespace v1'), 'finalizers spec:kubernetes', 'no namespace controller: Terminating until finalized');
    assert.equal(of('PersistentVolumeClaim v1'), 'finalizers kubernetes.io/pvc-protection');
    assert.equal(of('Job batch/v1'), 'finalizers orphan', "a Job's deletion orphans its pods by default: the garbage collector's finalizer");
    assert.equal(of('Pod v1'), 'gone', 'a pod on no node goes at once');
  });
});
