/**
 * `Shard` against the fake transport on a FakeClock: its Lease (name, ring label, holder), the sharder Lease, release
 * on a graceful stop, `lost` and `onLost` when renewals fail past the renew deadline (and not on a graceful stop),
 * `handleDrain` (skip objects of other shards, acknowledge a drain by removing both labels at the object's version,
 * decide again after a Conflict), `labelsFor`, the cached-objects gauge and option validation.
 */
import type { Indexer } from '@kubegen/runtime/internal/cache/indexer.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Lease } from '@kubegen/runtime/internal/builtin/types.js';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Shard, type ShardOptions } from '@kubegen/runtime/internal/sharding/shard.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { conflict } from '@kubegen/runtime/internal/testing/fake/fake-errors.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { fooResource } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/register.js';

const NS = 'default';
const LEASE_NS = 'kube-system';
const SHARD = 'shard.kubegen.io/foos';
const DRAIN = 'drain.shard.kubegen.io/foos';
const START = Date.parse('2024-05-01T00:00:00Z');

const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};
async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.step(Math.min(100, ms - t));
    await settle();
  }
}

function newShard(transport: FakeTransport, extra: Partial<ShardOptions> = {}): Shard {
  return new Shard({
    transport, ringName: 'foos', identity: 'r0', namespace: LEASE_NS, resource: fooResource,
    clock: new FakeClock(START), logger: nullLogger, registry: new Registry(), ...extra,
  });
}

const getLease = async (t: FakeTransport, name: string): Promise<Lease> =>
  (await t.request({ verb: 'get', resource: builtinResources.leases, namespace: LEASE_NS, name })) as Lease;

function foo(labels: Record<string, string>): KubeObject {
  return { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'a', namespace: NS, labels } };
}

/** A shard on a fresh fake transport and clock, run until it holds its Lease (and half a second more). */
async function startHeldShard() {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([builtinResources.leases, fooResource]);
  let lostCalls = 0;
  const shard = newShard(transport, { clock, onLost: () => lostCalls++ });
  const stop = new AbortController();
  const done = shard.run(stop.signal);
  await shard.whenHeld();
  await advance(clock, 500);
  return { clock, transport, shard, stop, done, onLostCalls: () => lostCalls };
}

