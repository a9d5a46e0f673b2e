import assert from 'node:assert/strict';
import { realClock } from '@kubegen/runtime/internal/clock.js';
import { sleep as runtimeSleep } from '@kubegen/runtime/internal/deadline.js';

/** Polls `cond` (every 50 ms) until it holds; fails naming `what` after `timeoutMs`. For real-time tests. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Polls `probe` (every 100 ms) until it returns a value, retrying when it throws; fails naming `what` and the last
 * error after `timeoutMs`.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Turns the event loop (`setImmediate`) until `cond` holds, at most `turns` times: for fake-clock unit tests, where
 * only promise callbacks and I/O are pending. Fails naming `what`.
 */
export async function settle(cond: () => boolean, what: string, turns = 1000): Promise<void> {
  for (let i = 0; i < turns && !cond(); i++) await new Promise<void>((r) => setImmediate(r));
  assert.ok(cond(), `condition not reached: ${what}`);
}

/** Waits `ms` of real time: the runtime's `sleep` on the real clock, for tests and benchmarks that pace themselves. */
export function sleep(ms: number): Promise<void> {
  return runtimeSleep(realClock, ms);
}
