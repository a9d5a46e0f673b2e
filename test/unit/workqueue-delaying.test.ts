import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { DelayingQueue } from '@kubegen/runtime/internal/workqueue/delaying-queue.js';

async function drainAll<T>(q: DelayingQueue<T>): Promise<T[]> {
  const out: T[] = [];
  while (q.len() > 0) {
    const r = await q.get();
    assert.equal(r.shutdown, false);
    out.push(r.item as T);
    q.done(r.item as T);
  }
  return out;
}

test('addAfter adds the item once its delay has passed on the clock', () => {
  const clock = new FakeClock(5000);
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 100);
  assert.equal(q.len(), 0);
  assert.equal(q.waitingLen(), 1);
  clock.step(99);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
  assert.equal(q.waitingLen(), 0);
  assert.equal(clock.pendingTimers(), 0, 'no timer left when nothing waits');
});

test('addAfter with a zero, negative or NaN delay adds immediately', () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 0);
  q.addAfter('b', -10);
  q.addAfter('c', Number.NaN);
  assert.equal(q.len(), 3);
  assert.equal(clock.pendingTimers(), 0);
});

test('many waiting items share a single timer and fire in ready-time order (ties in add order)', async () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  let seed = 42;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) % 500) + 1;
  const expected: { key: string; at: number; order: number }[] = [];
  for (let i = 0; i < 1000; i++) {
    const delay = rand();
    const key = `ns/item-${i}`;
    q.addAfter(key, delay);
    expected.push({ key, at: delay, order: i });
    assert.equal(clock.pendingTimers(), 1, 'exactly one timer, whatever the number of waiting items');
  }
  assert.equal(q.waitingLen(), 1000);
  expected.sort((x, y) => x.at - y.at || x.order - y.order);

  const fired: string[] = [];
  for (let t = 0; t < 500; t += 7) {
    clock.step(7);
    fired.push(...(await drainAll(q)));
    for (const e of expected) {
      if (e.at <= clock.now()) assert.ok(fired.includes(e.key), `${e.key} due at ${e.at} fired by ${clock.now()}`);
    }
    assert.ok(clock.pendingTimers() <= 1);
  }
  // Within one step batch order is by ready time too, so the whole sequence matches.
  assert.deepEqual(
    fired,
    expected.map((e) => e.key),
  );
  assert.equal(clock.pendingTimers(), 0);
});

test('re-adding a waiting item earlier moves it earlier; later re-adds are ignored', () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 1000);
  q.addAfter('b', 50);
  q.addAfter('a', 10);
  assert.equal(q.waitingLen(), 2, 'a waits once');
  assert.equal(clock.nextTimerDue(), 10, 'the single timer moved to the new earliest entry');
  clock.step(10);
  assert.equal(q.len(), 1);
  q.addAfter('b', 5000);
  clock.step(40);
  assert.equal(q.len(), 2, 'b kept its earlier time');
  clock.step(10_000);
  assert.equal(q.len(), 2, 'neither item was added a second time');
});

test('a delayed item that is already queued is de-duplicated when it fires', async () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  q.add('a');
  q.addAfter('a', 10);
  clock.step(10);
  assert.equal(q.len(), 1);
  assert.deepEqual(await drainAll(q), ['a']);
});

test('shutdown drops waiting items, cancels the timer and ignores further addAfter', () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 10);
  q.shutDown();
  assert.equal(clock.pendingTimers(), 0);
  assert.equal(q.waitingLen(), 0);
  q.addAfter('b', 1);
  clock.step(100);
  assert.equal(q.len(), 0);
  assert.equal(clock.pendingTimers(), 0);
});

test('an infinite delay never fires and arms no timer', () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('never', Infinity);
  assert.equal(clock.pendingTimers(), 0);
  q.addAfter('soon', 5);
  clock.step(1e12);
  assert.equal(q.len(), 1);
  assert.equal(q.waitingLen(), 1);
});
