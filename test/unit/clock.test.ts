import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, RealClock } from '@kubegen/runtime/internal/clock.js';
import { sleep } from '@kubegen/runtime/internal/deadline.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('FakeClock fires due timers in time order, ties in scheduling order, with now() at each due time', () => {
  const clock = new FakeClock(1000);
  const fired: [string, number][] = [];
  clock.setTimeout(() => fired.push(['c', clock.now()]), 30);
  clock.setTimeout(() => fired.push(['a', clock.now()]), 10);
  clock.setTimeout(() => fired.push(['b1', clock.now()]), 20);
  clock.setTimeout(() => fired.push(['b2', clock.now()]), 20);
  clock.setTimeout(() => fired.push(['late', clock.now()]), 100);
  assert.equal(clock.pendingTimers(), 5);
  assert.equal(clock.nextTimerDue(), 1010);
  clock.step(30);
  assert.deepEqual(fired, [
    ['a', 1010],
    ['b1', 1020],
    ['b2', 1020],
    ['c', 1030],
  ]);
  assert.equal(clock.now(), 1030);
  assert.equal(clock.pendingTimers(), 1);
});

test('FakeClock fires timers scheduled by a timer when they fall due within the same step', () => {
  const clock = new FakeClock();
  const fired: number[] = [];
  const tick = (): void => {
    fired.push(clock.now());
    clock.setTimeout(tick, 10);
  };
  clock.setTimeout(tick, 10);
  clock.step(35);
  assert.deepEqual(fired, [10, 20, 30]);
  assert.equal(clock.nextTimerDue(), 40);
});

test('FakeClock clearTimeout cancels, zero and negative delays fire on step(0), time never goes back', () => {
  const clock = new FakeClock();
  let fired = 0;
  const handle = clock.setTimeout(() => fired++, 5);
  clock.clearTimeout(handle);
  clock.clearTimeout(handle); // unknown handle: ignored
  clock.step(10);
  assert.equal(fired, 0);
  clock.setTimeout(() => fired++, 0);
  clock.setTimeout(() => fired++, -5);
  assert.equal(fired, 0, 'timers never fire synchronously inside setTimeout');
  clock.step(0);
  assert.equal(fired, 2);
  assert.throws(() => clock.setTime(5), RangeError);
  assert.throws(() => clock.step(-1), RangeError);
});

test('sleep resolves when the clock reaches the delay and rejects on abort', async () => {
  const clock = new FakeClock();
  let resolved = false;
  const done = sleep(clock, 100).then(() => (resolved = true));
  clock.step(99);
  await flush();
  assert.equal(resolved, false);
  clock.step(1);
  await done;
  assert.equal(resolved, true);

  const controller = new AbortController();
  const aborted = sleep(clock, 100, controller.signal);
  controller.abort(new Error('stop'));
  await assert.rejects(aborted, /stop/);
  assert.equal(clock.pendingTimers(), 0, 'abort cancels the timer');
  await assert.rejects(sleep(clock, 1, controller.signal), /stop/);
});

test('RealClock runs and cancels timers', async () => {
  const clock = new RealClock();
  assert.ok(clock.now() > Date.UTC(2020, 0, 1), 'milliseconds since the Unix epoch');
  let fired = 0;
  const cancelled = clock.setTimeout(() => fired++, 0);
  clock.clearTimeout(cancelled);
  await new Promise<void>((resolve) => clock.setTimeout(resolve, 1));
  assert.equal(fired, 0);
  // A delay beyond Node's 32-bit timer limit must not fire right away (Node would clamp it to 1ms).
  const far = clock.setTimeout(() => fired++, Infinity);
  await new Promise((resolve) => setTimeout(resolve, 5));
  clock.clearTimeout(far);
  assert.equal(fired, 0);
});

test('RealClock.now() is monotonic: a wall clock stepped while the process runs does not move it', async (t) => {
  const clock = new RealClock();
  const before = clock.now();
  // A step of the system clock an hour forward (what made a held Lease look expired to a Date.now() clock).
  const wall = Date.now;
  t.mock.method(Date, 'now', () => wall() + 3_600_000);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const elapsed = clock.now() - before;
  assert.ok(elapsed >= 15 && elapsed < 60_000, `elapsed ${elapsed} ms follows real time, not the stepped wall clock`);
  let fired = false;
  clock.setTimeout(() => (fired = true), 10);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.ok(fired, 'timers are scheduled on the same monotonic time');
});
