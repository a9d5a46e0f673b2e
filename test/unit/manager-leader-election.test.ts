/**
 * Manager with leader election, on the fake transport and a FakeClock (default Lease timings: 15 s lease, 10 s renew
 * deadline, 2 s retry): the cache syncs and non-leader runnables run at once, but controllers start only once the
 * Lease is acquired; when another holder takes the Lease and renewal fails for the renew deadline, the controllers
 * stop (queue shut down, no further reconciles) and `start` rejects with `LeaderElectionLostError`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Lease } from '@kubegen/runtime/internal/builtin/types.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { formatMicroTime } from '@kubegen/runtime/internal/leaderelection/lease-lock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { LeaderElectionLostError, Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

const NS = 'ns';
const LEASE = 'mgr-lock';
const START = Date.parse('2024-05-01T00:00:00Z');
const cm = builtinResources.configMaps;

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/** Moves the fake clock forward in 100 ms steps, letting pending promise chains run in between. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.step(Math.min(100, ms - t));
    await settle();
  }
}

const leases = (transport: FakeTransport) => new ResourceClient<Lease>(transport, builtinResources.leases, NS);

/** A Lease held by `holder`, renewed "now" (the elector measures expiry on its own clock from when it saw it). */
function leaseHeldBy(holder: string, now: number, resourceVersion?: string): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: LEASE, namespace: NS, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: formatMicroTime(now),
      renewTime: formatMicroTime(now),
      leaseTransitions: 0,
    },
  } as Lease;
}

test('manager: controllers start only after the Lease is acquired and stop when it is lost', async () => {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([cm, builtinResources.leases], {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'first', namespace: NS },
  } as KubeObject);
  await leases(transport).create(leaseHeldBy('other', START));

  const mgr = new Manager({
    transport,
    metricsBindAddress: '0',
    logger: nullLogger,
    registry: new Registry(),
    clock,
    leaderElection: true,
    leaderElectionId: LEASE,
    leaderElectionNamespace: NS,
    leaderElectionIdentity: 'me',
    gracefulShutdownTimeoutMs: 1_000,
  });
  const reconciled: { key: string; at: number }[] = [];
  const ctrl = controllerFor(mgr, cm).complete(async (req) => {
    reconciled.push({ key: `${req.namespace}/${req.name}`, at: clock.now() });
  });
  let nonLeaderStartedAt: number | undefined;
  let nonLeaderStopped = false;
  mgr.add({
    needLeaderElection: false,
    start: async (signal) => {
      nonLeaderStartedAt = clock.now();
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      nonLeaderStopped = true;
    },
  });

  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  const settled: { outcome: unknown } = { outcome: 'pending' };
  run.then(
    () => (settled.outcome = 'resolved'),
    (err: unknown) => (settled.outcome = err),
  );
  try {
    await advance(clock, 1_000);
    assert.equal(mgr.ready, true, 'the cache syncs without leadership');
    assert.ok(nonLeaderStartedAt !== undefined && nonLeaderStartedAt <= START + 1_000, 'non-leader runnables start at once');
    assert.equal(mgr.elector?.isLeader(), false);
    assert.equal(mgr.elector?.getLeader(), 'other');

    // The other holder never renews; the lease expires 15 s after we first saw it, on our clock.
    await advance(clock, 12_000);
    assert.equal(reconciled.length, 0, 'no reconcile while another process holds the Lease');
    assert.equal(mgr.elector?.isLeader(), false);

    await advance(clock, 10_000);
    assert.equal(mgr.elector?.isLeader(), true, 'acquired after expiry');
    assert.equal((await leases(transport).get(LEASE)).spec?.holderIdentity, 'me');
    assert.deepEqual(reconciled.map((r) => r.key), [`${NS}/first`]);
    assert.ok(reconciled[0]!.at >= START + 15_000, `reconciled at +${reconciled[0]!.at - START} ms, before the Lease expired`);

    // While leading, new objects are reconciled.
    const cms = new ResourceClient<KubeObject>(transport, cm, NS);
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second' } } as KubeObject);
    await advance(clock, 200);
    assert.deepEqual(reconciled.map((r) => r.key), [`${NS}/first`, `${NS}/second`]);

    // Another process takes the Lease over (e.g. after a partition): our renewals fail until the renew deadline.
    const current = await leases(transport).get(LEASE);
    await leases(transport).update(leaseHeldBy('thief', clock.now(), current.metadata?.resourceVersion));
    await advance(clock, 6_000);
    assert.equal(settled.outcome, 'pending', 'still within the renew deadline');
    await advance(clock, 8_000);
    assert.equal(mgr.elector?.isLeader(), false);
    const outcome = settled.outcome as unknown as Error; // (assert.equal above narrowed it to 'pending')
    assert.ok(outcome instanceof LeaderElectionLostError, `start settled with ${String(outcome)}`);
    assert.equal(ctrl.queue.shuttingDown(), true, 'the controller stopped');
    assert.equal(nonLeaderStopped, true, 'the manager shut everything down');

    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'third' } } as KubeObject);
    await advance(clock, 1_000);
    assert.equal(reconciled.filter((r) => r.key === `${NS}/third`).length, 0, 'no reconcile after leadership was lost');
    assert.equal((await leases(transport).get(LEASE)).spec?.holderIdentity, 'thief', 'the new holder keeps the Lease');
  } finally {
    stop.abort();
    await advance(clock, 2_000);
    await run.catch(() => undefined);
  }
});

test('manager: with release on cancel, stopping a leading manager frees the Lease after its controllers stopped', async () => {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([cm, builtinResources.leases], {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'slow', namespace: NS },
  } as KubeObject);
  const mgr = new Manager({
    transport,
    metricsBindAddress: '0',
    logger: nullLogger,
    registry: new Registry(),
    clock,
    leaderElection: true,
    leaderElectionId: LEASE,
    leaderElectionNamespace: NS,
    leaderElectionIdentity: 'me',
    leaderElectionReleaseOnCancel: true,
  });
  let finishReconcile!: () => void;
  let holderWhenReconcileFinished: string | undefined;
  controllerFor(mgr, cm).complete(
    () =>
      new Promise<void>((resolve) => {
        finishReconcile = () => {
          void leases(transport)
            .get(LEASE)
            .then((l) => {
              holderWhenReconcileFinished = l.spec?.holderIdentity;
              resolve();
            });
        };
      }),
  );
  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  await advance(clock, 500);
  assert.equal(mgr.elector?.isLeader(), true, 'a missing Lease is created and held at once');
  assert.equal(typeof finishReconcile, 'function', 'the reconcile is in flight');

  stop.abort();
  await advance(clock, 500);
  assert.equal((await leases(transport).get(LEASE)).spec?.holderIdentity, 'me', 'held while a reconcile is in flight');
  finishReconcile();
  await advance(clock, 500);
  await run;
  assert.equal(holderWhenReconcileFinished, 'me');
  const released = await leases(transport).get(LEASE);
  assert.equal(released.spec?.holderIdentity ?? '', '', 'released on shutdown');
  assert.equal(released.spec?.leaseDurationSeconds, 1);
});
