import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { Status } from '@kubegen/runtime/internal/client/types.js';
import { FOOS, foo, setup, summary, take } from './fake-fixtures.js';
import type { Foo } from './fake-fixtures.js';

describe('FakeTransport watch', () => {
  it('starts with synthetic ADDED events, then streams changes in order', async () => {
    const { foos } = setup();
    await foos.create(foo('b'));
    await foos.create(foo('a'));
    const w = await foos.watch();
    const a = await foos.get('a');
    await foos.update({ ...a, spec: { replicas: 3 } });
    await foos.create(foo('c'));
    await foos.delete('b');
    const events = await take(w, 5);
    assert.deepEqual(summary(events), [
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['MODIFIED', 'a'],
      ['ADDED', 'c'],
      ['DELETED', 'b'],
    ]);
    assert.equal(events[2]!.object.spec!.replicas, 3);
    const rvs = events.slice(2).map((e) => Number(e.object.metadata!.resourceVersion));
    assert.deepEqual(rvs, [...rvs].sort((x, y) => x - y), 'resourceVersions increase');
    w.stop();
  });

  it('resumes after a resourceVersion and answers 410 Expired for one older than the history', async () => {
    const { foos } = setup({ watchHistorySize: 3 });
    const first = await foos.create(foo('a'));
    await foos.create(foo('b'));
    const w = await foos.watch({ resourceVersion: first.metadata!.resourceVersion });
    await foos.create(foo('c'));
    assert.deepEqual(summary(await take(w, 2)), [
      ['ADDED', 'b'],
      ['ADDED', 'c'],
    ]);
    w.stop();
    for (const n of ['d', 'e', 'f']) await foos.create(foo(n));
    const old = await foos.watch({ resourceVersion: first.metadata!.resourceVersion });
    const events = await take(old, 2);
    assert.equal(events.length, 1, 'the stream ends after the error');
    assert.equal(events[0]!.type, 'ERROR');
    const status = events[0]!.object as unknown as Status;
    assert.equal(status.code, 410);
    assert.equal(status.reason, 'Expired');
    assert.match(status.message!, /^too old resource version: 1 \(3\)$/);
    const recent = await foos.watch({ resourceVersion: '3' });
    assert.deepEqual(summary(await take(recent, 3)), [
      ['ADDED', 'd'],
      ['ADDED', 'e'],
      ['ADDED', 'f'],
    ]);
    recent.stop();
  });

  it('filters by namespace, label and field selector, with ADDED/DELETED on selector transitions', async () => {
    const { fake, foos } = setup();
    const w = await foos.watch({ labelSelector: 'app=web' });
    const byName = await foos.watch({ fieldSelector: 'metadata.name=b' });
    const other = new ResourceClient<Foo>(fake, FOOS, 'ns2');
    await other.create(foo('x', { metadata: { name: 'x', labels: { app: 'web' } } }));
    const a = await foos.create(foo('a', { metadata: { name: 'a', labels: { app: 'web' } } }));
    const b = await foos.create(foo('b', { metadata: { name: 'b', labels: { app: 'db' } } }));
    await foos.update({ ...b, metadata: { ...b.metadata, labels: { app: 'web' } } });
    const a2 = await foos.update({ ...a, metadata: { ...a.metadata, labels: { app: 'db' } } });
    const events = await take(w, 3);
    assert.deepEqual(summary(events), [
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['DELETED', 'a'],
    ]);
    assert.equal(events[2]!.object.metadata!.resourceVersion, a2.metadata!.resourceVersion, 'DELETED carries the change resourceVersion');
    assert.deepEqual(summary(await take(byName, 2)), [
      ['ADDED', 'b'],
      ['MODIFIED', 'b'],
    ]);
    w.stop();
    byName.stop();
  });

  it('reports deletion with finalizers as MODIFIED, and the final removal as DELETED', async () => {
    const { foos } = setup();
    await foos.create(foo('a', { metadata: { name: 'a', finalizers: ['example.com/f'] } }));
    const w = await foos.watch({ resourceVersion: '1' });
    await foos.delete('a');
    const marked = await foos.get('a');
    await foos.update({ ...marked, metadata: { ...marked.metadata, finalizers: [] } });
    const events = await take(w, 2);
    assert.deepEqual(summary(events), [
      ['MODIFIED', 'a'],
      ['DELETED', 'a'],
    ]);
    assert.ok(events[0]!.object.metadata!.deletionTimestamp);
    w.stop();
  });

  it('stop() and abort end the iteration and unsubscribe', async () => {
    const { fake, foos } = setup();
    const w = await foos.watch();
    const it = w[Symbol.asyncIterator]();
    const pending = it.next();
    assert.equal(fake.tracker.openWatches, 1);
    w.stop();
    assert.deepEqual(await pending, { value: undefined, done: true });
    assert.equal(fake.tracker.openWatches, 0);
    await foos.create(foo('late'));
    assert.equal((await it.next()).done, true, 'no events after stop');

    const ac = new AbortController();
    const aborted = await foos.watch({ signal: ac.signal });
    ac.abort();
    assert.deepEqual(await take(aborted, 1), []);
    assert.equal(fake.tracker.openWatches, 0);

    const broken = await foos.watch();
    let n = 0;
    await foos.create(foo('one'));
    for await (const _ of broken) {
      n++;
      break;
    }
    assert.equal(n, 1);
    assert.equal(fake.tracker.openWatches, 0, 'breaking out of for-await stops the watch');
  });

  it('sendInitialEvents ends the initial events with an annotated bookmark', async () => {
    const { foos } = setup();
    await foos.create(foo('a'));
    const w = await foos.watch({ sendInitialEvents: true, allowWatchBookmarks: true, resourceVersion: '' });
    const events = await take(w, 2);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'BOOKMARK']);
    assert.equal(events[1]!.object.metadata!.annotations!['k8s.io/initial-events-end'], 'true');
    assert.equal(events[1]!.object.metadata!.resourceVersion, '1');
    w.stop();
  });

  it('hands every watcher its own copies', async () => {
    const { foos } = setup();
    const w1 = await foos.watch();
    const w2 = await foos.watch();
    await foos.create(foo('a'));
    const [e1] = await take(w1, 1);
    e1!.object.spec!.color = 'changed';
    const [e2] = await take(w2, 1);
    assert.equal(e2!.object.spec!.color, undefined);
    assert.equal((await foos.get('a')).spec!.color, undefined);
    w1.stop();
    w2.stop();
  });
});
