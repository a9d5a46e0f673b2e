import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue } from '@kubegen/runtime/internal/workqueue/queue.js';
import type { QueueGetResult } from '@kubegen/runtime/internal/workqueue/queue.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function take<T>(q: WorkQueue<T>): Promise<T> {
  const r = await q.get();
  assert.equal(r.shutdown, false);
  return r.item as T;
}

test('queued items are de-duplicated and handed out in FIFO order', async () => {
  const q = new WorkQueue<string>();
  q.add('ns/a');
  q.add('ns/b');
  q.add('ns/a');
  q.add('ns/c');
  q.add('ns/b');
  assert.equal(q.len(), 3);
  assert.equal(await take(q), 'ns/a');
  assert.equal(await take(q), 'ns/b');
  assert.equal(await take(q), 'ns/c');
  assert.equal(q.len(), 0);
});

test('get waits for an add', async () => {
  const q = new WorkQueue<string>();
  let result: QueueGetResult<string> | undefined;
  void q.get().then((r) => (result = r));
  await flush();
  assert.equal(result, undefined);
  q.add('x');
  await flush();
  assert.deepEqual(result, { item: 'x', shutdown: false });
  assert.equal(q.len(), 0, 'the item went straight to the waiting worker');
});

test('an item re-added while processing is queued again exactly once, after done', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  assert.equal(await take(q), 'a');
  q.add('a');
  q.add('a');
  assert.equal(q.len(), 0, 'not queued while processing');
  let second: QueueGetResult<string> | undefined;
  void q.get().then((r) => (second = r));
  await flush();
  assert.equal(second, undefined, 'a processing item is not handed to another worker');
  q.done('a');
  await flush();
  assert.deepEqual(second, { item: 'a', shutdown: false });
  q.done('a');
  assert.equal(q.len(), 0, 'only one re-queue for several adds');
  q.done('a'); // done on an item that is not processing is harmless
  assert.equal(q.len(), 0);
});

test('concurrent workers never hold the same key at once and every key gets processed', async () => {
  const q = new WorkQueue<string>();
  const keys = ['k0', 'k1', 'k2', 'k3'];
  const inFlight = new Set<string>();
  const processed = new Map<string, number>();
  let overlaps = 0;
  let round = 0;

  const worker = async (): Promise<void> => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
      if (inFlight.has(r.item)) overlaps++;
      inFlight.add(r.item);
      await flush();
      // Re-add our own key and others while still processing.
      q.add(r.item);
      q.add(keys[round++ % keys.length]!);
      await flush();
      inFlight.delete(r.item);
      processed.set(r.item, (processed.get(r.item) ?? 0) + 1);
      q.done(r.item);
    }
  };

  const workers = [worker(), worker(), worker()];
  for (let i = 0; i < 50; i++) {
    q.add(keys[i % keys.length]!);
    await flush();
  }
  await q.shutDownWithDrain();
  q.shutDown();
  await Promise.all(workers);
  assert.equal(overlaps, 0);
  for (const key of keys) assert.ok((processed.get(key) ?? 0) >= 2, `${key} processed repeatedly`);
});

test('shutDown wakes waiting workers; queued items are still drained first; later adds are ignored', async () => {
  const q = new WorkQueue<string>();
  const waiting = [q.get(), q.get()];
  await flush();
  q.shutDown();
  assert.deepEqual(await Promise.all(waiting), [{ shutdown: true }, { shutdown: true }]);
  assert.equal(q.shuttingDown(), true);
  q.add('ignored');
  assert.equal(q.len(), 0);
  assert.deepEqual(await q.get(), { shutdown: true });

  const q2 = new WorkQueue<string>();
  q2.add('a');
  q2.add('b');
  q2.shutDown();
  assert.equal(await take(q2), 'a');
  assert.equal(await take(q2), 'b');
  assert.deepEqual(await q2.get(), { shutdown: true });
});

test('shutDownWithDrain resolves only once processing items are done', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('b');
  const a = await take(q);
  const b = await take(q);
  let drained = false;
  const drain = q.shutDownWithDrain().then(() => (drained = true));
  await flush();
  assert.equal(drained, false);
  q.done(a);
  await flush();
  assert.equal(drained, false, 'b is still processing');
  q.done(b);
  await drain;
  assert.equal(drained, true);
  assert.deepEqual(await q.get(), { shutdown: true });
});

test('shutDownWithDrain with nothing processing resolves at once; a plain shutDown releases a pending drain', async () => {
  const empty = new WorkQueue<string>();
  await empty.shutDownWithDrain();
  assert.equal(empty.shuttingDown(), true);

  const q = new WorkQueue<string>();
  q.add('stuck');
  await take(q);
  let drained = false;
  const drain = q.shutDownWithDrain().then(() => (drained = true));
  await flush();
  assert.equal(drained, false);
  q.shutDown();
  await drain;
  assert.equal(drained, true);
});

test('non-string items are compared by identity', async () => {
  const q = new WorkQueue<{ id: number }>();
  const one = { id: 1 };
  q.add(one);
  q.add(one);
  q.add({ id: 1 });
  assert.equal(q.len(), 2);
  assert.equal(await take(q), one);
});
