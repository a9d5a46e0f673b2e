/**
 * A sharded `Manager` in the modes without assignment labels, three replicas on one fake apiserver (each its own
 * `FakeTransport` over a shared tracker), a controller for Foos owning Deployments:
 * - `server` (chosen by `auto`: the fake honours shard selectors and refuses an invalid one): each replica's Foo
 *   informer lists and watches with its ranges' shard selector and ends up holding exactly its part of the Foos;
 * - `client` (chosen by `auto` on a 1.36 server that ignores shard selectors): every replica caches every Foo and
 *   reconciles only its part;
 * in both: every Foo is reconciled by the replica the final ring gives it, its Deployment carries the owner's bucket
 * label and is cached only where its owner is, no replica writes a Foo (no assignment writes), no Foo is reconciled
 * by two replicas at once, and a replica that stops hands its Foos to the others. A field index on the owned kind,
 * added before the controller is built, serves the reconciler's lists from every informer the shard's ranges make. `auto` on a server older than 1.36
 * that ignores shard selectors picks `labels`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, RawRequestInit, RawResponse, Transport } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { detectShardingMode, Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { FakeTransport, newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { fooResource } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/register.js';
import { syncOverlaps, type SyncInterval } from '../support/sync-overlaps.js';
import { until } from '../support/wait.js';

const LEASES = builtinResources.leases;
const DEPLOYMENTS = builtinResources.deployments;
const BUCKET = 'bucket.shard.kubegen.io/foos';
const COUNT = 60;
const OWNER_FIELD = '.metadata.controller';
const TIMINGS = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 100 };

const foo = (i: number): KubeObject =>
  ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: `foo-${i}`, namespace: 'ns', uid: randomUUID(), generation: 1 }, spec: { replicas: 1 } }) as KubeObject;

interface Replica {
  id: string;
  mgr: Manager;
  transport: FakeTransport;
  stop: AbortController;
  run: Promise<void>;
}

/** Every reconcile of every replica: intervals per key, and the last replica to finish each key. */
class Reconciles {
  readonly byKey = new Map<string, SyncInterval[]>();
  readonly lastBy = new Map<string, string>();
  /** What the last reconcile of each key found through the Deployments' owner index (from the cache). */
  readonly indexed = new Map<string, string[]>();
  record(key: string, proc: string, start: number): void {
    this.byKey.set(key, [...(this.byKey.get(key) ?? []), { proc, start, end: performance.now() }]);
    this.lastBy.set(key, proc);
  }
}

function startReplica(shared: FakeTransport, id: string, serverFilters: boolean, log: Reconciles): Replica {
  const transport = new FakeTransport(shared.tracker);
  transport.shardSelectors = serverFilters;
  const mgr = new Manager({ transport, metricsBindAddress: '0', logger: nullLogger, registry: new Registry(), sharding: { identity: id, leaseNamespace: 'kube-system', ...TIMINGS } });
  const deployments = new ResourceClient<KubeObject>(transport, DEPLOYMENTS, 'ns');
  // A field index on a sharded kind, added before the controller: every informer the shard's ranges make gets it.
  mgr.indexField(DEPLOYMENTS, OWNER_FIELD, (d) => (d.metadata?.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.uid));
  controllerFor(mgr, fooResource)
    .named('foos')
    .owns(DEPLOYMENTS)
    .complete(async (req) => {
      const start = performance.now();
      const owner = await mgr.getClient().resource(fooResource, req.namespace).get(req.name).catch(() => undefined);
      if (owner) {
        // Yield a little so that a reconcile spans time in which another replica could (wrongly) start the same key.
        await new Promise((r) => setTimeout(r, 2));
        const byIndex = await mgr.getClient().resource(DEPLOYMENTS, req.namespace).list({ fieldSelector: `${OWNER_FIELD}=${owner.metadata!.uid}` });
        log.indexed.set(`${req.namespace}/${req.name}`, byIndex.items.map((d) => d.metadata!.name!));
        const existing = await deployments.get(req.name).catch(() => undefined);
        if (!existing) {
          const ownerReferences = [{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: req.name, uid: owner.metadata!.uid!, controller: true }];
          await deployments.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: req.name, labels: mgr.shard!.labelsFor(owner), ownerReferences }, spec: {} } as KubeObject);
        }
      }
      log.record(`${req.namespace}/${req.name}`, id, start);
    });
  const stop = new AbortController();
  return { id, mgr, transport, stop, run: mgr.start(stop.signal) };
}

const cached = (r: Replica, kind = fooResource): KubeObject[] => (r.mgr.cluster.cache.lookup(kind, undefined, false) ?? []).flatMap((i) => i.getIndexer().list());

