/**
 * Controllers that come and go on a running manager, and the informers they hold (on the fake transport):
 * - an informer factory hands out one informer per key to many holders and stops it when the last one releases;
 * - a controller added to a running manager starts at once; its sources take the cache's informers when it starts;
 * - removing a controller stops it and gives its informers back: a kind another controller still watches stays
 *   cached (one watch), a kind nobody watches any more is no longer cached or watched.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { InformerStoppedError } from '@kubegen/runtime/internal/cache/shared-informer.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { until } from '../support/wait.js';

const cm = builtinResources.configMaps;
const secrets = builtinResources.secrets;
const object = (kind: string, name: string): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name, namespace: 'ns' } });
const watchesOf = (t: FakeTransport, resource: string): number => t.actions().filter((a) => a.verb === 'watch' && a.resource === resource).length;

describe('SharedInformerFactory holds', () => {
  it('one informer per key for any number of holders; the last release stops and forgets it', async () => {
    const transport = newFakeTransport([cm], object('ConfigMap', 'a'));
    const factory = new SharedInformerFactory(transport, { logger: nullLogger });
    factory.start();
    try {
      const a = factory.acquire(cm);
      const b = factory.acquire(cm);
      assert.equal(a.informer, b.informer);
      const key = factory.keyOf(cm, {}, false);
      assert.equal(factory.holdersOf(key), 2);
      await a.informer.whenSynced();
      await until(() => watchesOf(transport, 'configmaps') === 1, 'one watch');
      await a.release();
      await a.release(); // twice is once
      assert.equal(factory.holdersOf(key), 1);
      assert.equal(a.informer.stopped, false);
      await b.release();
      assert.equal(b.informer.stopped, true);
      assert.deepEqual(factory.keys(), []);
      const again = factory.acquire(cm);
      assert.notEqual(again.informer, a.informer, 'a fresh informer after the last release');
      await again.informer.whenSynced();
    } finally {
      await factory.shutdown();
    }
  });

  it('an informer released before it synced rejects whenSynced instead of leaving its waiters hanging', async () => {
    const transport = newFakeTransport([cm]);
    transport.prependReactor('list', 'configmaps', () => new Promise(() => undefined)); // never answers
    const factory = new SharedInformerFactory(transport, { logger: nullLogger });
    factory.start();
    try {
      const lease = factory.acquire(cm);
      const waiting = lease.informer.whenSynced();
      await until(() => transport.actions().some((a) => a.verb === 'list'), 'the list is sent');
      await lease.release();
      await assert.rejects(waiting, InformerStoppedError);
    } finally {
      await factory.shutdown();
    }
  });
});

describe('controllers on a running manager', () => {
  it('start when added, and when removed give back informers nobody else holds', async () => {
    const transport = newFakeTransport([cm, secrets], object('ConfigMap', 'a'), object('Secret', 's'));
    const mgr = new Manager({ transport, metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0', logger: nullLogger, registry: new Registry() });
    const seen: string[] = [];
    const first = controllerFor(mgr, cm).named('first').complete(async (req) => void seen.push(`first:${req.name}`));
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(() => seen.includes('first:a'), 'the first controller reconciles');
      // Added while running: starts at once, shares the configmaps informer, and watches secrets too.
      const second = controllerFor(mgr, cm)
        .named('second')
        .watches(secrets, { create: (o, sink) => sink.add({ namespace: 'ns', name: `secret-${o.metadata?.name}` }) })
        .complete(async (req) => void seen.push(`second:${req.name}`));
      await until(() => seen.includes('second:a') && seen.includes('second:secret-s'), 'the added controller reconciles');
      assert.equal(watchesOf(transport, 'configmaps'), 1, 'one watch for the kind both controllers watch');
      assert.equal(watchesOf(transport, 'secrets'), 1);
      const probes = `http://${mgr.healthProbeAddress}`;
      assert.equal((await fetch(`${probes}/readyz/controller-second`)).status, 200);

      await mgr.remove(second);
      assert.equal((await fetch(`${probes}/readyz/controller-second`)).status, 404, 'its readiness check is gone');
      const keys = mgr.informers.keys();
      assert.ok(keys.some((k) => k.startsWith('configmaps.')), 'the first controller still holds configmaps');
      assert.ok(!keys.some((k) => k.startsWith('secrets.')), `secrets are no longer cached: ${keys.join(', ')}`);
      const before = seen.length;
      transport.tracker.create(cm, 'ns', object('ConfigMap', 'b'));
      await until(() => seen.includes('first:b'), 'the first controller keeps reconciling');
      assert.ok(!seen.slice(before).some((s) => s.startsWith('second:')), 'the removed controller reconciles nothing');

      await mgr.remove(first);
      assert.deepEqual(mgr.informers.keys(), [], 'nothing is cached once no controller watches anything');
      assert.equal((await fetch(`${probes}/readyz`)).status, 200);
    } finally {
      stop.abort();
      await run;
    }
  });
});
