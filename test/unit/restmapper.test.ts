/**
 * DynamicRESTMapper on the fake transport: kubectl's name forms, client-go's priorities, short-name ambiguity,
 * suggestions, categories, and the refresh rules (a miss reloads, rate-limited; a 404 evicts; CRDs added, changed
 * and removed are followed through the CRD watch, also while discovery lags behind).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { allBuiltinResources } from '@kubegen/runtime/internal/testing/fake/builtin-resources.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { RawRequestInit, RawResponse } from '@kubegen/runtime/internal/client/types.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { createLogger } from '@kubegen/runtime/internal/log.js';
import { DiscoveryClient } from '@kubegen/runtime/internal/discovery/discovery-client.js';
import { DynamicRESTMapper } from '@kubegen/runtime/internal/restmapper/dynamic-mapper.js';
import { AmbiguousResourceError, NoKindMatchError, NoResourceMatchError } from '@kubegen/runtime/internal/restmapper/types.js';
import type { CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { eventually } from '@kubegen/runtime/internal/testing/envtest/eventually.js';
import type { FakeResource } from '@kubegen/runtime/internal/testing/fake/fake-resource.js';
import { FakeTransport, newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

const CRDS = builtinResources.customResourceDefinitions;

function res(group: string, version: string, resource: string, kind: string, extra: Partial<FakeResource> = {}): FakeResource {
  return { group, version, resource, kind, listKind: `${kind}List`, namespaced: true, ...extra };
}

/** Built-ins plus: core and events.k8s.io events, HPAs in three autoscaling versions, two CRD groups sharing a short name. */
function cluster(): FakeResource[] {
  return [
    ...allBuiltinResources,
    res('events.k8s.io', 'v1', 'events', 'Event', { shortNames: ['ev'] }),
    res('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', { shortNames: ['hpa'], categories: ['all'] }),
    res('autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', { shortNames: ['hpa'], categories: ['all'] }),
    res('autoscaling', 'v2beta2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', { shortNames: ['hpa'], categories: ['all'] }),
    res('alpha.example.com', 'v1', 'widgets', 'Widget', { shortNames: ['wd'], namespaced: false }),
    res('beta.example.com', 'v1', 'gadgets', 'Gadget', { shortNames: ['wd', 'pods'] }),
  ];
}

function logged(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) }), lines };
}

const where = (m: { resource: { group: string; version: string; resource: string }; namespaced: boolean }) =>
  `${m.resource.resource}.${m.resource.version}.${m.resource.group}${m.namespaced ? '' : ' (cluster)'}`;

