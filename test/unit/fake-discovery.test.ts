/**
 * The fake's discovery: both formats computed from the tracker's resources (the discovery client reads the same
 * result from either), the format chosen by Accept or forced legacy, stale group versions, and CRDs: seeded from the
 * corpus files, and created, changed and deleted in a running fake.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { allBuiltinResources } from '@kubegen/runtime/internal/testing/fake/builtin-resources.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { DiscoveryClient, type DiscoveryResult } from '@kubegen/runtime/internal/discovery/discovery-client.js';
import { ACCEPT_AGGREGATED_V2BETA1, StaleGroupVersionError } from '@kubegen/runtime/internal/discovery/discovery-formats.js';
import { readCrdPaths, type CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { fakeResourcesFromCrd, fakeResourcesFromCrds } from '@kubegen/runtime/internal/testing/fake/fake-crd.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { corpusRuns } from '../support/corpus.js';

const CRDS = builtinResources.customResourceDefinitions;
/** The corpus CRDs (parsed once: the files are large). */
const CORPUS = readCrdPaths(corpusRuns().flat());

/** A CRD object for `things.<group>` with the given versions (the first is the storage version). */
function crd(group: string, versions: { name: string; served?: boolean }[], extra: { shortNames?: string[]; scope?: 'Namespaced' | 'Cluster' } = {}): CrdObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${group}` },
    spec: {
      group,
      scope: extra.scope ?? 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing', ...(extra.shortNames ? { shortNames: extra.shortNames } : {}) },
      versions: versions.map((v, i) => ({ name: v.name, served: v.served ?? true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {} } })),
    },
  };
}

/** A result without the format flag, resource verbs sorted: what both formats must agree on. */
function comparable(r: DiscoveryResult): unknown {
  return { groups: r.groups, resources: [...r.resources].map(([gv, list]) => [gv, list.map((x) => ({ ...x, verbs: [...x.verbs].sort() }))]), failed: [...r.failed.keys()] };
}

describe('fake discovery', () => {
  it('serves the same resources in both formats: two requests aggregated, the walk legacy', async () => {
    const corpus = fakeResourcesFromCrds(CORPUS.filter((c, i) => CORPUS.findIndex((o) => o.metadata?.name === c.metadata?.name) === i));
    const fake = newFakeTransport([...allBuiltinResources, ...corpus]);
    const aggregated = await new DiscoveryClient(fake).serverGroupsAndResources();
    assert.equal(aggregated.aggregated, true);
    assert.deepEqual(fake.rawRequests().map((r) => r.path), ['/api', '/apis']);
    fake.clearRawRequests();
    fake.discoveryFormat = 'legacy';
    const legacy = await new DiscoveryClient(fake).serverGroupsAndResources();
    assert.equal(legacy.aggregated, false);
    assert.equal(fake.rawRequests().length, 2 + legacy.resources.size);
    assert.deepEqual(comparable(legacy), comparable(aggregated));
    const deploy = aggregated.resources.get('apps/v1')!.find((r) => r.resource === 'deployments')!;
    assert.deepEqual([deploy.singular, deploy.shortNames, deploy.categories, deploy.subresources.map((s) => `${s.name}:${s.kind}`)], ['deployment', ['deploy'], ['all'], ['status:Deployment', 'scale:Scale']]);
    // Versions by priority: the crossplane XRD serves v1 (storage) and v2; v2 is preferred, as on the apiserver.
    assert.deepEqual(aggregated.groups.find((g) => g.name === 'apiextensions.crossplane.io')?.versions.slice(0, 2), ['v2', 'v1']);
    assert.equal(aggregated.groups[0]!.name, '', 'the core group comes first');
  });

  it('answers v2beta1 to a client that accepts only that, and 404 at /api without core resources', async () => {
    const fake = newFakeTransport([CRDS]);
    const res = await fake.raw('GET', '/apis', { accept: `${ACCEPT_AGGREGATED_V2BETA1},application/json` });
    assert.equal(res.headers['content-type'], ACCEPT_AGGREGATED_V2BETA1);
    assert.equal((await fake.raw('GET', '/api', { accept: 'application/json' })).statusCode, 404);
    const result = await new DiscoveryClient(fake).serverGroupsAndResources();
    assert.deepEqual(result.groups, [{ name: 'apiextensions.k8s.io', versions: ['v1'], preferredVersion: 'v1' }]);
  });

  it('reports stale group versions: Stale in aggregated discovery, 503 in the walk', async () => {
    const fake = newFakeTransport([...allBuiltinResources]);
    fake.staleGroupVersions.add('apps/v1');
    const aggregated = await new DiscoveryClient(fake).serverGroupsAndResources();
    assert.ok(aggregated.failed.get('apps/v1') instanceof StaleGroupVersionError);
    assert.ok(aggregated.resources.has('v1'));
    fake.discoveryFormat = 'legacy';
    const legacy = await new DiscoveryClient(fake).serverGroupsAndResources();
    assert.match(legacy.failed.get('apps/v1')?.message ?? '', /503|unable to handle/);
  });

  it('serves a CRD created in a running fake, follows its versions, and stops serving it once deleted', async () => {
    const fake = newFakeTransport([CRDS]);
    const crds = new ResourceClient<CrdObject>(fake, CRDS);
    const discovery = new DiscoveryClient(fake);
    await crds.create(crd('example.com', [{ name: 'v1' }]));
    const established = await crds.get('things.example.com');
    assert.deepEqual(established.status?.conditions?.map((c) => `${c.type}=${c.status}`), ['NamesAccepted=True', 'Established=True']);
    let found = await discovery.serverGroupsAndResources();
    assert.deepEqual(found.groups.find((g) => g.name === 'example.com')?.versions, ['v1']);
    const things = new ResourceClient<KubeObject>(fake, { group: 'example.com', version: 'v1', resource: 'things', kind: 'Thing', listKind: 'ThingList', namespaced: true }, 'ns');
    await things.create({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { namespace: 'ns', name: 'a' } });

    await crds.update({ ...established, spec: crd('example.com', [{ name: 'v2' }, { name: 'v1' }]).spec });
    found = await discovery.serverGroupsAndResources();
    assert.deepEqual(found.groups.find((g) => g.name === 'example.com'), { name: 'example.com', versions: ['v2', 'v1'], preferredVersion: 'v2' });

    await crds.update({ ...(await crds.get('things.example.com')), spec: crd('example.com', [{ name: 'v2' }, { name: 'v1', served: false }]).spec });
    found = await discovery.serverGroupsAndResources();
    assert.deepEqual(found.groups.find((g) => g.name === 'example.com')?.versions, ['v2']);
    await assert.rejects(things.get('a'), isNotFound);

    await crds.delete('things.example.com');
    found = await discovery.serverGroupsAndResources();
    assert.equal(found.groups.some((g) => g.name === 'example.com'), false);
    assert.equal(fake.tracker.resources().some((r) => r.group === 'example.com'), false);
  });

  it('builds FakeResources from every corpus CRD: served versions, names, scope, status and scale', () => {
    assert.equal(corpusRuns().flat().length, 56);
    const crds = CORPUS;
    for (const c of crds) {
      const rs = fakeResourcesFromCrd(c);
      assert.deepEqual(
        rs.map((r) => r.version),
        c.spec.versions.filter((v) => v.served).map((v) => v.name),
        c.metadata!.name,
      );
      for (const r of rs) assert.equal(r.namespaced, c.spec.scope === 'Namespaced');
    }
    const rollout = fakeResourcesFromCrds(crds).find((r) => r.resource === 'rollouts')!;
    assert.deepEqual([rollout.shortNames, rollout.statusSubresource, rollout.scale?.specReplicasPath], [['ro'], true, '.spec.replicas']);
    const css = fakeResourcesFromCrds(crds).filter((r) => r.resource === 'clustersecretstores');
    assert.deepEqual(css.map((r) => r.version), ['v1'], 'a version with served: false is not served');
    assert.throws(() => fakeResourcesFromCrd({ metadata: { name: 'broken' }, spec: {} as CrdObject['spec'] }), /CustomResourceDefinition broken: spec.group/);
  });
});
