/**
 * Discovery: both wire formats as the real servers answer them (documents captured from the 1.20 and 1.36 envtest
 * apiservers in fixtures/discovery), the choice by Content-Type, partial results, stale group versions, and the
 * memory cache.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CachedDiscoveryClient } from '@kubegen/runtime/internal/discovery/cached-discovery.js';
import { DiscoveryClient, discoveryFailure } from '@kubegen/runtime/internal/discovery/discovery-client.js';
import {
  ACCEPT_DISCOVERY,
  aggregatedVersionOf,
  contentTypeIsGVK,
  parseAggregatedDiscovery,
  parseAPIResourceList,
  StaleGroupVersionError,
} from '@kubegen/runtime/internal/discovery/discovery-formats.js';
import { compareVersionPriority, sortByVersionPriority } from '@kubegen/runtime/internal/discovery/version-priority.js';
import { ApiError } from '@kubegen/runtime/internal/client/errors.js';
import type { APIResourceInfo } from '@kubegen/runtime/internal/discovery/types.js';
import { FixtureTransport, legacyApis136, loadDiscoveryFixtures, type CapturedResponse } from '../support/discovery-fixtures.js';

const V2 = { group: 'apidiscovery.k8s.io', version: 'v2', kind: 'APIGroupDiscoveryList' };

function find(list: APIResourceInfo[] | undefined, resource: string): APIResourceInfo {
  const r = list?.find((x) => x.resource === resource);
  assert.ok(r, `${resource} is listed`);
  return r;
}

describe('discovery formats', () => {
  it('decides the format by Content-Type, whatever the order of its parameters', () => {
    assert.ok(contentTypeIsGVK('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', V2));
    assert.ok(contentTypeIsGVK('application/json; as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io;charset=utf-8', V2));
    assert.ok(contentTypeIsGVK('Application/JSON; G="apidiscovery.k8s.io"; V=v2; AS=APIGroupDiscoveryList', V2));
    assert.ok(!contentTypeIsGVK('application/json', V2));
    assert.ok(!contentTypeIsGVK('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList', V2));
    assert.ok(!contentTypeIsGVK('application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', V2));
    assert.ok(!contentTypeIsGVK('not a media type;;', V2));
    assert.equal(aggregatedVersionOf('application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2beta1'), 'v2beta1');
    assert.equal(aggregatedVersionOf(undefined), undefined);
    assert.equal(ACCEPT_DISCOVERY.split(',')[0], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.ok(ACCEPT_DISCOVERY.endsWith(',application/json'));
  });

  it('converts the 1.36 aggregated document: versions, preferred version, scope, verbs, names, subresources', () => {
    const doc = loadDiscoveryFixtures('1.36').get('/apis')!;
    assert.equal(aggregatedVersionOf(doc.contentType), 'v2');
    const parsed = parseAggregatedDiscovery(doc.body);
    assert.deepEqual(
      parsed.groups.find((g) => g.name === 'networking.istio.io'),
      { name: 'networking.istio.io', versions: ['v1', 'v1beta1', 'v1alpha3'], preferredVersion: 'v1' },
    );
    // The server orders versions by priority: the crossplane XRD's served v2 is preferred over its storage v1.
    assert.equal(parsed.groups.find((g) => g.name === 'apiextensions.crossplane.io')?.preferredVersion, 'v2');
    const certs = find(parsed.resources.get('cert-manager.io/v1'), 'certificates');
    assert.deepEqual(
      { ...certs, verbs: [...certs.verbs].sort() },
      {
        group: 'cert-manager.io',
        version: 'v1',
        resource: 'certificates',
        singular: 'certificate',
        kind: 'Certificate',
        namespaced: true,
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['cert', 'certs'],
        categories: ['cert-manager'],
        subresources: [{ name: 'status', kind: 'Certificate', verbs: ['get', 'patch', 'update'] }],
      },
    );
    const widgets = find(parsed.resources.get('test.kubegen.dev/v1'), 'widgets');
    assert.equal(widgets.namespaced, false);
    assert.deepEqual(widgets.subresources.map((s) => `${s.name}:${s.kind}`).sort(), ['scale:Scale', 'status:Widget']);
    assert.equal(parsed.failed.size, 0);
  });

  it('marks stale versions failed, prefers the first version that is not, and drops resources without a kind', () => {
    const body = structuredClone(loadDiscoveryFixtures('1.36').get('/apis')!.body) as { items: { metadata: { name: string }; versions: { version: string; freshness?: string; resources: { resource: string; responseKind?: unknown }[] }[] }[] };
    const istio = body.items.find((g) => g.metadata.name === 'networking.istio.io')!;
    istio.versions[0]!.freshness = 'Stale';
    const certs = body.items.find((g) => g.metadata.name === 'cert-manager.io')!;
    delete certs.versions[0]!.resources[0]!.responseKind;
    const parsed = parseAggregatedDiscovery(body);
    assert.deepEqual(parsed.groups.find((g) => g.name === 'networking.istio.io'), { name: 'networking.istio.io', versions: ['v1beta1', 'v1alpha3'], preferredVersion: 'v1beta1' });
    const stale = parsed.failed.get('networking.istio.io/v1');
    assert.ok(stale instanceof StaleGroupVersionError);
    assert.equal(stale.message, 'stale GroupVersion discovery: networking.istio.io/v1');
    assert.equal(parsed.resources.has('networking.istio.io/v1'), false);
    assert.deepEqual(parsed.resources.get('cert-manager.io/v1'), []);
  });

  it('folds the 1.20 legacy subresources into their parents and keeps an empty singular as the server gave it', () => {
    const fx = loadDiscoveryFixtures('1.20');
    const core = parseAPIResourceList(fx.get('/api/v1')!.body, '', 'v1');
    const pods = find(core, 'pods');
    assert.equal(pods.singular, '');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.deepEqual(pods.categories, ['all']);
    assert.deepEqual(pods.subresources.map((s) => s.name).sort(), ['attach', 'binding', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'status']);
    assert.equal(core.some((r) => r.resource.includes('/')), false);
    const apps = parseAPIResourceList(fx.get('/apis/apps/v1')!.body, 'apps', 'v1');
    assert.deepEqual(find(apps, 'deployments').subresources.find((s) => s.name === 'scale'), { name: 'scale', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    const withoutKind = parseAPIResourceList({ resources: [{ name: 'things', namespaced: true, verbs: ['get'] }, { name: 'things/status', kind: 'Thing' }] }, 'x', 'v1');
    assert.deepEqual(withoutKind, []);
  });

  it('orders versions by Kubernetes version priority', () => {
    const want = ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10'];
    assert.deepEqual(sortByVersionPriority([...want].reverse()), want);
    assert.ok(compareVersionPriority('v1', 'v1beta1') < 0);
    assert.equal(compareVersionPriority('v1', 'v1'), 0);
  });
});

describe('DiscoveryClient', () => {
  it('walks a 1.20 server in the legacy format: /api, /apis, then every group version', async () => {
    const t = new FixtureTransport(loadDiscoveryFixtures('1.20'));
    const result = await new DiscoveryClient(t).serverGroupsAndResources();
    assert.equal(result.aggregated, false);
    assert.deepEqual(result.groups.map((g) => g.name), ['', 'apps', 'events.k8s.io', 'autoscaling', 'test.kubegen.dev']);
    assert.deepEqual([...result.resources.keys()], ['v1', 'apps/v1', 'events.k8s.io/v1', 'events.k8s.io/v1beta1', 'autoscaling/v1', 'autoscaling/v2beta1', 'autoscaling/v2beta2', 'test.kubegen.dev/v1']);
    assert.equal(result.failed.size, 0);
    assert.equal(discoveryFailure(result), undefined);
    assert.deepEqual(t.requests.slice(0, 2).map((r) => [r.path, r.accept]), [['/api', ACCEPT_DISCOVERY], ['/apis', ACCEPT_DISCOVERY]]);
    assert.equal(t.requests.length, 2 + 8);
    assert.deepEqual(t.requests.slice(2).map((r) => r.accept), Array(8).fill('application/json'));
  });

  it('reads a 1.36 server with two requests (aggregated /apis, 404 on /api tolerated)', async () => {
    const t = new FixtureTransport(loadDiscoveryFixtures('1.36'));
    const d = new DiscoveryClient(t);
    const result = await d.serverGroupsAndResources();
    assert.equal(result.aggregated, true);
    assert.deepEqual(t.requests.map((r) => r.path).sort(), ['/api', '/apis']);
    assert.ok(!result.groups.some((g) => g.name === ''));
    assert.deepEqual(find(result.resources.get('apiextensions.k8s.io/v1'), 'customresourcedefinitions').shortNames, ['crd', 'crds']);
    assert.equal((await d.serverVersion()).gitVersion.startsWith('v1.36'), true);
  });

  it('asks for the legacy format only when told to, and then walks the group versions', async () => {
    const fx = loadDiscoveryFixtures('1.36');
    fx.set('/apis', legacyApis136());
    fx.set('/apis/networking.istio.io/v1', structuredClone(fx.get('/apis/networking.istio.io/v1beta1')!));
    const t = new FixtureTransport(fx);
    const result = await new DiscoveryClient(t, { legacyOnly: true }).serverGroupsAndResources();
    assert.equal(result.aggregated, false);
    assert.deepEqual(t.requests[0], { path: '/api', accept: 'application/json' });
    assert.ok(result.resources.has('networking.istio.io/v1beta1'));
    // Group versions without a captured document answer 404: they are failures of a partial result.
    assert.ok(result.failed.size > 0);
    assert.ok([...result.failed.values()].every((e) => e instanceof ApiError && e.code === 404));
  });

  it('falls back to the walk when /api answers legacy and /apis aggregated (resources only when both are aggregated)', async () => {
    const fx = loadDiscoveryFixtures('1.36');
    fx.set('/api', { path: '/api', status: 200, contentType: 'application/json', body: { kind: 'APIVersions', versions: ['v1'] } });
    const t = new FixtureTransport(fx);
    const result = await new DiscoveryClient(t).serverGroupsAndResources();
    assert.equal(result.aggregated, false);
    assert.equal(result.groups[0]!.name, '');
    assert.ok(t.requests.some((r) => r.path === '/apis/apiextensions.k8s.io/v1'));
  });

  it('returns a partial result with a per-group-version error map when group versions fail', async () => {
    const fx = loadDiscoveryFixtures('1.20');
    const t = new FixtureTransport(fx);
    t.override('/apis/autoscaling/v2beta1', { kind: 'Status', status: 'Failure', code: 503, reason: 'ServiceUnavailable', message: 'backend down' }, { status: 503 });
    const result = await new DiscoveryClient(t, { concurrency: 2 }).serverGroupsAndResources();
    assert.deepEqual([...result.failed.keys()], ['autoscaling/v2beta1']);
    const err = result.failed.get('autoscaling/v2beta1');
    assert.ok(err instanceof ApiError && err.code === 503);
    assert.equal(result.resources.size, 7);
    assert.match(discoveryFailure(result)!.message, /^unable to retrieve the complete list of server APIs: autoscaling\/v2beta1: GET \/apis\/autoscaling\/v2beta1: backend down$/);
  });

  it('rejects when /apis itself fails, naming the path', async () => {
    const t = new FixtureTransport(loadDiscoveryFixtures('1.20'));
    t.override('/apis', { kind: 'Status', code: 403, reason: 'Forbidden', message: 'nope' }, { status: 403 });
    await assert.rejects(new DiscoveryClient(t).serverGroupsAndResources(), (e: unknown) => e instanceof ApiError && e.code === 403 && /GET \/apis: nope/.test(e.message));
  });

  it('picks preferred resources: the group preferred version where it serves the resource', async () => {
    const t = new FixtureTransport(loadDiscoveryFixtures('1.20'));
    const { resources } = await new DiscoveryClient(t).serverPreferredResources();
    assert.equal(resources.find((r) => r.resource === 'horizontalpodautoscalers')?.version, 'v1');
    assert.equal(resources.find((r) => r.group === 'events.k8s.io' && r.resource === 'events')?.version, 'v1');
    assert.equal(resources.filter((r) => r.resource === 'horizontalpodautoscalers').length, 1);
  });
});

describe('CachedDiscoveryClient', () => {
  const failing = (code: number): CapturedResponse['body'] => ({ kind: 'Status', status: 'Failure', code, reason: code === 404 ? 'NotFound' : 'ServiceUnavailable', message: `HTTP ${code}` });

  it('fills once, stays valid until invalidate(), and refetches one dropped group version alone', async () => {
    const t = new FixtureTransport(loadDiscoveryFixtures('1.20'));
    const c = new CachedDiscoveryClient(new DiscoveryClient(t));
    assert.equal(c.fresh, false);
    await Promise.all([c.serverGroupsAndResources(), c.serverGroupsAndResources()]);
    assert.equal(c.fresh, true);
    assert.equal(t.requests.length, 10, 'concurrent first reads share one fill');
    await c.serverGroupsAndResources();
    assert.equal((await c.serverResourcesForGroupVersion('apps', 'v1')).length, 5);
    assert.equal(t.requests.length, 10);
    c.invalidateGroupVersion('apps', 'v1');
    await c.serverResourcesForGroupVersion('apps', 'v1');
    assert.deepEqual(t.requests.slice(10).map((r) => r.path), ['/apis/apps/v1']);
    c.invalidate();
    assert.equal(c.fresh, false);
    await c.serverGroups();
    assert.equal(t.requests.length, 11 + 10);
  });

  it('retries a transiently failed group version on the next read, not a 404', async () => {
    const t = new FixtureTransport(loadDiscoveryFixtures('1.20'));
    const appsV1 = t.responses.get('/apis/apps/v1')!;
    t.override('/apis/apps/v1', failing(503), { status: 503 });
    t.override('/apis/events.k8s.io/v1beta1', failing(404), { status: 404 });
    const c = new CachedDiscoveryClient(new DiscoveryClient(t));
    const first = await c.serverGroupsAndResources();
    assert.deepEqual([...first.failed.keys()].sort(), ['apps/v1', 'events.k8s.io/v1beta1']);
    t.responses.set('/apis/apps/v1', appsV1);
    const before = t.requests.length;
    const second = await c.serverGroupsAndResources();
    assert.deepEqual(t.requests.slice(before).map((r) => r.path), ['/apis/apps/v1']);
    assert.deepEqual([...second.failed.keys()], ['events.k8s.io/v1beta1']);
    assert.ok(second.resources.has('apps/v1'));
    await assert.rejects(c.serverResourcesForGroupVersion('events.k8s.io', 'v1beta1'), (e: unknown) => e instanceof ApiError && e.code === 404);
    await assert.rejects(c.serverResourcesForGroupVersion('nothing.example.com', 'v1'), { name: 'CacheNotFoundError' });
  });
});