describe('Shard', () => {
  it('holds its Lease, runs the sharder while leading, and releases both on a graceful stop', async () => {
    const { clock, transport, shard, stop, done, onLostCalls } = await startHeldShard();
    assert.equal(shard.leaseName, 'foos-shard-r0');
    const own = await getLease(transport, 'foos-shard-r0');
    assert.equal(own.spec?.holderIdentity, 'r0');
    assert.equal(own.spec?.leaseDurationSeconds, 15);
    assert.deepEqual(own.metadata?.labels, { 'shard.kubegen.io/ring': 'foos' });
    assert.equal((await getLease(transport, 'foos-sharder')).spec?.holderIdentity, 'r0');
    assert.equal(shard.isHeld(), true);
    assert.equal(shard.isSharder(), true);
    stop.abort();
    await advance(clock, 500);
    await done;
    assert.equal((await getLease(transport, 'foos-shard-r0')).spec?.holderIdentity, '');
    assert.equal((await getLease(transport, 'foos-sharder')).spec?.holderIdentity, '');
    assert.equal(shard.lost.aborted, false);
    assert.equal(onLostCalls(), 0);
  });

  it('aborts `lost` and calls onLost when it cannot renew within the renew deadline', async () => {
    const { clock, transport, shard, stop, done, onLostCalls } = await startHeldShard();
    transport.prependReactor('update', 'leases', () => ({ handled: true, error: new ApiError(newStatus(500, 'InternalError', 'etcd down')) }));
    await advance(clock, 5_000);
    assert.equal(shard.lost.aborted, false, 'still inside the renew deadline');
    await advance(clock, 10_000);
    assert.equal(shard.lost.aborted, true);
    assert.equal(onLostCalls(), 1);
    await done;
    stop.abort();
  });

  it('handleDrain skips other shards\' objects, reconciles its own, and acknowledges a drain', async () => {
    const transport = newFakeTransport([builtinResources.leases, fooResource], foo({ [SHARD]: 'r0', [DRAIN]: 'true', app: 'x' }));
    const shard = newShard(transport);
    const stored = (await transport.request({ verb: 'get', resource: fooResource, namespace: NS, name: 'a' })) as KubeObject;
    assert.equal(await shard.handleDrain(foo({ [SHARD]: 'r1' })), true);
    assert.equal(await shard.handleDrain(foo({})), true);
    assert.equal(await shard.handleDrain(foo({ [SHARD]: 'r0' })), false);
    assert.equal(transport.actions().length, 1, 'no writes for those');
    assert.equal(await shard.handleDrain(stored), true);
    const after = (await transport.request({ verb: 'get', resource: fooResource, namespace: NS, name: 'a' })) as KubeObject;
    assert.deepEqual(after.metadata?.labels, { app: 'x' });
    const patch = transport.actions().find((a) => a.verb === 'patch')!;
    assert.equal((patch.patch as { metadata: { resourceVersion: string } }).metadata.resourceVersion, stored.metadata?.resourceVersion);
  });

  it('handleDrain reads the object again after a Conflict and decides on the fresh version', async () => {
    const transport = newFakeTransport([builtinResources.leases, fooResource], foo({ [SHARD]: 'r0', [DRAIN]: 'true' }));
    const shard = newShard(transport);
    const stale = (await transport.request({ verb: 'get', resource: fooResource, namespace: NS, name: 'a' })) as KubeObject;
    // The sharder cancelled the drain meanwhile: the fresh object is this shard's again.
    await transport.request({ verb: 'patch', resource: fooResource, namespace: NS, name: 'a', patchType: 'merge', body: { metadata: { labels: { [DRAIN]: null } } } });
    assert.equal(await shard.handleDrain(stale), false);
    // A write failing with a Conflict, then the drain still asked for: acknowledged at the fresh version.
    await transport.request({ verb: 'patch', resource: fooResource, namespace: NS, name: 'a', patchType: 'merge', body: { metadata: { labels: { [DRAIN]: 'true' } } } });
    let conflicts = 0;
    transport.prependReactor('patch', 'foos', () => (conflicts++ === 0 ? { handled: true, error: conflict(fooResource, 'a', 'modified') } : undefined));
    assert.equal(await shard.handleDrain(stale), true);
    const after = (await transport.request({ verb: 'get', resource: fooResource, namespace: NS, name: 'a' })) as KubeObject;
    assert.equal(after.metadata?.labels?.[SHARD], undefined);
    // Other errors reject, for the worker to retry the key.
    transport.prependReactor('patch', 'foos', () => ({ handled: true, error: new ApiError(newStatus(500, 'InternalError', 'boom')) }));
    await assert.rejects(shard.handleDrain(foo({ [SHARD]: 'r0', [DRAIN]: 'true' })), /boom/);
  });

  it('labelsFor, the selector and the cached-objects gauge', async () => {
    const transport = newFakeTransport([builtinResources.leases, fooResource]);
    const registry = new Registry();
    const shard = newShard(transport, { registry });
    assert.deepEqual(shard.labelsFor(foo({ [SHARD]: 'r0' })), { [SHARD]: 'r0' });
    assert.deepEqual(shard.labelsFor(foo({})), { [SHARD]: 'r0' });
    assert.equal(shard.selector.labelSelector, 'shard.kubegen.io/foos=r0');
    const informer = new SharedIndexInformer<KubeObject>({ list: async () => ({ metadata: { resourceVersion: '1' }, items: [] }), watch: async () => { throw new Error('no watch'); } } as never);
    // The test seeds the informer's store as its reflector would (getIndexer() is the read-only view).
    (informer.getIndexer() as Indexer<KubeObject>).add(foo({ [SHARD]: 'r0' }));
    const stop = shard.observeCache(informer);
    const text = await registry.metrics();
    assert.match(text, /kubegen_shard_cached_objects\{ring="foos",shard="r0",resource="foos"\} 1/);
    stop();
    assert.doesNotMatch(await registry.metrics(), /kubegen_shard_cached_objects\{/);
  });

  it('rejects invalid names and unsafe timings', () => {
    const transport = newFakeTransport([builtinResources.leases, fooResource]);
    assert.throws(() => newShard(transport, { ringName: 'Bad_Ring' }), /ring name/);
    assert.throws(() => newShard(transport, { identity: 'a/b' }), /identity/);
    assert.throws(() => newShard(transport, { leaseDurationMs: 10_000, renewDeadlineMs: 9_000, retryPeriodMs: 2_000 }), /renewDeadline \+ retryPeriod/);
  });
});
