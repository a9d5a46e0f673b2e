import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { LOW_PRIORITY, PriorityQueue } from '@kubegen/runtime/internal/workqueue/priority-queue.js';
import { RateLimitingQueue } from '@kubegen/runtime/internal/workqueue/rate-limiting-queue.js';
import { ItemExponentialFailureRateLimiter } from '@kubegen/runtime/internal/workqueue/rate-limiter.js';
import { MAX_DEPTH_PRIORITIES, PRIORITY_CARDINALITY_EXCEEDED } from '@kubegen/runtime/internal/workqueue/prometheus-metrics.js';

/** Takes every ready item (marking each done), as `item@priority`. */
async function drain(q: PriorityQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const r = await q.getWithPriority();
    assert.equal(r.shutdown, false);
    out.push(`${r.item}@${r.priority}`);
    q.done(r.item!);
  }
  return out;
}

test('hands out the highest priority first, and items of one priority in the order they were added', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  q.addWithOpts({ priority: LOW_PRIORITY }, 'old1', 'old2');
  q.add('new1');
  q.addWithOpts({ priority: 10 }, 'urgent');
  q.addWithOpts({ priority: LOW_PRIORITY }, 'old3');
  q.add('new2');
  assert.equal(q.len(), 6);
  assert.deepEqual(await drain(q), ['urgent@10', 'new1@0', 'new2@0', 'old1@-100', 'old2@-100', 'old3@-100']);
});

test('a duplicate keeps the highest priority, and a raised one goes to the end of its new priority', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  q.addWithOpts({ priority: LOW_PRIORITY }, 'a', 'b');
  q.add('c');
  q.add('a'); // raised from -100 to 0: after c
  q.addWithOpts({ priority: LOW_PRIORITY }, 'c'); // lower: ignored, c keeps 0 and its place
  q.add('c'); // same: stays first
  assert.equal(q.len(), 3, 'duplicates are collapsed');
  assert.deepEqual(await drain(q), ['c@0', 'a@0', 'b@-100']);
});

test('a duplicate keeps the earliest ready time: a ready item stays ready, a waiting one moves earlier', async () => {
  const clock = new FakeClock(1000);
  const q = new PriorityQueue<string>({ clock });
  q.add('ready');
  q.addAfter('ready', 50);
  assert.equal(q.len(), 1, 'stays ready');
  assert.equal(q.waitingLen(), 0);

  q.addAfter('w', 100);
  q.addAfter('w', 500); // later: ignored
  q.addAfter('w', 30); // earlier: moves
  assert.equal(q.waitingLen(), 1);
  clock.step(30);
  assert.equal(q.waitingLen(), 0);
  assert.equal(q.len(), 2);

  q.addAfter('now', 100);
  q.add('now'); // no delay: ready at once
  assert.equal(q.waitingLen(), 0);
  assert.deepEqual(await drain(q), ['ready@0', 'w@0', 'now@0']);
  assert.equal(clock.pendingTimers(), 0, 'no timer left when nothing waits');
});

test('a waiting item joins its priority when it becomes ready, behind items already ready', async () => {
  const clock = new FakeClock(1000);
  const q = new PriorityQueue<string>({ clock });
  q.addWithOpts({ after: 10, priority: 5 }, 'retry');
  q.addWithOpts({ priority: 5 }, 'x');
  clock.step(10);
  q.addWithOpts({ priority: 5 }, 'y');
  q.add('low');
  assert.deepEqual(await drain(q), ['x@5', 'retry@5', 'y@5', 'low@0']);
});

test('rateLimited waits the limiter delay, or after when that is shorter', () => {
  const clock = new FakeClock(1000);
  const q = new PriorityQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(100, 10_000) });
  q.addWithOpts({ rateLimited: true }, 'a'); // 100 ms
  q.addWithOpts({ rateLimited: true, after: 20 }, 'b'); // min(100, 20)
  q.addWithOpts({ rateLimited: true, after: 500 }, 'c'); // min(100, 500)
  assert.equal(q.numRequeues('a'), 1);
  clock.step(20);
  assert.equal(q.len(), 1, 'b after 20 ms');
  clock.step(80);
  assert.equal(q.len(), 3, 'a and c after 100 ms');
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
});

test('an item added while processing is handed out after done, with the priority its add gave it', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  q.add('a');
  const first = await q.getWithPriority();
  assert.equal(first.item, 'a');
  q.addWithOpts({ priority: 3 }, 'a');
  q.add('b');
  assert.equal(q.len(), 1, 'a waits for its processing to end');
  const second = await q.getWithPriority();
  assert.equal(second.item, 'b', 'not a second time while processing');
  q.done('a');
  q.done('b');
  assert.deepEqual(await drain(q), ['a@3']);
});

