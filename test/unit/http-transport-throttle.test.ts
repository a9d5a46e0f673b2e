/** TokenBucket (client-side throttling) with a fake clock: burst, refill rate, FIFO waits, aborts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { TokenBucket } from '@kubegen/runtime/internal/client/throttle.js';

/** Moves the fake clock and lets the woken waiters' promise callbacks run. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  clock.step(ms);
  await new Promise((r) => setImmediate(r));
}

describe('TokenBucket', () => {
  it('lets a burst through at once, then throttles to qps', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 2, burst: 3, clock });
    for (let i = 0; i < 3; i++) await bucket.acquire();
    assert.equal(clock.pendingTimers(), 0, 'burst tokens do not wait');
    let done = 0;
    const waiters = [bucket.acquire().then(() => done++), bucket.acquire().then(() => done++)];
    await advance(clock, 0);
    assert.equal(done, 0);
    assert.equal(clock.pendingTimers(), 2);
    assert.equal(clock.nextTimerDue(), 500, 'one token per 1/qps seconds, in call order');
    await advance(clock, 500);
    assert.equal(done, 1);
    assert.equal(clock.nextTimerDue(), 1000);
    await advance(clock, 500);
    assert.equal(done, 2);
    await Promise.all(waiters);
  });

  it('refills up to burst over time and tryAcquire never waits', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 2, clock });
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), false);
    await advance(clock, 100);
    assert.equal(bucket.tryAcquire(), true);
    await advance(clock, 10_000);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), false, 'never more than burst');
  });

  it('an aborted waiter rejects and returns its reservation', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    await bucket.acquire();
    const ac = new AbortController();
    const aborted = bucket.acquire(ac.signal);
    ac.abort(new Error('cancelled'));
    await assert.rejects(aborted, /cancelled/);
    await advance(clock, 1000);
    assert.equal(bucket.tryAcquire(), true, 'the token the aborted waiter reserved is available again');
  });

  it('defaults burst to ceil(qps) and rejects a non-positive qps', () => {
    assert.equal(new TokenBucket({ qps: 2.5, clock: new FakeClock() }).burst, 3);
    assert.throws(() => new TokenBucket({ qps: 0 }), RangeError);
  });
});
