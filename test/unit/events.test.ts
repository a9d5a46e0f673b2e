/** Event recorder against the fake transport: Event shape, aggregation into `count`, retries, LRU, shutdown. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Event, EventList } from '@kubegen/runtime/internal/builtin/types.js';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { EventBroadcaster, createEventRecorder } from '@kubegen/runtime/internal/events/event-recorder.js';
import { LruCache } from '@kubegen/runtime/internal/events/lru-cache.js';
import { FakeEventRecorder } from '@kubegen/runtime/internal/testing/fake/fake-recorder.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

const START = Date.parse('2024-05-01T10:00:00Z');
const foo: KubeObject = {
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { name: 'example-foo', namespace: 'demo', uid: 'uid-1', resourceVersion: '42' },
};

async function events(transport: FakeTransport, namespace = 'demo'): Promise<Event[]> {
  const list = (await transport.request({ verb: 'list', resource: builtinResources.events, namespace })) as EventList;
  return list.items;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}

function setup(extra: Partial<Parameters<typeof createEventRecorder>[0]> = {}) {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([builtinResources.events]);
  // core/v1 Events: these tests are about the core API (its fallback and events.k8s.io/v1 have tests of their own).
  const recorder = createEventRecorder({ transport, component: 'foo-controller', clock, logger: nullLogger, api: 'v1', ...extra });
  return { clock, transport, recorder };
}

describe('event recorder: events.k8s.io/v1 where served', () => {
  const eventsV1 = { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true };

  it('writes events.k8s.io/v1 Events (reporting controller and instance, action, microsecond time) and a repeat as a series', async () => {
    const clock = new FakeClock(START + 0.25);
    const transport = newFakeTransport([builtinResources.events, eventsV1]);
    const recorder = createEventRecorder({ transport, component: 'foo-controller', host: 'node-1', clock, logger: nullLogger });
    recorder.event(foo, 'Warning', 'ErrResourceExists', 'Resource "d" already exists', 'Creating');
    await recorder.flush();
    clock.step(5_000);
    recorder.event(foo, 'Warning', 'ErrResourceExists', 'Resource "d" already exists', 'Creating');
    await recorder.flush();
    const list = (await transport.request({ verb: 'list', resource: eventsV1, namespace: 'demo' })) as { items: Record<string, unknown>[] };
    assert.equal(list.items.length, 1);
    const ev = list.items[0]!;
    assert.equal(ev['reportingController'], 'foo-controller');
    assert.equal(ev['reportingInstance'], 'foo-controller-node-1');
    assert.equal(ev['action'], 'Creating');
    assert.equal(ev['reason'], 'ErrResourceExists');
    assert.equal(ev['note'], 'Resource "d" already exists');
    assert.equal(ev['eventTime'], '2024-05-01T10:00:00.000250Z');
    assert.deepEqual(ev['series'], { count: 2, lastObservedTime: '2024-05-01T10:00:05.000250Z' });
    assert.equal((ev['regarding'] as { uid?: string }).uid, 'uid-1');
    for (const deprecated of ['deprecatedSource', 'deprecatedCount', 'deprecatedFirstTimestamp']) assert.equal(ev[deprecated], undefined, deprecated);
    assert.deepEqual(await events(transport), [], 'no core/v1 Event');
    await recorder.shutdown();
  });

  it('falls back to core/v1 Events when RBAC forbids events.k8s.io/v1 (a project granting core Events only)', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.events, eventsV1]);
    transport.prependReactor('create', 'events', (action) =>
      action.group === 'events.k8s.io'
        ? { handled: true, error: new ApiError(newStatus(403, 'Forbidden', 'events.events.k8s.io is forbidden: User "system:serviceaccount:ns:sa" cannot create resource "events" in API group "events.k8s.io" in the namespace "demo"')) }
        : { handled: false },
    );
    const recorder = createEventRecorder({ transport, component: 'foo-controller', clock, logger: nullLogger });
    recorder.event(foo, 'Normal', 'Synced', 'one');
    recorder.event(foo, 'Normal', 'Synced', 'two');
    await recorder.flush();
    assert.deepEqual((await events(transport)).map((e) => e.message).sort(), ['one', 'two']);
    assert.equal(transport.actions().filter((a) => a.group === 'events.k8s.io').length, 1, 'asked once');
    await recorder.shutdown();
  });

  it('falls back to core/v1 Events, once, where events.k8s.io/v1 is not served; action defaults to the reason', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.events]);
    const recorder = createEventRecorder({ transport, component: 'foo-controller', clock, logger: nullLogger });
    recorder.event(foo, 'Normal', 'Synced', 'one');
    recorder.event(foo, 'Normal', 'Synced', 'two');
    await recorder.flush();
    assert.deepEqual((await events(transport)).map((e) => e.message).sort(), ['one', 'two']);
    const tried = transport.actions().filter((a) => a.group === 'events.k8s.io');
    assert.equal(tried.length, 1, 'events.k8s.io/v1 is asked once');
    await recorder.shutdown();

    const served = newFakeTransport([builtinResources.events, eventsV1]);
    const plain = createEventRecorder({ transport: served, component: 'c', clock, logger: nullLogger });
    plain.event(foo, 'Normal', 'Synced', 'x');
    await plain.flush();
    const [ev] = ((await served.request({ verb: 'list', resource: eventsV1, namespace: 'demo' })) as { items: Record<string, unknown>[] }).items;
    assert.equal(ev!['action'], 'Synced');
  });
});

describe('event recorder', () => {
  it('creates a core/v1 Event describing the object', async () => {
    const { transport, recorder } = setup({ host: 'node-1' });
    recorder.event(foo, 'Normal', 'Synced', 'Foo synced successfully');
    await recorder.flush();
    const [ev, ...rest] = await events(transport);
    assert.equal(rest.length, 0);
    assert.match(ev!.metadata.name!, /^example-foo\.[0-9a-f]+$/);
    assert.equal(ev!.metadata.namespace, 'demo');
    assert.deepEqual(ev!.involvedObject, {
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      name: 'example-foo',
      namespace: 'demo',
      uid: 'uid-1',
      resourceVersion: '42',
    });
    assert.deepEqual(ev!.source, { component: 'foo-controller', host: 'node-1' });
    assert.equal(ev!.type, 'Normal');
    assert.equal(ev!.reason, 'Synced');
    assert.equal(ev!.message, 'Foo synced successfully');
    assert.equal(ev!.count, 1);
    assert.equal(ev!.firstTimestamp, '2024-05-01T10:00:00Z');
    assert.equal(ev!.lastTimestamp, '2024-05-01T10:00:00Z');
  });

  it('aggregates repeats into one Event whose count grows (patched, not re-created)', async () => {
    const { clock, transport, recorder } = setup();
    recorder.event(foo, 'Warning', 'ErrResourceExists', 'Resource "d" already exists');
    await recorder.flush();
    clock.step(5_000);
    recorder.event(foo, 'Warning', 'ErrResourceExists', 'Resource "d" already exists');
    clock.step(5_000);
    recorder.event(foo, 'Warning', 'ErrResourceExists', 'Resource "d" already exists');
    recorder.event(foo, 'Normal', 'Synced', 'Foo synced successfully');
    await recorder.flush();
    const all = await events(transport);
    assert.equal(all.length, 2);
    const warn = all.find((e) => e.reason === 'ErrResourceExists')!;
    assert.equal(warn.count, 3);
    assert.equal(warn.firstTimestamp, '2024-05-01T10:00:00Z');
    assert.equal(warn.lastTimestamp, '2024-05-01T10:00:10Z');
    const verbs = transport.actions().filter((a) => a.resource === 'events' && a.verb !== 'list').map((a) => a.verb);
    assert.deepEqual(verbs, ['create', 'patch', 'patch', 'create']);
  });

  it('combines similar events (same object and reason, 10 different messages within 600 s) into one Event', async () => {
    const { clock, transport, recorder } = setup();
    for (let i = 1; i <= 12; i++) {
      recorder.event(foo, 'Warning', 'FailedSync', `attempt ${i} failed`);
      clock.step(1_000);
    }
    await recorder.flush();
    const all = await events(transport);
    // 9 distinct messages are written as they are; from the 10th on, one combined Event whose count grows.
    assert.equal(all.length, 10);
    const combined = all.filter((e) => e.message!.startsWith('(combined from similar events): '));
    assert.equal(combined.length, 1);
    assert.equal(combined[0]!.message, '(combined from similar events): attempt 12 failed');
    assert.equal(combined[0]!.count, 3);
    assert.deepEqual(all.filter((e) => !e.message!.startsWith('(combined')).map((e) => e.count), Array(9).fill(1));

    // After 600 s of quiet the window starts over: a new message is written as it is again.
    clock.step(601_000);
    recorder.event(foo, 'Warning', 'FailedSync', 'attempt 13 failed');
    await recorder.flush();
    assert.ok((await events(transport)).some((e) => e.message === 'attempt 13 failed'));
  });

  it('re-creates an aggregated Event that was deleted meanwhile', async () => {
    const { transport, recorder } = setup();
    recorder.event(foo, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    const [first] = await events(transport);
    await transport.request({ verb: 'delete', resource: builtinResources.events, namespace: 'demo', name: first!.metadata.name });
    recorder.event(foo, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    const [again, ...rest] = await events(transport);
    assert.equal(rest.length, 0);
    assert.equal(again!.count, 2);
    assert.equal(again!.metadata.name, first!.metadata.name);
  });

  it('puts events about cluster-scoped objects in the default namespace', async () => {
    const { transport, recorder } = setup();
    recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u' } }, 'Normal', 'Seen', 'hello');
    await recorder.flush();
    const [ev] = await events(transport, 'default');
    assert.equal(ev!.involvedObject.kind, 'Node');
    assert.equal(ev!.involvedObject.namespace, undefined);
  });

  it('retries network errors with backoff and then succeeds', async () => {
    const { clock, transport, recorder } = setup({ retryInitialDelayMs: 1000 });
    let failures = 2;
    transport.prependReactor('create', 'events', () => (failures-- > 0 ? { handled: true, error: new Error('ECONNRESET') } : undefined));
    recorder.event(foo, 'Normal', 'Synced', 'ok');
    await settle();
    assert.equal((await events(transport)).length, 0);
    clock.step(1000);
    await settle();
    assert.equal((await events(transport)).length, 0, 'second attempt failed too');
    clock.step(2000);
    await recorder.flush();
    assert.equal((await events(transport)).length, 1);
    assert.equal(transport.actions().filter((a) => a.verb === 'create').length, 3);
  });

  it('drops an event the server rejects as invalid, without throwing, and keeps going', async () => {
    const { transport, recorder } = setup();
    transport.prependReactor('create', 'events', (a) =>
      (a.object as Event).reason === 'Bad' ? { handled: true, error: new ApiError(newStatus(422, 'Invalid', 'nope')) } : undefined,
    );
    recorder.event(foo, 'Normal', 'Bad', 'x');
    recorder.event(foo, 'Normal', 'Good', 'y');
    await recorder.flush();
    const all = await events(transport);
    assert.deepEqual(all.map((e) => e.reason), ['Good']);
    assert.equal(transport.actions().filter((a) => a.verb === 'create').length, 2, 'the invalid one is tried once');
  });

  it('forgets the least recently used keys beyond the cache size', async () => {
    const { transport, recorder } = setup({ cacheSize: 2 });
    for (const msg of ['a', 'b', 'c', 'a']) {
      recorder.event(foo, 'Normal', 'R', msg);
    }
    await recorder.flush();
    const all = await events(transport);
    assert.equal(all.filter((e) => e.message === 'a').length, 2, '"a" was evicted, so its repeat is a new Event');
  });

  it('never throws on bad input and ignores events after shutdown', async () => {
    const { transport, recorder } = setup();
    assert.doesNotThrow(() => recorder.event({ metadata: { name: 'no-kind' } }, 'Normal', 'R', 'm'));
    assert.doesNotThrow(() => recorder.event(foo, 'Bogus' as 'Normal', 'R', 'm'));
    await recorder.shutdown();
    recorder.event(foo, 'Normal', 'R', 'after');
    await recorder.flush();
    assert.equal((await events(transport)).length, 0);
  });

  it('shutdown abandons pending retries', async () => {
    const { transport, recorder } = setup();
    transport.prependReactor('create', 'events', () => ({ handled: true, error: new Error('down') }));
    recorder.event(foo, 'Normal', 'R', 'm');
    await settle();
    await recorder.shutdown(); // would otherwise wait for 11 more tries on the fake clock
    assert.equal(transport.actions().length, 1);
  });

  it('drops events beyond the queue length', async () => {
    const { transport, recorder } = setup({ maxQueueLength: 2 });
    for (let i = 0; i < 5; i++) recorder.event(foo, 'Normal', 'R', `m${i}`);
    await recorder.flush();
    // the first is taken off the queue by the writer at once, two more fit in the queue
    assert.equal((await events(transport)).length, 3);
  });

  it('shares one queue and cache between recorders of a broadcaster, keyed by component', async () => {
    const transport = newFakeTransport([builtinResources.events]);
    const b = new EventBroadcaster({ transport, clock: new FakeClock(START), logger: nullLogger });
    b.newRecorder('one').event(foo, 'Normal', 'R', 'm');
    b.newRecorder('two').event(foo, 'Normal', 'R', 'm');
    b.newRecorder('one').event(foo, 'Normal', 'R', 'm');
    await b.flush();
    const all = await events(transport);
    assert.deepEqual(all.map((e) => [e.source?.component, e.count]).sort(), [['one', 2], ['two', 1]]);
  });
});

describe('FakeEventRecorder and LruCache', () => {
  it('FakeEventRecorder keeps "<type> <reason> <message>" lines', () => {
    const r = new FakeEventRecorder();
    r.event(foo, 'Warning', 'ErrResourceExists', 'taken');
    assert.deepEqual(r.events, ['Warning ErrResourceExists taken']);
    assert.equal(r.recorded[0]!.object, foo);
  });

  it('LruCache evicts the least recently used entry', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    assert.equal(c.get('a'), 1);
    c.set('c', 3);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a'), 1);
    assert.equal(c.size, 2);
  });
});