async function runModes(serverFilters: boolean): Promise<void> {
  const foos = Array.from({ length: COUNT }, (_, i) => foo(i));
  const shared = newFakeTransport([LEASES, fooResource, DEPLOYMENTS], ...foos);
  const log = new Reconciles();
  const replicas = ['r0', 'r1', 'r2'].map((id) => startReplica(shared, id, serverFilters, log));
  const ring = new HashRing(replicas.map((r) => r.id));
  const ownerOf = (o: KubeObject): string => ring.get(o.metadata!.uid!)!;
  try {
    await until(() => replicas.every((r) => r.mgr.shard?.shardingMode !== undefined), 'modes decided', 10_000);
    for (const r of replicas) assert.equal(r.mgr.shard!.shardingMode, serverFilters ? 'server' : 'client', `${r.id} picked the mode the server allows`);

    // Every Foo ends up reconciled last by the replica the ring of three gives it, its Deployment in the same part.
    await until(() => foos.every((f) => log.lastBy.get(`ns/${f.metadata!.name}`) === ownerOf(f)), 'every Foo reconciled by its shard', 20_000);
    await until(async () => (await new ResourceClient<KubeObject>(shared, DEPLOYMENTS, 'ns').list()).items.length === COUNT, 'a Deployment per Foo', 10_000);
    for (const r of replicas) {
      const mine = foos.filter((f) => ownerOf(f) === r.id).map((f) => f.metadata!.name!).sort();
      await until(() => cached(r, DEPLOYMENTS).length === mine.length, `${r.id} caches only its own Foos' Deployments`, 10_000);
      assert.deepEqual(cached(r, DEPLOYMENTS).map((d) => d.metadata!.name!).sort(), mine, `${r.id}: the Deployments of its Foos`);
      for (const d of cached(r, DEPLOYMENTS)) assert.match(d.metadata!.labels![BUCKET]!, /^[0-9a-f]{2}$/, 'owned objects carry the owner bucket');
      if (serverFilters) {
        await until(() => cached(r).length === mine.length, `${r.id} caches exactly its part of the Foos`, 10_000);
        assert.deepEqual(cached(r).map((f) => f.metadata!.name!).sort(), mine);
      } else {
        assert.equal(cached(r).length, COUNT, `${r.id} caches every Foo (the server does not filter)`);
      }
      assert.ok(mine.length > 0 && mine.length < COUNT, `${r.id} has a part of the Foos (${mine.length})`);
      const fooLists = r.transport.actions().filter((a) => a.resource === 'foos' && (a.verb === 'list' || a.verb === 'watch') && String(a.query['limit']) !== '1');
      assert.ok(fooLists.length > 0);
      for (const a of fooLists) assert.equal(a.query['shardSelector'] !== undefined, serverFilters, `${r.id} ${a.verb} foos ${JSON.stringify(a.query)}`);
      const writes = r.transport.actions().filter((a) => a.resource === 'foos' && a.verb !== 'list' && a.verb !== 'watch' && a.verb !== 'get');
      assert.deepEqual(writes, [], `${r.id} never writes a Foo (no assignment writes)`);
    }

    // r2 stops: the ring of two takes its Foos; changed specs of all Foos are reconciled by their new owners.
    const last = replicas.pop()!;
    last.stop.abort();
    await last.run;
    const two = new HashRing(replicas.map((r) => r.id));
    const client = new ResourceClient<KubeObject>(shared, fooResource, 'ns');
    const before = new Map([...log.byKey].map(([k, v]) => [k, v.length]));
    for (const f of foos) {
      const cur = await client.get(f.metadata!.name!);
      await client.update({ ...cur, metadata: { ...cur.metadata, generation: 2 }, spec: { replicas: 2 } } as KubeObject);
    }
    await until(
      () => foos.every((f) => (log.byKey.get(`ns/${f.metadata!.name}`)?.length ?? 0) > before.get(`ns/${f.metadata!.name}`)! && log.lastBy.get(`ns/${f.metadata!.name}`) === two.get(f.metadata!.uid!)),
      'every Foo reconciled again, by its shard in the ring of two',
      20_000,
    );
    assert.deepEqual(syncOverlaps(log.byKey), [], 'no Foo reconciled by two replicas at once');
    // The owner index served every reconcile from the cache, also on the informers made after the ring changed.
    for (const f of foos) assert.deepEqual(log.indexed.get(`ns/${f.metadata!.name}`), [f.metadata!.name], `the index finds ${f.metadata!.name}'s Deployment`);
    for (const r of [...replicas, last]) {
      const fromApi = r.transport.actions().filter((a) => a.resource === 'deployments' && a.verb === 'list' && a.query['fieldSelector'] !== undefined);
      assert.deepEqual(fromApi, [], `${r.id} listed by the index field from the cache only`);
    }
  } finally {
    for (const r of replicas) r.stop.abort();
    await Promise.all(replicas.map((r) => r.run));
  }
}

describe('Manager sharding by hash ranges (server and client modes)', () => {
  it('server mode: the shard selector narrows each cache to its part; no assignment writes; handoff on leave', async () => {
    await runModes(true);
  });

  it('client mode: every replica caches all, reconciles its part; no assignment writes; handoff on leave', async () => {
    await runModes(false);
  });

  it('auto detection: server when an invalid shard selector is refused, else client from 1.36, labels before', async () => {
    const filtering = newFakeTransport([fooResource]);
    filtering.shardSelectors = true;
    assert.equal(await detectShardingMode(filtering, fooResource, 'ns'), 'server');
    const ignoring = newFakeTransport([fooResource]);
    assert.equal(await detectShardingMode(ignoring, fooResource, 'ns'), 'client', 'the fake is 1.36 without the gate');
    const old: Transport = Object.create(ignoring, {
      raw: {
        value: async (method: string, path: string, init?: RawRequestInit): Promise<RawResponse> =>
          path === '/version' ? { statusCode: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ major: '1', minor: '20', gitVersion: 'v1.20.2' })) } : ignoring.raw(method, path, init),
      },
    });
    assert.equal(await detectShardingMode(old, fooResource, 'ns'), 'labels');
  });
});
