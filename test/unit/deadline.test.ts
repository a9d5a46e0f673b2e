/** The runtime's deadline helpers (`deadline.ts`): `withTimeout` and `abortable` on a fake clock (`sleep`: clock.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { abortable, DeadlineExceededError, withTimeout } from '@kubegen/runtime/internal/deadline.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('withTimeout settles with the work, and clears its timer', async () => {
  const clock = new FakeClock();
  assert.equal(await withTimeout(clock, 100, async () => 'done'), 'done');
  assert.equal(clock.pendingTimers(), 0);
  await assert.rejects(withTimeout(clock, 100, async () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(clock.pendingTimers(), 0);
});

test('withTimeout rejects when the time is up, even when the work ignores its signal, and aborts that signal', async () => {
  const clock = new FakeClock();
  let seen: AbortSignal | undefined;
  const late = withTimeout(clock, 100, (signal) => {
    seen = signal;
    return new Promise<string>(() => undefined);
  });
  clock.step(99);
  await flush();
  assert.equal(seen!.aborted, false);
  clock.step(1);
  await assert.rejects(late, (err: unknown) => err instanceof DeadlineExceededError && err.ms === 100);
  assert.ok(seen!.aborted);
  assert.ok(seen!.reason instanceof DeadlineExceededError);
});

test('withTimeout rejects with timeoutError() when given, and with the stop signal\'s reason when that aborts first', async () => {
  const clock = new FakeClock();
  const custom = withTimeout(clock, 10, () => new Promise(() => undefined), { timeoutError: () => new Error('list timed out') });
  clock.step(10);
  await assert.rejects(custom, /list timed out/);

  const stop = new AbortController();
  const stopped = withTimeout(clock, 10, () => new Promise(() => undefined), { signal: stop.signal });
  stop.abort(new Error('stopping'));
  await assert.rejects(stopped, /stopping/);
  assert.equal(clock.pendingTimers(), 0);

  await assert.rejects(withTimeout(clock, 10, async (signal) => (signal.aborted ? 'aborted' : 'ran'), { signal: stop.signal }), /stopping/);
});

test('withTimeout hands a value that arrives after the deadline to dispose', async () => {
  const clock = new FakeClock();
  let resolveWork!: (v: string) => void;
  const disposed: string[] = [];
  const call = withTimeout(clock, 10, () => new Promise<string>((r) => (resolveWork = r)), { dispose: (v) => disposed.push(v) });
  clock.step(10);
  await assert.rejects(call, DeadlineExceededError);
  resolveWork('watch');
  await flush();
  assert.deepEqual(disposed, ['watch']);
});

test('abortable settles with the promise, or rejects at the abort and disposes of a late value', async () => {
  const ctl = new AbortController();
  assert.equal(await abortable(Promise.resolve(1), ctl.signal), 1);

  let resolveLate!: (v: number) => void;
  const disposed: number[] = [];
  const p = abortable(new Promise<number>((r) => (resolveLate = r)), ctl.signal, (v) => disposed.push(v));
  ctl.abort(new Error('gone'));
  await assert.rejects(p, /gone/);
  resolveLate(7);
  await flush();
  assert.deepEqual(disposed, [7]);

  const already: number[] = [];
  await assert.rejects(abortable(Promise.resolve(3), ctl.signal, (v) => already.push(v)), /gone/);
  await flush();
  assert.deepEqual(already, [3]);
});
