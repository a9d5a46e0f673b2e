/**
 * Unique controller names (controller-runtime's `usedNames` and `SkipNameValidation`): a second live controller of a
 * name reporting to the same metrics registry is refused, naming the way out; `skipNameValidation` builds it anyway
 * (two managers of one process, as tests do); a name comes free when its controller is removed or its manager stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { until } from '../support/wait.js';

const cm = builtinResources.configMaps;
const newManager = (registry: Registry): Manager =>
  new Manager({ transport: newFakeTransport([cm]), metricsBindAddress: '0', logger: nullLogger, registry });
const noop = async (): Promise<void> => undefined;

test('a second controller of one name on one metrics registry is refused; skipNameValidation builds it', async () => {
  const registry = new Registry();
  const first = newManager(registry);
  const second = newManager(registry);
  controllerFor(first, cm).complete(noop);
  assert.throws(() => controllerFor(second, cm).complete(noop), /^Error: controller with name configmap already exists: controller names must be unique .*skipNameValidation/);
  assert.throws(() => controllerFor(first, cm).complete(noop), /controller with name configmap already exists/, 'within one manager too');
  const again = controllerFor(second, cm).withOptions({ skipNameValidation: true }).complete(noop);
  assert.equal(again.skipNameValidation, true);
  // Another registry: other metric series, no clash.
  controllerFor(newManager(new Registry()), cm).complete(noop);
  controllerFor(first, cm).named('other').complete(noop);
});

test('a name comes free when its controller is removed or its manager has stopped', async () => {
  const registry = new Registry();
  const mgr = newManager(registry);
  const ctrl = controllerFor(mgr, cm).complete(noop);
  await mgr.remove(ctrl);
  controllerFor(mgr, cm).complete(noop); // the removed controller's name

  const running = newManager(registry);
  controllerFor(running, cm).named('held').complete(noop);
  const run = running.start();
  assert.throws(() => controllerFor(newManager(registry), cm).named('held').complete(noop), /already exists/);
  await running.stop();
  await run;
  controllerFor(newManager(registry), cm).named('held').complete(noop);
});

test('a refused namesake leaves the live controller\'s metrics alone (refused before it is made)', async () => {
  const registry = new Registry();
  const mgr = newManager(registry);
  let release!: () => void;
  const blocked = new Promise<void>((r) => (release = r));
  controllerFor(mgr, cm).complete(() => blocked);
  await new ResourceClient<KubeObject>(mgr.transport, cm, 'ns').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } });
  const activeWorkers = async (): Promise<number | undefined> =>
    (await registry.getMetricsAsJSON()).find((m) => m.name === 'controller_runtime_active_workers')?.values.find((v) => v.labels['controller'] === 'configmap')?.value;
  const run = mgr.start();
  try {
    await until(async () => (await activeWorkers()) === 1, 'one reconcile in flight');
    assert.throws(() => controllerFor(newManager(registry), cm).complete(noop), /already exists/);
    assert.equal(await activeWorkers(), 1, 'the gauge of the live controller is untouched');
  } finally {
    release();
    await mgr.stop();
    await run;
  }
});
