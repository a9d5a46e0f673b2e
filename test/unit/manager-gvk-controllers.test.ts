/**
 * Controllers on kinds known only at run time (a `GroupVersionKind`, resolved through the cluster's RESTMapper), on
 * the fake transport, whose discovery follows the CRDs it stores: the controller waits for a kind that is not
 * installed (readyz says why), starts when its CRD appears, stops its informers with one warning when the CRD is
 * deleted (the served gauge reads 0, no flood of list requests) and resumes when it comes back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { allBuiltinResources } from '@kubegen/runtime/internal/testing/fake/builtin-resources.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { createLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { until } from '../support/wait.js';

const CRDS = builtinResources.customResourceDefinitions;
const WIDGETS: ResourceInfo = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', namespaced: true };
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
const widget = (name: string): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'ns' } });

describe('a controller for a GroupVersionKind', () => {
  it('waits for its CRD, starts with it, lets go when it is deleted and resumes when it is back', async () => {
    const transport = newFakeTransport([...allBuiltinResources]);
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(JSON.parse(l) as { level: string; msg: string }) });
    const registry = new Registry();
    const mgr = new Manager({ transport, metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0', logger, registry });
    const seen: string[] = [];
    controllerFor(mgr, { group: 'example.com', version: 'v1', kind: 'Widget' }).complete(async (req) => void seen.push(req.name));
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    const served = async (): Promise<number | undefined> =>
      (await registry.getSingleMetric('kubegen_source_kind_served')!.get()).values.find((v) => v.labels['controller'] === 'widget')?.value;
    try {
      await until(() => mgr.healthProbeAddress !== undefined, 'the probes listen');
      const probes = `http://${mgr.healthProbeAddress}`;
      await until(async () => (await (await fetch(`${probes}/readyz/controller-widget`)).text()).includes('no matches for'), 'readyz says the kind is not served');
      assert.equal(await served(), 0);

      transport.tracker.create(CRDS, undefined, widgetCrd());
      transport.tracker.create(WIDGETS, 'ns', widget('a'));
      await until(() => seen.includes('a'), 'the controller reconciles once its CRD is installed', 10_000);
      assert.equal(await served(), 1);
      assert.equal((await fetch(`${probes}/readyz`)).status, 200);

      transport.tracker.delete(CRDS, undefined, 'widgets.example.com');
      await until(async () => (await served()) === 0, 'the source lets go of the deleted kind', 10_000);
      const listsAfterDelete = transport.actions().filter((a) => a.verb === 'list' && a.resource === 'widgets').length;
      await new Promise((r) => setTimeout(r, 1500));
      const lists = transport.actions().filter((a) => a.verb === 'list' && a.resource === 'widgets').length;
      assert.ok(lists - listsAfterDelete <= 1, `no retry storm: ${lists - listsAfterDelete} lists of a deleted kind in 1.5 s`);
      assert.equal(lines.filter((l) => l.level === 'warn' && /no longer served/.test(l.msg)).length, 1, 'one warning line');

      transport.tracker.create(CRDS, undefined, widgetCrd());
      transport.tracker.create(WIDGETS, 'ns', widget('b'));
      await until(() => seen.includes('b'), 'the controller resumes when the CRD is back', 15_000);
      assert.equal(await served(), 1);
    } finally {
      stop.abort();
      await run;
    }
  });

  it('owns() of a GVK kind maps its objects to the for() kind, whose scope comes from discovery', async () => {
    const transport = newFakeTransport([...allBuiltinResources], widgetCrd());
    transport.tracker.create(WIDGETS, 'ns', widget('w'));
    transport.tracker.create(builtinResources.configMaps, 'ns', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'child', namespace: 'ns', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u', controller: true }] },
    });
    const mgr = new Manager({ transport, metricsBindAddress: '0', logger: createLogger({ level: 'silent' }), registry: new Registry() });
    const seen: string[] = [];
    controllerFor(mgr, { group: 'example.com', version: 'v1', kind: 'Widget' })
      .owns('v1', 'ConfigMap')
      .complete(async (req) => void seen.push(`${req.namespace}/${req.name}`));
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(() => seen.includes('ns/w'), 'reconciled', 10_000);
      const before = seen.length;
      transport.tracker.update(builtinResources.configMaps, 'ns', { ...(transport.tracker.get(builtinResources.configMaps, 'ns', 'child') as KubeObject), data: { x: '1' } } as KubeObject);
      await until(() => seen.length > before, 'a change of the owned ConfigMap enqueues its Widget', 10_000);
      assert.equal(seen.at(-1), 'ns/w');
      // The manager's client takes a kind too, resolved through the same mapper (reads from the cache once synced).
      const widgets = await mgr.getClient().forKind('example.com/v1', 'Widget', 'ns');
      assert.equal((await widgets.get('w')).metadata?.name, 'w');
      await assert.rejects(mgr.getClient().forKind({ group: 'example.com', version: 'v1', kind: 'Gadget' }), (err: Error) => err.name === 'NoKindMatchError' && /Gadget/.test(err.message));
    } finally {
      stop.abort();
      await run;
    }
  });

  it('Cluster.watchCrds() lets onCrdChange listeners hear of CRDs before any controller waits for a kind', async () => {
    const transport = newFakeTransport([...allBuiltinResources]);
    const mgr = new Manager({ transport, metricsBindAddress: '0', logger: createLogger({ level: 'silent' }), registry: new Registry() });
    const heard: string[] = [];
    mgr.cluster.getRESTMapper().onCrdChange((group) => heard.push(group));
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      mgr.cluster.watchCrds();
      mgr.cluster.watchCrds(); // once: a second call starts no second watch
      await until(() => transport.actions().some((a) => a.verb === 'watch' && a.resource === 'customresourcedefinitions'), 'the CRD watch is open', 10_000);
      transport.tracker.create(CRDS, undefined, widgetCrd());
      await until(() => heard.includes('example.com'), 'the listener hears of the new CRD', 10_000);
      assert.equal(transport.actions().filter((a) => a.verb === 'list' && a.resource === 'customresourcedefinitions').length, 1, 'one CRD watch');
    } finally {
      stop.abort();
      await run;
    }
  });

  it('a removed controller takes its kubegen_source_kind_served series with it', async () => {
    const transport = newFakeTransport([...allBuiltinResources], widgetCrd());
    const registry = new Registry();
    const mgr = new Manager({ transport, metricsBindAddress: '0', logger: createLogger({ level: 'silent' }), registry });
    const controller = controllerFor(mgr, { group: 'example.com', version: 'v1', kind: 'Widget' }).complete(async () => undefined);
    const served = async (): Promise<number | undefined> =>
      (await registry.getSingleMetric('kubegen_source_kind_served')!.get()).values.find((v) => v.labels['controller'] === 'widget')?.value;
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(async () => (await served()) === 1, 'the kind is served', 10_000);
      await mgr.remove(controller);
      await until(async () => (await served()) === undefined, 'the series is gone with the controller', 10_000);
    } finally {
      stop.abort();
      await run;
    }
  });
});
