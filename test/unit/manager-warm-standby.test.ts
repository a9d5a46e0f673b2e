/**
 * Warm standby (`enableWarmup`, controller-runtime's `EnableWarmup`), on the fake transport and a FakeClock (default
 * Lease timings: 15 s lease, 2 s retry): a replica waiting for the Lease lists and watches its controllers' kinds and
 * fills their queues but reconciles nothing; once it acquires the Lease its workers start at once, without listing
 * again. Without the option a standby caches nothing until it leads. Either way reconciles wait until the
 * controller's handlers have synced, and a warm standby's readiness reports its sources.
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
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
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

/** A Lease held by `holder`, renewed "now": it expires 15 s after the elector first sees it. */
function leaseHeldBy(holder: string): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: LEASE, namespace: NS },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: formatMicroTime(START),
      renewTime: formatMicroTime(START),
      leaseTransitions: 0,
    },
  } as Lease;
}

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } }) as KubeObject;
const configMapLists = (transport: FakeTransport): number => transport.actions().filter((a) => a.verb === 'list' && a.resource === 'configmaps').length;

/** A standby manager (another process holds the Lease) with one ConfigMap controller recording its reconciles. */
async function standby(enableWarmup: boolean | undefined) {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([cm, builtinResources.leases], configMap('first'));
  await leases(transport).create(leaseHeldBy('other'));
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
    ...(enableWarmup !== undefined ? { enableWarmup } : {}),
  });
  const reconciled: { key: string; at: number }[] = [];
  const ctrl = controllerFor(mgr, cm).complete(async (req) => {
    reconciled.push({ key: `${req.namespace}/${req.name}`, at: clock.now() });
  });
  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  const shutDown = async (): Promise<void> => {
    stop.abort();
    await advance(clock, 2_000);
    await run;
  };
  return { clock, transport, mgr, ctrl, reconciled, shutDown };
}

/** Advances until this manager leads; returns the fake time it acquired the Lease at. */
async function untilLeading(clock: FakeClock, mgr: Manager): Promise<number> {
  for (let i = 0; i < 300 && !mgr.elector?.isLeader(); i++) await advance(clock, 100);
  assert.equal(mgr.elector?.isLeader(), true, 'acquired the Lease once it expired');
  return clock.now();
}

test('warm standby: a standby lists and queues without reconciling, and reconciles as soon as it leads', async () => {
  const { clock, transport, mgr, ctrl, reconciled, shutDown } = await standby(true);
  try {
    await advance(clock, 1_000);
    assert.equal(mgr.elector?.isLeader(), false);
    assert.equal(ctrl.enableWarmup, true, 'the manager default reaches the builder');
    assert.equal(configMapLists(transport), 1, 'the standby listed its controller\'s kind');
    assert.equal(ctrl.queue.len(), 1, 'the initial list is queued');
    assert.deepEqual(ctrl.syncStatus(), { synced: true, pending: [] });
    assert.equal(mgr.ready, true, 'a warm standby is ready once its sources synced');

    await new ResourceClient<KubeObject>(transport, cm, NS).create(configMap('second'));
    await advance(clock, 1_000);
    assert.equal(ctrl.queue.len(), 2, 'events while standing by are queued');
    assert.equal(reconciled.length, 0, 'no reconcile while another process holds the Lease');

    const acquiredAt = await untilLeading(clock, mgr);
    assert.deepEqual(reconciled.map((r) => r.key).sort(), [`${NS}/first`, `${NS}/second`]);
    assert.ok(reconciled.every((r) => r.at === acquiredAt), `reconciled at ${reconciled.map((r) => r.at - acquiredAt).join(', ')} ms after acquiring`);
    assert.equal(configMapLists(transport), 1, 'the new leader did not list again');
  } finally {
    await shutDown();
  }
  assert.equal(ctrl.queue.shuttingDown(), true, 'the controller stopped with the manager');
});

test('cold standby (the default): nothing is listed or queued until the Lease is won', async () => {
  const { clock, transport, mgr, ctrl, reconciled, shutDown } = await standby(undefined);
  try {
    await advance(clock, 1_000);
    assert.equal(ctrl.enableWarmup, false);
    assert.equal(configMapLists(transport), 0, 'a cold standby caches nothing');
    assert.equal(ctrl.queue.len(), 0);
    assert.equal(mgr.ready, true, 'a cold standby is ready: it waits for nothing');
    await untilLeading(clock, mgr);
    await advance(clock, 200);
    assert.equal(configMapLists(transport), 1, 'the new leader lists first');
    assert.deepEqual(reconciled.map((r) => r.key), [`${NS}/first`]);
  } finally {
    await shutDown();
  }
});

test('warm standby: readiness reports the unsynced sources, and a new leader reconciles only after its handlers synced', async () => {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([cm, builtinResources.leases], configMap('first'));
  await leases(transport).create(leaseHeldBy('other'));
  let answerList!: () => void;
  const listAnswered = new Promise<void>((resolve) => (answerList = resolve));
  // The first list hangs until released (e.g. 50,000 objects on a busy apiserver); the tracker answers it then.
  transport.prependReactor('list', 'configmaps', async () => {
    await listAnswered;
    return undefined;
  });
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
    enableWarmup: true,
  });
  const reconciled: string[] = [];
  const ctrl = controllerFor(mgr, cm).complete(async (req) => void reconciled.push(req.name));
  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  try {
    await advance(clock, 1_000);
    assert.equal(mgr.ready, false, 'a warm standby is not ready before its sources synced');
    assert.deepEqual(ctrl.syncStatus().pending.map((p) => p.source), ['configmaps.core/v1']);

    await untilLeading(clock, mgr);
    await advance(clock, 1_000);
    assert.deepEqual(reconciled, [], 'leading, but the handlers have not synced: no worker runs');

    answerList();
    await advance(clock, 200);
    assert.deepEqual(reconciled, ['first']);
    assert.equal(mgr.ready, true);
  } finally {
    stop.abort();
    await advance(clock, 2_000);
    await run;
  }
});

test('warm standby: withOptions overrides the manager default, and removing a warm controller stops its sources', async () => {
  const { clock, transport, mgr, ctrl, shutDown } = await standby(true);
  const cold = controllerFor(mgr, builtinResources.secrets).named('cold').withOptions({ enableWarmup: false }).complete(async () => undefined);
  try {
    await advance(clock, 1_000);
    assert.equal(cold.enableWarmup, false);
    assert.equal(transport.actions().filter((a) => a.verb === 'list' && a.resource === 'secrets').length, 0, 'the cold controller waits for the Lease');
    assert.equal(ctrl.queue.len(), 1);

    assert.ok(mgr.informers.keys().some((k) => k.startsWith('configmaps.')), 'the warm controller holds configmaps');
    await mgr.remove(ctrl);
    await advance(clock, 500);
    assert.equal(ctrl.queue.shuttingDown(), true, 'a removed standby controller stops');
    assert.deepEqual(mgr.informers.keys(), [], 'its informers were given back: nothing is cached on this standby');
    assert.equal(mgr.ready, true);
  } finally {
    await shutDown();
  }
});
