/**
 * `ManagerOptions.sharding` with the builder, on the fake transport: the sharded controller's `for` and `owns`
 * informers list with the shard's label selector, the replica holds its shard Lease and runs the sharder, objects
 * the ring assigns are reconciled, a drain request is acknowledged (labels removed) instead of reconciled even
 * through a predicate that filters label updates, the Lease is released on stop; and the refusals (sharding with
 * leader election, a second sharded controller, informers made before the shard). Three real replicas:
 * test/integration/sharding.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Lease } from '@kubegen/runtime/internal/builtin/types.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { generationChanged } from '@kubegen/runtime/internal/predicate/predicate.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { fooResource } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/register.js';
import { until } from '../support/wait.js';

const LEASES = builtinResources.leases;
const DEPLOYMENTS = builtinResources.deployments;
const SHARD = 'shard.kubegen.io/foos';
const DRAIN = 'drain.shard.kubegen.io/foos';
const foo = (name: string, labels: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name, namespace: 'ns', uid: `u-${name}`, generation: 1, labels }, spec: {} }) as KubeObject;

const newManager = (transport: ReturnType<typeof newFakeTransport>, extra: Partial<ConstructorParameters<typeof Manager>[0]> = {}): Manager =>
  new Manager({ transport, metricsBindAddress: '0', logger: nullLogger, registry: new Registry(), sharding: { identity: 'r0', leaseNamespace: 'kube-system', mode: 'labels' }, ...extra });

describe('Manager with sharding', () => {
  it('caches only its shard, reconciles what the sharder assigns it, and acknowledges drains instead of reconciling', async () => {
    const transport = newFakeTransport([LEASES, fooResource, DEPLOYMENTS], foo('a'), foo('b'));
    const mgr = newManager(transport);
    const seen: string[] = [];
    const duringDrain: string[] = [];
    controllerFor(mgr, fooResource, { predicates: [generationChanged()] })
      .named('foos')
      .owns(DEPLOYMENTS)
      .complete(async (req) => {
        seen.push(req.name);
        const cached = await mgr.getClient().resource(fooResource, req.namespace).get(req.name).catch(() => undefined);
        if (cached?.metadata?.labels?.[DRAIN] !== undefined) duringDrain.push(req.name);
      });
    assert.equal(mgr.shard?.identity, 'r0');
    assert.equal(mgr.shard?.ringName, 'foos', 'the ring is named after the controller');
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(() => seen.includes('a') && seen.includes('b'), 'both Foos assigned to the only shard and reconciled', 10_000);
      const lists = transport.actions().filter((a) => a.verb === 'list' && (a.resource === 'foos' || a.resource === 'deployments') && a.as === undefined);
      for (const a of lists.filter((l) => l.query['labelSelector'] !== undefined || l.resource === 'deployments')) {
        if (a.query['labelSelector'] === `${SHARD}=r0`) continue;
        // The sharder's own metadata informers watch every object of the kinds; the controller's caches select r0.
        assert.fail(`unexpected list ${JSON.stringify(a)}`);
      }
      assert.ok(lists.some((a) => a.resource === 'foos' && a.query['labelSelector'] === `${SHARD}=r0`), 'the Foo cache selects the shard');
      const lease = (await transport.request({ verb: 'get', resource: LEASES, namespace: 'kube-system', name: 'foos-shard-r0' })) as Lease;
      assert.equal(lease.spec?.holderIdentity, 'r0');

      // A drain request (a label-only update, which generationChanged filters out) is acknowledged, not reconciled.
      const foos = new ResourceClient<KubeObject>(transport, fooResource, 'ns');
      const a = await foos.get('a');
      await foos.update({ ...a, metadata: { ...a.metadata, labels: { ...a.metadata?.labels, [DRAIN]: 'true' } } });
      await until(async () => (await foos.get('a')).metadata?.labels?.[DRAIN] === undefined, 'drain acknowledged', 10_000);
      // With one live shard the sharder then gives it straight back: assigned again, and reconciled again as new.
      await until(async () => (await foos.get('a')).metadata?.labels?.[SHARD] === 'r0', 'reassigned to the only shard', 10_000);
      await until(() => seen.filter((n) => n === 'a').length >= 2, 'a reconciled again once back in the shard', 10_000);
      assert.deepEqual(duringDrain, [], 'no reconcile saw the drain label');
    } finally {
      stop.abort();
      await run;
    }
    const lease = (await transport.request({ verb: 'get', resource: LEASES, namespace: 'kube-system', name: 'foos-shard-r0' })) as Lease;
    assert.ok(!lease.spec?.holderIdentity, 'the shard Lease is released on stop');
  });

  it('refuses sharding with leader election, a second sharded controller, informers made before the shard, and a negative join window', () => {
    const transport = newFakeTransport([LEASES, fooResource, DEPLOYMENTS]);
    assert.throws(() => newManager(transport, { leaderElection: true, leaderElectionId: 'x' }), /leaderElection and sharding exclude each other/);
    const mgr = newManager(transport);
    controllerFor(mgr, fooResource).complete(async () => {});
    assert.throws(() => controllerFor(mgr, DEPLOYMENTS).complete(async () => {}), /already shards foo/);
    const early = newManager(transport);
    early.getInformer(fooResource);
    assert.throws(() => controllerFor(early, fooResource).complete(async () => {}), /already cached without its shard's selection/);
    const negative = newManager(transport, { sharding: { identity: 'r0', leaseNamespace: 'kube-system', joinWindowMs: -1 } });
    assert.throws(() => controllerFor(negative, fooResource).complete(async () => {}), /sharding joinWindowMs must be .* 0 or more, not -1/);
  });
});