describe('DynamicRESTMapper names and priorities', () => {
  it('resolves every name form kubectl accepts', async () => {
    const m = new DynamicRESTMapper(newFakeTransport(cluster()), { logger: logged().logger });
    for (const name of ['deploy', 'deployments', 'deployment', 'Deployment', 'deployments.apps', 'deployments.v1.apps', 'Deployment.apps', 'Deployment.v1.apps', 'deploy.apps', 'deployments.app']) {
      assert.equal(where(await m.resolve(name)), 'deployments.v1.apps', name);
    }
    assert.equal(where(await m.resolve('ns')), 'namespaces.v1. (cluster)');
    assert.equal(where(await m.resolve('crd')), 'customresourcedefinitions.v1.apiextensions.k8s.io (cluster)');
    const mapping = await m.resolve('po');
    assert.deepEqual(mapping.info, { group: '', version: 'v1', resource: 'pods', kind: 'Pod', listKind: 'PodList', namespaced: true });
    assert.deepEqual(await m.kindFor({ resource: 'sts' }), { group: 'apps', version: 'v1', kind: 'StatefulSet' });
    assert.deepEqual(await m.resourceFor({ resource: 'cronjob' }), { group: 'batch', version: 'v1', resource: 'cronjobs' });
    assert.equal(where(await m.mappingForObject({ apiVersion: 'apps/v1', kind: 'ReplicaSet' })), 'replicasets.v1.apps');
  });

  it('prefers core v1, then each group\'s preferred version; an explicit version wins', async () => {
    const m = new DynamicRESTMapper(newFakeTransport(cluster()), { logger: logged().logger });
    assert.equal(where(await m.resolve('events')), 'events.v1.');
    assert.equal(where(await m.resolve('event')), 'events.v1.');
    assert.equal(where(await m.resolve('events.events.k8s.io')), 'events.v1.events.k8s.io');
    assert.equal(where(await m.resolve('hpa')), 'horizontalpodautoscalers.v2.autoscaling');
    assert.equal(where(await m.resolve('horizontalpodautoscalers.v2beta2.autoscaling')), 'horizontalpodautoscalers.v2beta2.autoscaling');
    // As in kubectl, a short name with a version resolves to the preferred version (the expander drops it).
    assert.equal(where(await m.resolve('hpa.v1.autoscaling')), 'horizontalpodautoscalers.v2.autoscaling');
    assert.equal(where(await m.restMapping({ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' })), 'horizontalpodautoscalers.v2.autoscaling');
    assert.equal(where(await m.restMapping({ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' }, 'v9', 'v1')), 'horizontalpodautoscalers.v1.autoscaling');
    assert.deepEqual(
      (await m.restMappings({ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' })).map((x) => x.resource.version),
      ['v2', 'v1', 'v2beta2'],
    );
  });

  it('lets an exact name beat a short name, and picks the first of an ambiguous short name with a warning', async () => {
    const { logger, lines } = logged();
    const m = new DynamicRESTMapper(newFakeTransport(cluster()), { logger });
    assert.equal(where(await m.resolve('pods')), 'pods.v1.', 'the plural of core pods beats the short name of gadgets');
    assert.equal(where(await m.resolve('wd')), 'widgets.v1.alpha.example.com (cluster)');
    await m.resolve('wd');
    const warnings = lines.filter((l) => l.includes('short name \\"wd\\" could also match lower priority resource gadgets.beta.example.com'));
    assert.equal(warnings.length, 1, `warned once: ${lines.join('\n')}`);
    assert.equal(where(await m.resolve('wd.beta.example.com')), 'gadgets.v1.beta.example.com', 'a group narrows the short names');
  });

  it('reports an ambiguous name, a missing one with a suggestion, and a missing kind naming what was asked', async () => {
    const fake = newFakeTransport([res('x.example.com', 'v1', 'foos', 'Foo', { singular: 'foo' }), res('x.example.com', 'v1', 'fooses', 'Foos', { singular: 'foos' }), ...allBuiltinResources]);
    const m = new DynamicRESTMapper(fake, { logger: logged().logger, missBackoff: { initialMs: 0 } });
    await assert.rejects(m.resourceFor({ resource: 'foos' }), (e: unknown) => e instanceof AmbiguousResourceError && e.matches.length === 2);
    await assert.rejects(m.resolve('deploymnets'), (e: unknown) => e instanceof NoResourceMatchError && e.message === 'the server doesn\'t have a resource type "deploymnets" (did you mean deployments.apps?)');
    await assert.rejects(m.resolve('zzzzzzzz'), (e: unknown) => e instanceof NoResourceMatchError && e.suggestion === undefined);
    await assert.rejects(m.restMapping({ group: 'apps', kind: 'Deploymnet' }), (e: unknown) => e instanceof NoKindMatchError && e.message === 'no matches for kind "Deploymnet" in group "apps" (did you mean Deployment.apps?)');
    await assert.rejects(m.restMapping({ group: 'extensions', kind: 'Deployment' }, 'v1beta1'), (e: unknown) => e instanceof NoKindMatchError && /in version "extensions\/v1beta1" \(did you mean Deployment\.apps\?\)/.test(e.message));
    await assert.rejects(m.resolve('PO'), NoResourceMatchError, 'short names are case-sensitive, as in kubectl');
    await assert.rejects(m.resolve('deploymentlist'), NoResourceMatchError, 'no guessed <Kind>List resources');
  });

  it('expands categories from discovery, each resource once, in its preferred version', async () => {
    const m = new DynamicRESTMapper(newFakeTransport(cluster()), { logger: logged().logger, missBackoff: { initialMs: 0 } });
    assert.deepEqual((await m.resolveCategory('all')).map(where), [
      'pods.v1.',
      'replicationcontrollers.v1.',
      'services.v1.',
      'daemonsets.v1.apps',
      'deployments.v1.apps',
      'replicasets.v1.apps',
      'statefulsets.v1.apps',
      'horizontalpodautoscalers.v2.autoscaling',
      'cronjobs.v1.batch',
      'jobs.v1.batch',
    ]);
    await assert.rejects(m.resolveCategory('nothing'), (e: unknown) => e instanceof NoResourceMatchError && e.message === 'the server doesn\'t have a resource type "nothing"');
  });

  it('takes a name that is also a category as the category, as kubectl does (one kind: its mapping; several: ambiguous)', async () => {
    const ships = [
      res('ships.example.com', 'v1', 'frigates', 'Frigate', { singular: 'frigate', categories: ['fleet'] }),
      res('ships.example.com', 'v1', 'fleets', 'Fleet', { singular: 'fleet', namespaced: false }),
      res('ships.example.com', 'v1', 'docks', 'Dock', { singular: 'dock', categories: ['harbour'] }),
      res('ships.example.com', 'v1', 'cranes', 'Crane', { singular: 'crane', categories: ['harbour'] }),
    ];
    const m = new DynamicRESTMapper(newFakeTransport([...allBuiltinResources, ...ships]), { logger: logged().logger });
    assert.equal(where(await m.resolve('fleet')), 'frigates.v1.ships.example.com', 'kubectl get fleet lists the category fleet');
    assert.equal(where(await m.resolve('fleets')), 'fleets.v1.ships.example.com (cluster)');
    await assert.rejects(m.resolve('harbour'), AmbiguousResourceError);
  });

  it('loads lazily: nothing before the first lookup, two requests with aggregated discovery, one group from a legacy server', async () => {
    const fake = newFakeTransport(cluster());
    const m = new DynamicRESTMapper(fake, { logger: logged().logger });
    assert.equal(fake.rawRequests().length, 0);
    await m.resolve('deploy');
    await m.resolve('wd');
    assert.deepEqual(fake.rawRequests().map((r) => r.path), ['/api', '/apis']);
    const legacy = newFakeTransport(cluster());
    legacy.discoveryFormat = 'legacy';
    const lm = new DynamicRESTMapper(legacy, { logger: logged().logger });
    await lm.restMapping({ group: 'apps', kind: 'Deployment' });
    assert.deepEqual(legacy.rawRequests().map((r) => r.path), ['/api', '/apis', '/apis/apps/v1']);
    await lm.restMapping({ group: '', kind: 'Pod' });
    assert.deepEqual(legacy.rawRequests().map((r) => r.path).slice(3), ['/api/v1'], 'the core group is only itself, not a prefix of every group');
  });
});

describe('DynamicRESTMapper refresh rules', () => {
  it('reloads on a miss, rate-limited with a doubling backoff: a flood of misses does not flood the server', async () => {
    const clock = new FakeClock(1_000_000);
    const fake = newFakeTransport(cluster());
    const m = new DynamicRESTMapper(fake, { logger: logged().logger, clock, missBackoff: { initialMs: 1000, maxMs: 4000 } });
    await m.resolve('pods');
    fake.clearRawRequests();
    for (let i = 0; i < 200; i++) await assert.rejects(m.resolve('nosuchthing'), NoResourceMatchError);
    assert.equal(fake.rawRequests().length, 2, 'one reload (/api + /apis) for 200 misses');
    clock.step(999);
    await assert.rejects(m.resolve('nosuchthing'), NoResourceMatchError);
    assert.equal(fake.rawRequests().length, 2);
    clock.step(1);
    await assert.rejects(m.resolve('nosuchthing'), NoResourceMatchError);
    assert.equal(fake.rawRequests().length, 4, 'the backoff elapsed: one more reload');
    clock.step(1000);
    await assert.rejects(m.resolve('nosuchthing'), NoResourceMatchError);
    assert.equal(fake.rawRequests().length, 4, 'the wait doubled to 2 s');
    // A resource that appears later is found by the next reload: a negative answer is never kept for good.
    fake.tracker.register(res('late.example.com', 'v1', 'nosuchthings', 'NoSuchThing', { singular: 'nosuchthing' }));
    clock.step(1000);
    assert.equal(where(await m.resolve('nosuchthing')), 'nosuchthings.v1.late.example.com');
    // Found after a reload: that scope's backoff is reset, so the next miss reloads at once.
    await assert.rejects(m.resolve('other'), NoResourceMatchError);
    assert.equal(fake.rawRequests().length, 8);
  });

  it('evicts a group version that answers 404 while it is loaded', async () => {
    const fake = newFakeTransport([...allBuiltinResources, res('x.example.com', 'v2', 'things', 'Thing'), res('x.example.com', 'v1', 'things', 'Thing')]);
    fake.discoveryFormat = 'legacy';
    // The group list still names v1 (a CRD version removed a moment ago), but /apis/x.example.com/v1 is gone.
    const gone = new Set(['/apis/x.example.com/v1']);
    const transport = Object.assign(Object.create(fake) as FakeTransport, {
      raw: (method: string, path: string, init?: RawRequestInit): Promise<RawResponse> =>
        gone.has(path) ? Promise.resolve({ statusCode: 404, headers: {}, body: Buffer.from('404 page not found') }) : fake.raw(method, path, init),
    });
    const m = new DynamicRESTMapper(transport, { logger: logged().logger, missBackoff: { initialMs: 0 } });
    assert.deepEqual((await m.restMappings({ group: 'x.example.com', kind: 'Thing' })).map((x) => x.resource.version), ['v2']);
    await assert.rejects(m.restMapping({ group: 'x.example.com', kind: 'Thing' }, 'v1'), NoKindMatchError);
    gone.clear();
    fake.tracker.unregister(res('x.example.com', 'v2', 'things', 'Thing'));
    assert.equal(where(await m.restMapping({ group: 'x.example.com', kind: 'Thing' }, 'v1')), 'things.v1.x.example.com', 'a miss reloads the group');
  });

  it('follows CRDs added, changed and removed through the CRD watch, with no restart', async () => {
    const fake = newFakeTransport([...allBuiltinResources]);
    const m = new DynamicRESTMapper(fake, { logger: logged().logger, clock: new FakeClock(0), missBackoff: { initialMs: 3_600_000 } });
    const stop = new AbortController();
    const running = m.start(stop.signal);
    try {
      await assert.rejects(m.resolve('things'), NoResourceMatchError); // misses once: the backoff now holds for an hour
      const crds = new ResourceClient<CrdObject>(fake, CRDS);
      await crds.create(crdObject('example.com', [{ name: 'v1' }], 'Namespaced'));
      assert.equal(where(await eventually(() => m.resolve('things'))), 'things.v1.example.com');

      await crds.update({ ...(await crds.get('things.example.com')), spec: crdObject('example.com', [{ name: 'v2' }, { name: 'v1' }], 'Namespaced').spec });
      await eventually(async () => assert.equal(where(await m.restMapping({ group: 'example.com', kind: 'Thing' })), 'things.v2.example.com'));
      assert.deepEqual((await m.restMappings({ group: 'example.com', kind: 'Thing' })).map((x) => x.resource.version), ['v2', 'v1']);

      await crds.update({ ...(await crds.get('things.example.com')), spec: crdObject('example.com', [{ name: 'v2' }, { name: 'v1', served: false }], 'Namespaced').spec });
      await eventually(() => assert.rejects(m.restMapping({ group: 'example.com', kind: 'Thing' }, 'v1'), NoKindMatchError));

      await crds.delete('things.example.com');
      await eventually(() => assert.rejects(m.resolve('things'), NoResourceMatchError));
      // Re-created cluster-scoped: the new scope, not the old one.
      await crds.create(crdObject('example.com', [{ name: 'v1' }], 'Cluster'));
      assert.equal(where(await eventually(() => m.resolve('thing'))), 'things.v1.example.com (cluster)');
    } finally {
      stop.abort();
      await running;
    }
  });

  it('does not trust discovery that lags the CRDs: hides a deleted one at once, finds a new one once discovery shows it', async () => {
    const fake = newFakeTransport([...allBuiltinResources]);
    const crds = new ResourceClient<CrdObject>(fake, CRDS);
    await crds.create(crdObject('old.example.com', [{ name: 'v1' }], 'Namespaced'));
    // Discovery frozen at this moment until `thaw()`.
    let frozen: Map<string, RawResponse> | undefined;
    const transport = Object.assign(Object.create(fake) as FakeTransport, {
      raw: async (method: string, path: string, init?: RawRequestInit): Promise<RawResponse> => {
        const key = `${path} ${init?.accept}`;
        if (frozen?.has(key)) return frozen.get(key)!;
        const answer = await fake.raw(method, path, init);
        frozen?.set(key, answer);
        return answer;
      },
    });
    const m = new DynamicRESTMapper(transport, { logger: logged().logger, clock: new FakeClock(0), lagRetryMs: 0, missBackoff: { initialMs: 3_600_000 } });
    const stop = new AbortController();
    const running = m.start(stop.signal);
    try {
      assert.equal(where(await m.resolve('things.old.example.com')), 'things.v1.old.example.com');
      frozen = new Map();
      await new DiscoveryClient(transport).serverGroupsAndResources(); // freezes discovery as it is now
      await crds.delete('things.old.example.com');
      await crds.create(crdObject('new.example.com', [{ name: 'v1' }], 'Namespaced'));
      await eventually(() => assert.rejects(m.resolve('things.old.example.com'), NoResourceMatchError));
      await assert.rejects(m.resolve('things.new.example.com'), NoResourceMatchError, 'not shown by discovery yet');
      frozen = undefined;
      assert.equal(where(await m.resolve('things.new.example.com')), 'things.v1.new.example.com', 'asked again at once: the CRD said to expect it');
    } finally {
      stop.abort();
      await running;
    }
  });
});

function crdObject(group: string, versions: { name: string; served?: boolean }[], scope: 'Namespaced' | 'Cluster'): CrdObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${group}` },
    spec: {
      group,
      scope,
      names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      versions: versions.map((v, i) => ({ name: v.name, served: v.served ?? true, storage: i === 0 })),
    },
  };
}
