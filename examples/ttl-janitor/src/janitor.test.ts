/**
 * The janitor on a fake cluster (the fake transport serves discovery from what it stores, CRDs included): a
 * controller per list+watch+delete resource the flags admit; expired objects of built-in and custom kinds deleted,
 * others left; excluded namespaces spared; a resource the janitor may not use skipped with one warning while the
 * others work; a CRD installed later picked up, its deletion letting go of the resource (at most one warning) and
 * its return picked up again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources, createLogger, Manager, type KubeObject } from '@kubegen/runtime';
import type { ResourceInfo } from '@kubegen/runtime/client';
import { realClock } from '@kubegen/runtime/clock';
import { newFakeTransport, allBuiltinResources } from '@kubegen/runtime/testing/fake';
import { selfSubjectAccessReviews } from './access.js';
import { slimMetadata } from './cache.js';
import { Janitor } from './janitor.js';
import { janitorMetrics } from './metrics.js';
import { DEFAULT_EXCLUDED_RESOURCES, parseResourceNames } from './resources.js';
import { TTL_ANNOTATION } from './ttl.js';

const CRDS = builtinResources.customResourceDefinitions;
const WIDGETS: ResourceInfo = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', namespaced: true };
const LONG_AGO = '2020-01-01T00:00:00Z';
const widgetCrd = (): KubeObject =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  }) as KubeObject;
const object = (apiVersion: string, kind: string, namespace: string, name: string, ttl?: string): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace, creationTimestamp: LONG_AGO, ...(ttl !== undefined ? { annotations: { [TTL_ANNOTATION]: ttl, 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"..."}' } } : {}) },
});

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the janitor on a fake cluster', () => {
  const transport = newFakeTransport([...allBuiltinResources]);
  const lines: { level: string; msg: string; resource?: string; source?: string; refused?: string }[] = [];
  const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(JSON.parse(l) as (typeof lines)[number]) });
  const registry = new Registry();
  // The janitor may not delete Secrets: its SelfSubjectAccessReviews say so.
  transport.prependReactor('create', 'selfsubjectaccessreviews', (action) => {
    const review = action.object as { spec: { resourceAttributes: { resource: string; verb: string } } };
    const allowed = !(review.spec.resourceAttributes.resource === 'secrets' && review.spec.resourceAttributes.verb === 'delete');
    return { handled: true, result: { ...review, status: { allowed } } };
  });
  const mgr = new Manager({ transport, metricsBindAddress: '0', logger, registry, cache: { defaultTransform: slimMetadata } });
  const janitor = new Janitor({
    manager: mgr,
    filter: { include: [], exclude: parseResourceNames('--exclude-resources', [...DEFAULT_EXCLUDED_RESOURCES]) },
    dryRun: false,
    namespaces: [],
    excludedNamespaces: ['kube-system'],
    workers: 1,
    discoveryIntervalMs: 0,
    access: selfSubjectAccessReviews(transport),
    metrics: janitorMetrics(registry),
    logger,
    clock: realClock,
  });
  mgr.add(janitor);
  const stop = new AbortController();
  let run: Promise<void>;
  const exists = (info: ResourceInfo, ns: string, name: string): boolean => transport.tracker.list(info, ns).items.some((o) => o.metadata?.name === name);
  const gauge = async (name: string, resource?: string): Promise<number | undefined> =>
    (await registry.getSingleMetric(name)!.get()).values.find((v) => resource === undefined || v.labels['resource'] === resource)?.value;

  before(async () => {
    transport.tracker.add(
      object('v1', 'ConfigMap', 'ns', 'expired', '1h'),
      object('v1', 'ConfigMap', 'ns', 'plain'),
      object('v1', 'ConfigMap', 'ns', 'later', '1000000w'),
      object('v1', 'ConfigMap', 'kube-system', 'spared', '1s'),
      object('apps/v1', 'Deployment', 'ns', 'expired-deploy', '5m'),
      object('v1', 'Secret', 'ns', 'secret', '1s'),
    );
    run = mgr.start(stop.signal);
    await until(() => janitor.discovered, 'the first look at discovery');
  });
  after(async () => {
    // TTL_JANITOR_TEST_LOG=1 prints what the janitor logged (without the per-controller start and stop lines).
    if (process.env['TTL_JANITOR_TEST_LOG']) for (const l of lines) if (!/starting workers|stopping|all workers/.test(l.msg)) console.log(JSON.stringify(l));
    stop.abort();
    await run;
  });

  it('watches every list+watch+delete resource but the excluded and the forbidden ones', async () => {
    const watched = janitor.watchedResources();
    for (const r of ['configmaps', 'deployments.apps', 'customresourcedefinitions.apiextensions.k8s.io', 'namespaces', 'leases.coordination.k8s.io']) assert.ok(watched.includes(r), r);
    assert.ok(!watched.includes('events'), 'excluded by default');
    assert.ok(!watched.includes('secrets'), 'forbidden');
    assert.equal(await gauge('ttl_janitor_kinds_watched'), watched.length);
    assert.equal(await gauge('ttl_janitor_kind_watched', 'secrets'), 0);
    assert.equal(await gauge('ttl_janitor_kind_watched', 'configmaps'), 1);
    const skipped = lines.filter((l) => l.msg === 'skipping a resource the janitor may not use');
    assert.deepEqual(skipped.map((l) => [l.level, l.resource, l.refused]), [['warn', 'secrets', 'delete']]);
  });

  it('deletes expired objects of built-in kinds and leaves the others', async () => {
    await until(() => !exists(builtinResources.configMaps, 'ns', 'expired') && !exists(builtinResources.deployments, 'ns', 'expired-deploy'), 'the expired ConfigMap and Deployment are deleted');
    assert.ok(exists(builtinResources.configMaps, 'ns', 'plain'), 'no annotation: left alone');
    assert.ok(exists(builtinResources.configMaps, 'ns', 'later'), 'TTL not run out: left alone');
    assert.ok(exists(builtinResources.configMaps, 'kube-system', 'spared'), 'excluded namespace: left alone');
    assert.ok(exists(builtinResources.secrets, 'ns', 'secret'), 'a resource it may not delete: left alone');
  });

  it('picks up a CRD installed later, lets go of it when it is deleted and picks it up again', async () => {
    transport.tracker.create(CRDS, undefined, widgetCrd());
    await until(() => janitor.watchedResources().includes('widgets.example.com'), 'the new resource is watched');
    transport.tracker.add(object('example.com/v1', 'Widget', 'ns', 'w1', '10s'));
    await until(() => !exists(WIDGETS, 'ns', 'w1'), 'the expired Widget is deleted');

    const before = lines.length;
    transport.tracker.delete(CRDS, undefined, 'widgets.example.com');
    await until(() => !janitor.watchedResources().includes('widgets.example.com'), 'the resource is let go of');
    await until(() => lines.slice(before).some((l) => l.msg === 'stopped watching a resource'), 'the janitor says so');
    assert.equal(await gauge('ttl_janitor_kind_watched', 'widgets.example.com'), undefined, 'its series is gone');
    await new Promise((r) => setTimeout(r, 1_000));
    const warnings = lines.slice(before).filter((l) => l.level === 'warn' || l.level === 'error');
    assert.ok(warnings.length <= 1, `at most one warning: ${JSON.stringify(warnings)}`);

    transport.tracker.create(CRDS, undefined, widgetCrd());
    await until(() => janitor.watchedResources().includes('widgets.example.com'), 'the resource is watched again');
    transport.tracker.add(object('example.com/v1', 'Widget', 'ns', 'w2', '1m'), object('example.com/v1', 'Widget', 'ns', 'w3'));
    await until(() => !exists(WIDGETS, 'ns', 'w2'), 'an expired Widget is deleted again');
    assert.ok(exists(WIDGETS, 'ns', 'w3'));
  });
});
