/**
 * Cluster sharding on the fake transport: two replicas (two managers, each with its own transport over one object
 * tracker, so one can be cut off) split three member clusters by the ring, never both driving one; when one can no
 * longer reach the hub (its Lease renewals fail, as a replica killed or partitioned), it stops driving its clusters
 * and the other takes them over once its peer Lease is fenced; the fence Leases name the driver.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Lease } from '@kubegen/runtime/internal/builtin/types.js';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import { Cluster } from '@kubegen/runtime/internal/cluster/cluster.js';
import { enqueueForObject } from '@kubegen/runtime/internal/handler/handler.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { newMultiClusterControllerManagedBy } from '@kubegen/runtime/internal/multicluster/builder.js';
import { clusterFenceLeaseName, clusterOwner } from '@kubegen/runtime/internal/multicluster/cluster-sharding.js';
import { MultiClusterManager } from '@kubegen/runtime/internal/multicluster/manager.js';
import { ClusterNotEngagedError, type ClusterAware, type ClusterProvider } from '@kubegen/runtime/internal/multicluster/provider.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { FakeTransport, newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { until } from '../support/wait.js';

const cm = builtinResources.configMaps;
const leases = builtinResources.leases;
const MEMBERS = ['m1', 'm2', 'm3'];

/** Engages the given member transports as clusters until stopped. */
class FixedProvider implements ClusterProvider {
  private readonly clusters = new Map<string, Cluster>();
  constructor(private readonly members: Map<string, FakeTransport>) {}
  async start(aware: ClusterAware, signal: AbortSignal): Promise<void> {
    await Promise.all([...this.members].map(([name, transport]) => {
      const cluster = new Cluster({ name, transport, logger: nullLogger });
      this.clusters.set(name, cluster);
      return aware.engage(name, cluster, signal);
    }));
  }
  get(name: string): Cluster {
    const c = this.clusters.get(name);
    if (!c) throw new ClusterNotEngagedError(name);
    return c;
  }
  list(): string[] {
    return [...this.clusters.keys()].sort();
  }
}

describe('cluster sharding', () => {
  it('splits the clusters between two replicas, never both driving one, and moves a cut-off replica\'s clusters', async () => {
    const hubA = newFakeTransport([cm, leases]);
    const hubB = new FakeTransport(hubA.tracker);
    const members = new Map(MEMBERS.map((m) => [m, newFakeTransport([cm], { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'ns' } })]));
    // Two identities the ring splits the three clusters between.
    const ids = Array.from({ length: 20 }, (_, i) => `replica-${i}`);
    let pair: [string, string] | undefined;
    for (let i = 0; i < ids.length && !pair; i++) {
      for (let j = i + 1; j < ids.length && !pair; j++) {
        if (new Set(MEMBERS.map((m) => clusterOwner(new HashRing([ids[i]!, ids[j]!]), m))).size === 2) pair = [ids[i]!, ids[j]!];
      }
    }
    const [a, b] = pair!;
    const reconciled = new Map<string, Set<string>>();
    const replica = (identity: string, hub: FakeTransport) => {
      const mgr = new MultiClusterManager({
        transport: hub, metricsBindAddress: '0', logger: nullLogger, registry: new Registry(),
        provider: new FixedProvider(members),
        clusterSharding: { identity, leaseNamespace: 'ns', leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 },
      });
      newMultiClusterControllerManagedBy(mgr).named('fleet').for(cm, { clusters: 'members' }).complete((req) => {
        const set = reconciled.get(req.cluster) ?? new Set();
        set.add(identity);
        reconciled.set(req.cluster, set);
      });
      return mgr;
    };
    const ma = replica(a, hubA);
    const mb = replica(b, hubB);
    const stopA = new AbortController();
    const stopB = new AbortController();
    const runA = ma.start(stopA.signal).catch((err: unknown) => err);
    const runB = mb.start(stopB.signal);
    const overlaps: string[] = [];
    const watch = setInterval(() => {
      const both = ma.ownedClusterNames().filter((c) => mb.ownedClusterNames().includes(c));
      if (both.length > 0) overlaps.push(both.join(','));
    }, 10);
    try {
      const expected = (id: string): string[] => MEMBERS.filter((m) => clusterOwner(new HashRing([a, b]), m) === id);
      await until(() => JSON.stringify(ma.ownedClusterNames()) === JSON.stringify(expected(a)) && JSON.stringify(mb.ownedClusterNames()) === JSON.stringify(expected(b)), 'the clusters split by the ring', 10_000);
      for (const m of MEMBERS) {
        const fence = hubA.tracker.get(leases, 'ns', clusterFenceLeaseName('clusters', m)) as Lease;
        assert.equal(fence.spec?.holderIdentity, clusterOwner(new HashRing([a, b]), m), `${m}'s fence names its driver`);
      }
      await until(() => MEMBERS.every((m) => reconciled.get(m)?.size === 1), 'every cluster reconciled by one replica', 10_000);
      assert.ok(MEMBERS.every((m) => reconciled.get(m)!.has(clusterOwner(new HashRing([a, b]), m)!)));

      // Replica a loses the hub: every write fails. It stops driving; b takes a's clusters once a's Lease is fenced.
      hubA.prependReactor('*', 'leases', () => ({ handled: true, error: new ApiError(newStatus(503, 'ServiceUnavailable', 'hub unreachable')) }));
      await until(() => ma.ownedClusterNames().length === 0, 'a stops driving', 10_000);
      await until(() => JSON.stringify(mb.ownedClusterNames()) === JSON.stringify(MEMBERS), 'b drives every cluster', 20_000);
      assert.deepEqual(overlaps, [], 'no cluster was driven by both replicas at once');
      const failed = await runA;
      assert.match(String(failed), /ShardLostError|shard/i, 'a, having lost its peer Lease, stops with ShardLostError');
    } finally {
      clearInterval(watch);
      stopA.abort();
      stopB.abort();
      await runA;
      await runB;
    }
  });
});
