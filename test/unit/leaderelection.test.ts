/**
 * LeaderElector against the fake transport with a FakeClock: acquire, renew, expiry measured on the local clock,
 * takeover, release on cancel, giving up after the renew deadline, optimistic concurrency on the Lease.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Lease } from '@kubegen/runtime/internal/builtin/types.js';
import { ApiError, isConflict, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { LeaderElector, type LeaderElectorOptions } from '@kubegen/runtime/internal/leaderelection/leader-elector.js';
import { LeaseLock, formatMicroTime } from '@kubegen/runtime/internal/leaderelection/lease-lock.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

const NS = 'kube-system';
const NAME = 'my-controller';
const START = Date.parse('2024-05-01T00:00:00Z');

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}

/** Moves the fake clock forward in 100 ms steps, letting pending promise chains run in between. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.step(Math.min(100, ms - t));
    await settle();
  }
}

async function readLease(transport: FakeTransport): Promise<Lease> {
  return (await transport.request({ verb: 'get', resource: builtinResources.leases, namespace: NS, name: NAME })) as Lease;
}

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<void>;
  started: AbortSignal[];
  stopped: number;
  newLeaders: string[];
}

function candidate(transport: FakeTransport, clock: FakeClock, identity: string, extra: Partial<LeaderElectorOptions> = {}): Candidate {
  const c: Candidate = { started: [], stopped: 0, newLeaders: [] } as unknown as Candidate;
  c.elector = new LeaderElector({
    transport,
    namespace: NS,
    name: NAME,
    identity,
    clock,
    logger: nullLogger,
    registry: new Registry(),
    random: () => 0,
    onStartedLeading: (signal) => {
      c.started.push(signal);
    },
    onStoppedLeading: () => {
      c.stopped++;
    },
    onNewLeader: (id) => c.newLeaders.push(id),
    ...extra,
  });
  c.stop = new AbortController();
  c.done = c.elector.run(c.stop.signal);
  return c;
}

describe('LeaderElector', () => {
  it('creates the Lease when missing and leads, with the metric at 1', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    const registry = new Registry();
    const a = candidate(transport, clock, 'a', { registry });
    await settle();
    assert.equal(a.elector.isLeader(), true);
    assert.equal(a.started.length, 1);
    assert.deepEqual(a.newLeaders, ['a']);
    const lease = await readLease(transport);
    assert.equal(lease.spec?.holderIdentity, 'a');
    assert.equal(lease.spec?.leaseDurationSeconds, 15);
    assert.equal(lease.spec?.leaseTransitions, 0);
    assert.equal(lease.spec?.renewTime, formatMicroTime(START));
    const metric = await registry.getSingleMetricAsString('leader_election_master_status');
    assert.match(metric, /leader_election_master_status\{name="my-controller"\} 1/);
    a.stop.abort();
    await a.done;
    assert.equal(a.started[0]!.aborted, true);
    assert.equal(a.stopped, 1);
    assert.match(await registry.getSingleMetricAsString('leader_election_master_status'), /\{name="my-controller"\} 0/);
  });

  it('renews every retry period while leading; a second candidate stays a follower', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    const a = candidate(transport, clock, 'a');
    await settle();
    const b = candidate(transport, clock, 'b');
    await settle();
    await advance(clock, 60_000);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(b.elector.isLeader(), false);
    assert.deepEqual(b.newLeaders, ['a']);
    assert.equal(b.elector.getLeader(), 'a');
    const lease = await readLease(transport);
    assert.equal(lease.spec?.holderIdentity, 'a');
    assert.equal(lease.spec?.renewTime, formatMicroTime(START + 60_000));
    assert.equal(lease.spec?.acquireTime, formatMicroTime(START), 'renewals keep the acquire time');
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
    assert.equal(b.stopped, 0, 'onStoppedLeading only fires for a run that led');
  });

  it('takes over a lease that stopped being renewed only after leaseDuration on the local clock', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    const a = candidate(transport, clock, 'a');
    await settle();
    const b = candidate(transport, clock, 'b');
    await advance(clock, 10_000);
    a.stop.abort(); // no release: the lease just stops being renewed
    await a.done;
    const stoppedAt = clock.now();
    await advance(clock, 12_000);
    assert.equal(b.elector.isLeader(), false, 'not before the lease duration');
    await advance(clock, 8_000);
    assert.equal(b.elector.isLeader(), true, 'within lease duration + retry');
    assert.ok(clock.now() - stoppedAt <= 20_000);
    const lease = await readLease(transport);
    assert.equal(lease.spec?.holderIdentity, 'b');
    assert.equal(lease.spec?.leaseTransitions, 1);
    assert.deepEqual(b.newLeaders, ['a', 'b']);
    b.stop.abort();
    await b.done;
  });

  it('measures expiry from when it observed the lease, not from the remote renewTime', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases], {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: NAME, namespace: NS },
      spec: { holderIdentity: 'ghost', leaseDurationSeconds: 15, renewTime: '1999-01-01T00:00:00.000000Z', leaseTransitions: 4 },
    } as Lease);
    const b = candidate(transport, clock, 'b');
    await settle();
    assert.equal(b.elector.isLeader(), false, 'an old renewTime is not trusted');
    await advance(clock, 14_000);
    assert.equal(b.elector.isLeader(), false);
    await advance(clock, 3_000);
    assert.equal(b.elector.isLeader(), true);
    assert.equal((await readLease(transport)).spec?.leaseTransitions, 5);
    b.stop.abort();
    await b.done;
  });

  it('with releaseOnCancel clears the holder so the other candidate takes over on its next retry', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    let workStopped = false;
    const a = candidate(transport, clock, 'a', {
      releaseOnCancel: true,
      onStartedLeading: async (signal) => {
        await new Promise((r) => signal.addEventListener('abort', r));
        workStopped = true;
      },
      onStoppedLeading: () => assert.equal(workStopped, true, 'work finished before stopped-leading'),
    });
    await settle();
    const b = candidate(transport, clock, 'b');
    await advance(clock, 5_000);
    a.stop.abort();
    await a.done;
    const released = await readLease(transport);
    assert.equal(released.spec?.holderIdentity, '');
    assert.equal(released.spec?.leaseDurationSeconds, 1);
    assert.equal(released.spec?.leaseTransitions, 0);
    await advance(clock, 2_000);
    assert.equal(b.elector.isLeader(), true);
    assert.equal((await readLease(transport)).spec?.leaseTransitions, 1);
    b.stop.abort();
    await b.done;
  });

  it('releases the lease even when a renewal it cut short still reached the apiserver (Conflict, then read again)', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    const a = candidate(transport, clock, 'a', { releaseOnCancel: true });
    await settle();
    assert.equal(a.elector.isLeader(), true);
    // What an aborted renewal that landed looks like: the Lease moves to a newer version, still held by 'a'.
    const current = await readLease(transport);
    await transport.request({ verb: 'update', resource: builtinResources.leases, namespace: NS, name: NAME, body: { ...current, spec: { ...current.spec, renewTime: formatMicroTime(START + 1) } } });
    a.stop.abort();
    await a.done;
    assert.equal((await readLease(transport)).spec?.holderIdentity, '', 'released at the version read after the Conflict');
  });

  it('gives up leadership when it cannot renew within renewDeadline, and never throws', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    const a = candidate(transport, clock, 'a');
    await settle();
    assert.equal(a.elector.isLeader(), true);
    let failing = false;
    transport.prependReactor('update', 'leases', () =>
      failing ? { handled: true, error: new ApiError(newStatus(500, 'InternalError', 'etcd is sad')) } : undefined,
    );
    await advance(clock, 2_000);
    failing = true;
    await advance(clock, 9_000);
    assert.equal(a.elector.isLeader(), true, 'still inside the renew deadline');
    await advance(clock, 4_000);
    assert.equal(a.elector.isLeader(), false);
    await a.done; // run resolves by itself after losing the lease
    assert.equal(a.started[0]!.aborted, true);
    assert.equal(a.stopped, 1);
  });

  it('logs and survives a throwing onStartedLeading / onNewLeader', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    const errors: string[] = [];
    const logger = { ...nullLogger, error: (msg: string) => errors.push(msg), child: () => logger };
    const a = candidate(transport, clock, 'a', {
      logger,
      onStartedLeading: () => {
        throw new Error('boom');
      },
      onNewLeader: () => {
        throw new Error('bang');
      },
    });
    await advance(clock, 4_000);
    assert.equal(a.elector.isLeader(), true);
    assert.ok(errors.includes('onStartedLeading failed'));
    assert.ok(errors.includes('onNewLeader callback threw'));
    a.stop.abort();
    await a.done;
  });

  it('validates its timing options', () => {
    const transport = newFakeTransport([builtinResources.leases]);
    const base = { transport, namespace: NS, name: NAME, logger: nullLogger, registry: new Registry() };
    assert.throws(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /leaseDuration/);
    assert.throws(() => new LeaderElector({ ...base, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }), /renewDeadline/);
    assert.match(new LeaderElector(base).identity, /^.+_[0-9a-f-]{36}$/);
  });
});

describe('LeaseLock', () => {
  it('updates at the resourceVersion it read: a concurrent writer gets a Conflict', async () => {
    const transport = newFakeTransport([builtinResources.leases]);
    const one = new LeaseLock({ transport, namespace: NS, name: NAME });
    const two = new LeaseLock({ transport, namespace: NS, name: NAME });
    const rec = { holderIdentity: 'x', leaseDurationSeconds: 15, acquireTime: START, renewTime: START, leaderTransitions: 0 };
    await one.create(rec);
    await two.get();
    await one.get();
    await one.update({ ...rec, holderIdentity: 'one' });
    await assert.rejects(two.update({ ...rec, holderIdentity: 'two' }), (err) => isConflict(err));
    assert.equal((await one.get()).record.holderIdentity, 'one');
  });
});
