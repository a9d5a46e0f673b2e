/** TokenBucket (client-side throttling) with a fake clock: burst, refill rate, FIFO waits, aborts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucket, type ThrottleClock } from '../../src/runtime/client/throttle.js';

class FakeClock implements ThrottleClock {
  t = 0;
  sleeps: { until: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry = { until: this.t + ms, resolve, reject };
      this.sleeps.push(entry);
      signal?.addEventListener('abort', () => {
        this.sleeps = this.sleeps.filter((s) => s !== entry);
        reject(signal.reason);
      });
    });
  }
  async advance(ms: number): Promise<void> {
    this.t += ms;
    const due = this.sleeps.filter((s) => s.until <= this.t);
    this.sleeps = this.sleeps.filter((s) => s.until > this.t);
    for (const s of due) s.resolve();
    await new Promise((r) => setImmediate(r));
  }
}

describe('TokenBucket', () => {
  it('lets a burst through at once, then throttles to qps', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 2, burst: 3, clock });
    for (let i = 0; i < 3; i++) await bucket.acquire();
    assert.equal(clock.sleeps.length, 0, 'burst tokens do not wait');
    let done = 0;
    const waiters = [bucket.acquire().then(() => done++), bucket.acquire().then(() => done++)];
    await clock.advance(0);
    assert.equal(done, 0);
    assert.deepEqual(clock.sleeps.map((s) => s.until), [500, 1000], 'one token per 1/qps seconds, in call order');
    await clock.advance(500);
    assert.equal(done, 1);
    await clock.advance(500);
    assert.equal(done, 2);
    await Promise.all(waiters);
  });

  it('refills up to burst over time and tryAcquire never waits', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 2, clock });
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), false);
    await clock.advance(100);
    assert.equal(bucket.tryAcquire(), true);
    await clock.advance(10_000);
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
    await clock.advance(1000);
    assert.equal(bucket.tryAcquire(), true, 'the token the aborted waiter reserved is available again');
  });

  it('defaults burst to ceil(qps) and rejects a non-positive qps', () => {
    assert.equal(new TokenBucket({ qps: 2.5, clock: new FakeClock() }).burst, 3);
    assert.throws(() => new TokenBucket({ qps: 0 }), RangeError);
  });
});
