/**
 * Leader election against a real kube-apiserver: two electors on one Lease (short timings so the test is quick).
 * Only one leads; stopping the leader without release hands over after about the lease duration; with release,
 * the follower takes over on its next retry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { LeaderElector } from '@kubegen/runtime/internal/leaderelection/leader-elector.js';
import { sharedEnv, type TestEnv } from './support/env.js';

const LEASE_MS = 4_000;
const RENEW_MS = 3_000;
const RETRY_MS = 500;

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await delay(50);
  }
}

describe('leader election (envtest)', () => {
  let env: TestEnv;
  let ns: string;

  before(async () => {
    env = await sharedEnv();
    ns = await env.newNamespace('leader-election');
  });
  after(async () => {
    await env?.release();
  });

  function start(name: string, identity: string, releaseOnCancel: boolean) {
    const stop = new AbortController();
    const elector = new LeaderElector({
      transport: env.transport,
      namespace: ns,
      name,
      identity,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_MS,
      retryPeriodMs: RETRY_MS,
      releaseOnCancel,
      logger: nullLogger,
      registry: new Registry(),
    });
    const done = elector.run(stop.signal);
    return { elector, stop, done, identity };
  }

  for (const release of [false, true]) {
    it(`exactly one of two leads; stopping the leader ${release ? 'with' : 'without'} release hands over`, async () => {
      const lease = `lock-${release ? 'release' : 'expire'}`;
      const a = start(lease, 'candidate-a', release);
      const b = start(lease, 'candidate-b', release);
      try {
        await waitFor(() => a.elector.isLeader() || b.elector.isLeader(), 10_000, 'a leader');
        for (let i = 0; i < 20; i++) {
          assert.equal(Number(a.elector.isLeader()) + Number(b.elector.isLeader()), 1, 'exactly one leader');
          await delay(100);
        }
        const [leader, follower] = a.elector.isLeader() ? [a, b] : [b, a];
        const leases = new KubeClientset(env.transport).coordinationV1.leases(ns);
        const before = await leases.get(lease);
        assert.equal(before.spec?.holderIdentity, leader.identity);
        assert.equal(before.spec?.leaseDurationSeconds, LEASE_MS / 1000);

        leader.stop.abort();
        await leader.done;
        const stoppedAt = Date.now();
        if (release) assert.equal((await leases.get(lease)).spec?.holderIdentity, '', 'released');
        await waitFor(() => follower.elector.isLeader(), LEASE_MS + 5_000, 'the follower to take over');
        const tookMs = Date.now() - stoppedAt;
        if (release) {
          assert.ok(tookMs < LEASE_MS - RETRY_MS, `took over after ${tookMs} ms, expected well before the lease expired`);
        } else {
          assert.ok(tookMs >= LEASE_MS - 2 * RETRY_MS, `took over after ${tookMs} ms, before the lease could expire`);
        }
        const afterLease = await leases.get(lease);
        assert.equal(afterLease.spec?.holderIdentity, follower.identity);
        assert.equal(afterLease.spec?.leaseTransitions, (before.spec?.leaseTransitions ?? 0) + 1);
      } finally {
        a.stop.abort();
        b.stop.abort();
        await Promise.all([a.done, b.done]);
      }
    });
  }
});