test('the default rate limiter is per-item exponential only: no overall bucket holds a retry behind a backlog', () => {
  const clock = new FakeClock(1000);
  const pq = new PriorityQueue<string>({ clock });
  const fifo = new RateLimitingQueue<string>({ clock });
  assert.ok(pq.rateLimiter instanceof ItemExponentialFailureRateLimiter);
  for (let i = 0; i < 300; i++) {
    pq.addRateLimited(`k${i}`);
    fifo.addRateLimited(`k${i}`);
  }
  clock.step(5);
  assert.equal(pq.len(), 300, 'every first retry after 5 ms');
  assert.ok(fifo.len() < 300, `the FIFO queue's 10 qps bucket spaces them out (${fifo.len()} ready)`);
  assert.equal(pq.rateLimiter.when('k0'), 10, 'then 10 ms');
  const capped = new PriorityQueue<string>({ clock }).rateLimiter;
  for (let i = 0; i < 40; i++) capped.when('x');
  assert.equal(capped.when('x'), 1_000_000, 'capped at 1000 s');
});

test('shutdown drops waiting items, still hands out ready ones, then says shutdown', async () => {
  const clock = new FakeClock(1000);
  const q = new PriorityQueue<string>({ clock });
  q.add('a');
  q.addAfter('later', 100);
  q.shutDown();
  q.add('ignored');
  assert.equal(q.waitingLen(), 0);
  assert.equal(clock.pendingTimers(), 0);
  assert.deepEqual(await q.get(), { item: 'a', shutdown: false });
  assert.deepEqual(await q.get(), { shutdown: true });
});

test('a pending get is woken by an add, and by shutdown', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  const pending = q.getWithPriority();
  q.addWithOpts({ priority: 7 }, 'x');
  assert.deepEqual(await pending, { item: 'x', priority: 7, shutdown: false });
  const waiting = q.get();
  q.shutDown();
  assert.deepEqual(await waiting, { shutdown: true });
});

test('shutDownWithDrain resolves once the items in processing are done', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  q.add('a');
  await q.get();
  let drained = false;
  const drain = q.shutDownWithDrain().then(() => (drained = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(drained, false);
  q.done('a');
  await drain;
  assert.equal(drained, true);
});

/** The workqueue_depth samples of queue `name`, by priority label. */
async function depthByPriority(registry: Registry, name: string): Promise<Record<string, number>> {
  const data = await registry.getSingleMetric('workqueue_depth')!.get();
  const out: Record<string, number> = {};
  for (const v of data.values as { value: number; labels: Record<string, unknown> }[]) {
    if (v.labels['name'] === name) out[String(v.labels['priority'])] = v.value;
  }
  return out;
}

test('workqueue_depth has a priority label: by priority for the priority queue, empty for the FIFO queue', async () => {
  const registry = new Registry();
  const clock = new FakeClock(1000);
  const q = new PriorityQueue<string>({ name: 'pq', clock, registry });
  q.addWithOpts({ priority: LOW_PRIORITY }, 'a', 'b');
  q.add('c');
  q.addAfter('d', 10); // waiting: not in the depth
  assert.deepEqual(await depthByPriority(registry, 'pq'), { '-100': 2, '0': 1 });
  q.add('a'); // raised to 0
  assert.deepEqual(await depthByPriority(registry, 'pq'), { '-100': 1, '0': 2 });
  clock.step(10);
  assert.deepEqual(await depthByPriority(registry, 'pq'), { '-100': 1, '0': 3 });
  await q.get();
  assert.deepEqual(await depthByPriority(registry, 'pq'), { '-100': 1, '0': 2 });

  const fifo = new RateLimitingQueue<string>({ name: 'fifo', clock, registry });
  fifo.add('x');
  assert.deepEqual(await depthByPriority(registry, 'fifo'), { '': 1 });
});

test('workqueue_depth caps the priority label values of a queue', async () => {
  const registry = new Registry();
  const q = new PriorityQueue<string>({ name: 'many', clock: new FakeClock(), registry });
  for (let p = 0; p <= MAX_DEPTH_PRIORITIES; p++) q.addWithOpts({ priority: p }, `k${p}`);
  const depth = await depthByPriority(registry, 'many');
  assert.equal(Object.keys(depth).length, MAX_DEPTH_PRIORITIES + 1);
  assert.equal(depth[PRIORITY_CARDINALITY_EXCEEDED], 1, 'the 26th priority goes to the overflow series');
});

test('the FIFO queue takes addWithOpts without priorities and hands out priority 0', async () => {
  const clock = new FakeClock(1000);
  const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(50, 1000) });
  q.addWithOpts({ priority: LOW_PRIORITY }, 'a');
  q.addWithOpts({ priority: 100 }, 'b');
  q.addWithOpts({ after: 10 }, 'c');
  q.addWithOpts({ rateLimited: true, after: 10 }, 'd');
  assert.deepEqual(await q.getWithPriority(), { item: 'a', priority: 0, shutdown: false });
  assert.deepEqual(await q.getWithPriority(), { item: 'b', priority: 0, shutdown: false });
  clock.step(10);
  assert.equal(q.len(), 1, 'c after its delay');
  clock.step(40);
  assert.equal(q.len(), 2, 'd after the limiter delay (rateLimited wins, as controller-runtime)');
});
