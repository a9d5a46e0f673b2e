import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { BucketRateLimiter } from '@kubegen/runtime/internal/workqueue/bucket-rate-limiter.js';
import {
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
} from '@kubegen/runtime/internal/workqueue/rate-limiter.js';
import { RateLimitingQueue } from '@kubegen/runtime/internal/workqueue/rate-limiting-queue.js';

test('exponential limiter doubles from 5ms and caps at 1000s', () => {
  const limiter = new ItemExponentialFailureRateLimiter<string>();
  const delays = Array.from({ length: 22 }, () => limiter.when('a'));
  assert.deepEqual(delays, [
    5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920, 163840, 327680, 655360,
    1_000_000, 1_000_000, 1_000_000, 1_000_000,
  ]);
  assert.equal(limiter.numRequeues('a'), 22);
  assert.equal(limiter.numRequeues('b'), 0);
  assert.equal(limiter.when('b'), 5, 'failures are counted per item');
});

test('exponential limiter saturates at the max for huge failure counts (no overflow, no NaN)', () => {
  const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1_000_000);
  let last = 0;
  for (let i = 0; i < 5000; i++) last = limiter.when('x');
  assert.equal(last, 1_000_000);
  const zeroBase = new ItemExponentialFailureRateLimiter<string>(0, 1000);
  for (let i = 0; i < 2000; i++) assert.equal(zeroBase.when('x'), 0);
});

test('forget resets the backoff', () => {
  const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1000);
  limiter.when('a');
  limiter.when('a');
  assert.equal(limiter.when('a'), 20);
  limiter.forget('a');
  assert.equal(limiter.numRequeues('a'), 0);
  assert.equal(limiter.when('a'), 5);
});

test('bucket limiter: burst is free, then the Nth call beyond it waits N/qps; tokens refill with time', () => {
  const clock = new FakeClock();
  const limiter = new BucketRateLimiter<string>(10, 100, clock);
  for (let i = 0; i < 100; i++) assert.equal(limiter.when(`item-${i}`), 0);
  assert.equal(limiter.when('x'), 100);
  assert.equal(limiter.when('y'), 200);
  assert.equal(limiter.when('z'), 300);
  // 3 tokens owed; one second refills 10, so 7 are free again and the 8th waits one token.
  clock.step(1000);
  for (let i = 0; i < 7; i++) assert.equal(limiter.when('again'), 0);
  assert.equal(limiter.when('again'), 100);
  // Refill is capped at the burst.
  clock.step(3_600_000);
  for (let i = 0; i < 100; i++) assert.equal(limiter.when('later'), 0);
  assert.equal(limiter.when('later'), 100);
  assert.equal(limiter.numRequeues('later'), 0);
  limiter.forget('later');
});

test('bucket limiter edge cases follow x/time/rate: infinite rate, zero burst, zero rate', () => {
  const clock = new FakeClock();
  const unlimited = new BucketRateLimiter<string>(Infinity, 0, clock);
  for (let i = 0; i < 10; i++) assert.equal(unlimited.when('a'), 0);
  assert.equal(new BucketRateLimiter<string>(10, 0, clock).when('a'), Infinity);
  const zeroRate = new BucketRateLimiter<string>(0, 2, clock);
  assert.deepEqual([zeroRate.when('a'), zeroRate.when('a'), zeroRate.when('a')], [0, 0, Infinity]);
});

test('fast/slow limiter switches to the slow delay after maxFastAttempts', () => {
  const limiter = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
  assert.deepEqual(
    Array.from({ length: 5 }, () => limiter.when('a')),
    [5, 5, 5, 10_000, 10_000],
  );
  assert.equal(limiter.numRequeues('a'), 5);
  limiter.forget('a');
  assert.equal(limiter.when('a'), 5);
});

test('MaxOf returns the largest child delay, the largest requeue count, and forgets in every child', () => {
  const clock = new FakeClock();
  const exp = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  const fastSlow = new ItemFastSlowRateLimiter<string>(1, 7, 2);
  const bucket = new BucketRateLimiter<string>(1, 1, clock);
  const limiter = new MaxOfRateLimiter<string>(exp, fastSlow, bucket);
  assert.equal(limiter.when('a'), 5, 'max(5, 1, 0)');
  assert.equal(limiter.when('a'), 1000, 'max(10, 1, 1000)');
  assert.equal(limiter.when('a'), 2000, 'max(20, 7, 2000)');
  assert.equal(limiter.numRequeues('a'), 3);
  limiter.forget('a');
  assert.equal(exp.numRequeues('a'), 0);
  assert.equal(fastSlow.numRequeues('a'), 0);
  clock.step(10_000);
  assert.equal(limiter.when('a'), 5);
});

test('WithMaxWait caps the delay of the wrapped limiter', () => {
  const limiter = new WithMaxWaitRateLimiter(new ItemExponentialFailureRateLimiter<string>(5, 1_000_000), 12);
  assert.deepEqual([limiter.when('a'), limiter.when('a'), limiter.when('a')], [5, 10, 12]);
  assert.equal(limiter.numRequeues('a'), 3);
  limiter.forget('a');
  assert.equal(limiter.numRequeues('a'), 0);
});

test('default controller limiter: per-item 5ms backoff, and the 10 qps bucket after a burst of 100', () => {
  const clock = new FakeClock();
  const limiter = defaultControllerRateLimiter<string>(clock);
  assert.equal(limiter.when('a'), 5);
  assert.equal(limiter.when('a'), 10);
  for (let i = 0; i < 98; i++) assert.equal(limiter.when(`other-${i}`), 5);
  assert.equal(limiter.when('late'), 100, 'the 101st failure overall waits for the bucket');
  assert.equal(defaultItemBasedRateLimiter<string>().when('a'), 1);
});

test('rate-limiting queue: addRateLimited waits the limiter delay; numRequeues counts; forget resets', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000),
  });
  q.addRateLimited('a');
  assert.equal(q.numRequeues('a'), 1);
  clock.step(4);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
  const r = await q.get();
  assert.equal(r.item, 'a');
  q.addRateLimited('a');
  q.done('a');
  assert.equal(q.numRequeues('a'), 2);
  clock.step(9);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1, 'second failure waited 10ms');
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
  assert.equal(q.len(), 1, 'forget does not remove the item from the queue');
});

test('rate-limiting queue defaults to the controller limiter on the queue clock', () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({ clock });
  for (let i = 0; i < 101; i++) q.addRateLimited(`item-${i}`);
  clock.step(5);
  assert.equal(q.len(), 100);
  clock.step(94);
  assert.equal(q.len(), 100);
  clock.step(1);
  assert.equal(q.len(), 101, 'the 101st item waited 100ms for the bucket');
  q.shutDown();
});
