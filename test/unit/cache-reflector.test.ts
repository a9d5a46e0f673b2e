import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ApiError, ConnectionStalledError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Backoff, REFLECTOR_BACKOFF } from '@kubegen/runtime/internal/cache/backoff.js';
import { FakeListerWatcher } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { Indexer } from '@kubegen/runtime/internal/cache/indexer.js';
import { Reflector, type ReflectorOptions } from '@kubegen/runtime/internal/cache/reflector.js';
import { settle } from '../support/wait.js';

interface Foo extends KubeObject {
  spec?: { replicas?: number };
}

const foo = (name: string, replicas = 1): Foo => ({ metadata: { namespace: 'ns', name }, spec: { replicas } });

/** Lets pending promise callbacks and setImmediate callbacks run. */
async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

const until = (cond: () => boolean, what: string): Promise<void> => settle(cond, what, 500);

function setup(opts: ReflectorOptions = {}, seed = 3) {
  const lw = new FakeListerWatcher<Foo>();
  for (let i = 0; i < seed; i++) lw.upsert(foo(`f${i}`));
  const store = new Indexer<Foo>();
  const clock = new FakeClock(1_000_000);
  const errors: unknown[] = [];
  const r = new Reflector<Foo>(lw, store, {
    clock,
    logger: nullLogger,
    random: () => 0,
    backoff: { random: () => 0 },
    onError: (e) => errors.push(e),
    ...opts,
  });
  return { lw, store, clock, errors, r };
}

describe('Backoff', () => {
  it('grows 800 ms → 30 s with jitter; the waits do not count as health; a healthy period after a retry resets it', () => {
    const clock = new FakeClock(0);
    let rnd = 0;
    const b = new Backoff(clock, { random: () => rnd });
    const seq = Array.from({ length: 8 }, () => {
      const d = b.next();
      clock.step(d + 50); // the retry fails 50 ms after the wait
      return d;
    });
    assert.deepEqual(seq, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    clock.step(119_000);
    assert.equal(b.next(), 30_000, 'less than 2 minutes of health since the last retry: still backing off');
    clock.step(30_000 + 120_001);
    assert.equal(b.next(), 800, 'reset after 2 minutes without a failure');
    rnd = 0.5;
    assert.equal(b.next(), 1600 * 1.5, 'jitter adds up to 100% of the delay');
  });

  it("the reflector's backoff starts over after 10 s of health", () => {
    const clock = new FakeClock(0);
    const b = new Backoff(clock, { random: () => 0 }, REFLECTOR_BACKOFF);
    for (const want of [800, 1600, 3200]) {
      assert.equal(b.next(), want);
      clock.step(want);
    }
    clock.step(10_001);
    assert.equal(b.next(), 800);
  });
});

describe('Reflector', () => {
  it('lists in pages at a consistent resourceVersion, then watches from the list RV with bookmarks', async () => {
    const { lw, store, r } = setup({ pageSize: 2, initialResourceVersion: '' }, 5);
    void r.run();
    await until(() => lw.watchCalls.length === 1, 'the watch');
    assert.equal(lw.listCalls.length, 3, '5 objects in pages of 2');
    assert.deepEqual(lw.listCalls.map((c) => c.limit), [2, 2, 2]);
    assert.deepEqual(lw.listCalls.map((c) => c.continue), [undefined, '2', '4']);
    assert.equal(lw.listCalls[0]!.resourceVersion, '');
    assert.equal(store.size, 5);
    const w = lw.watchCalls[0]!;
    assert.equal(w.resourceVersion, lw.resourceVersion);
    assert.equal(w.allowWatchBookmarks, true);
    assert.ok(w.timeoutSeconds! >= 300 && w.timeoutSeconds! <= 600);
    await r.stop();
  });

  it('first lists at resourceVersion "0" with limit 500 by default', async () => {
    const { lw, r } = setup();
    void r.run();
    await until(() => lw.watchCalls.length === 1, 'the watch');
    assert.equal(lw.listCalls[0]!.resourceVersion, '0');
    assert.equal(lw.listCalls[0]!.limit, 500);
    await r.stop();
  });

  it('applies watch events and bookmarks, resuming later watches from the last RV without relisting', async () => {
    const { lw, store, clock, r } = setup();
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    lw.upsert(foo('new'));
    lw.upsert(foo('f0', 5));
    lw.remove('ns/f1');
    await until(() => store.size === 3 && store.getByKey('ns/new') !== undefined, 'events applied');
    assert.equal(store.getByKey('ns/f0')!.spec!.replicas, 5);
    assert.equal(store.getByKey('ns/f1'), undefined);
    lw.silently(() => lw.upsert(foo('other'))); // advances the RV without telling the watch
    lw.bookmark();
    await until(() => r.lastSyncResourceVersion === lw.resourceVersion, 'bookmark RV');
    assert.equal(store.lastSyncResourceVersion, lw.resourceVersion);
    const rvBefore = r.lastSyncResourceVersion;
    clock.step(5_000);
    lw.closeWatches(); // server-side timeout
    await until(() => lw.watchCalls.length === 2, 'a new watch');
    assert.equal(lw.watchCalls[1]!.resourceVersion, rvBefore, 'resumes from the bookmark RV');
    assert.equal(lw.listCalls.length, 1, 'no relist');
    await r.stop();
  });

  it('relists after 410 when opening a watch, then watches again', async () => {
    const { lw, store, clock, r } = setup();
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    lw.silently(() => lw.upsert(foo('while-away')));
    lw.compact();
    clock.step(5_000);
    lw.closeWatches();
    // Reopening at the old RV, now compacted away, gets 410.
    // The second watch gets 410; no backoff before the relist that answers it (the jitter is 0 here).
    await until(() => lw.listCalls.length === 2, 'the relist');
    assert.equal(lw.listCalls[1]!.resourceVersion, lw.watchCalls[0]!.resourceVersion, 'relists at the last RV');
    await until(() => store.getByKey('ns/while-away') !== undefined, 'the relist stored');
    await until(() => lw.watchCalls.length === 3, 'a new watch');
    await r.stop();
  });

  it('relists after an in-stream ERROR 410', async () => {
    const { lw, clock, r } = setup();
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    lw.sendError(newStatus(410, 'Expired', 'too old resource version'));
    await until(() => lw.listCalls.length === 2, 'the relist, without a backoff');
    assert.equal(clock.now(), 1_000_000, 'no time had to pass');
    await r.stop();
  });

  it('after a 410 waits only a jitter below 0.5 s, even when earlier failures grew the relist backoff', async () => {
    const { lw, clock, r, errors } = setup({ random: () => 0.99 });
    for (let i = 0; i < 3; i++) lw.listErrors.push(new ApiError(newStatus(500, 'InternalError', `boom ${i}`)));
    void r.run();
    for (const [i, wait] of [800, 1600, 3200].entries()) {
      await until(() => errors.length === i + 1, 'a list error');
      await flush();
      clock.step(wait);
    }
    await until(() => lw.openWatches === 1, 'the watch');
    lw.sendError(newStatus(410, 'Expired', 'too old resource version'));
    await flush();
    clock.step(494);
    await flush();
    assert.equal(lw.listCalls.length, 4, 'still within the jitter');
    clock.step(1);
    await until(() => lw.listCalls.length === 5, 'the relist after 495 ms, not after a 6.4 s backoff');
    await r.stop();
  });

  it('keeps the watch backoff apart from the relist backoff', async () => {
    const { lw, clock, r, errors } = setup();
    const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    lw.watchErrors.push(refused(), refused(), refused());
    void r.run();
    for (const [i, wait] of [800, 1600, 3200].entries()) {
      await until(() => errors.length === i + 1, 'a watch error');
      await flush();
      clock.step(wait);
    }
    await until(() => lw.openWatches === 1, 'the watch');
    lw.listErrors.push(new ApiError(newStatus(500, 'InternalError', 'boom')));
    lw.closeWatches(); // a very short watch: relist after the relist backoff
    await until(() => errors.length === 4, 'the very short watch');
    await flush();
    clock.step(800);
    await until(() => lw.listCalls.length === 2, 'the relist after 800 ms, not after the 6400 ms the watch retries reached');
    await until(() => errors.length === 5, 'the relist error');
    await flush();
    clock.step(1600);
    await until(() => lw.listCalls.length === 3, 'the next relist');
    await r.stop();
  });

  it('retries a watch that fails to open with a network error, with backoff and without relisting', async () => {
    const { lw, clock, r, errors } = setup();
    lw.watchErrors.push(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    lw.watchErrors.push(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    void r.run();
    await until(() => errors.length === 1, 'first error');
    clock.step(799);
    await flush();
    assert.equal(lw.watchCalls.length, 1, 'waits the 800 ms backoff');
    clock.step(1);
    await until(() => errors.length === 2, 'second error');
    clock.step(1599);
    await flush();
    assert.equal(lw.watchCalls.length, 2, 'the backoff doubled');
    clock.step(1);
    await until(() => lw.openWatches === 1, 'the watch');
    assert.equal(lw.listCalls.length, 1);
    await r.stop();
  });

  it('never gives up: list errors are reported and retried until stopped', async () => {
    const { lw, clock, r, errors } = setup();
    for (let i = 0; i < 10; i++) lw.listErrors.push(new ApiError(newStatus(500, 'InternalError', `boom ${i}`)));
    const done = r.run();
    for (let i = 1; i <= 10; i++) {
      await until(() => errors.length === i, `error ${i}`);
      clock.step(30_000);
    }
    await until(() => lw.openWatches === 1, 'the watch after recovering');
    assert.equal(lw.listCalls.length, 11);
    await r.stop();
    await done;
    assert.equal(lw.openWatches, 0, 'stop closes the watch');
  });

  it('replaces a watch that goes silent after the idle timeout, without relisting', async () => {
    const { lw, clock, r, errors } = setup({ idleTimeoutMs: 10_000 });
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    lw.upsert(foo('a'));
    await flush();
    clock.step(6_000);
    lw.upsert(foo('b')); // activity pushes the deadline back
    await flush();
    clock.step(6_000);
    await flush();
    assert.equal(lw.watchCalls.length, 1, 'not idle yet: an event arrived 6 s ago');
    lw.silenceWatches();
    clock.step(4_000);
    await until(() => lw.watchCalls.length === 2, 'the replacement watch');
    assert.equal(lw.listCalls.length, 1);
    assert.match(String(errors[0]), /delivered nothing for 10000 ms/);
    await r.stop();
  });

  it('keeps since when a watch replaced for silence has delivered nothing, through failed reopenings, until the next event', async () => {
    const quiet: number[] = [];
    const { lw, clock, r, errors } = setup({ idleTimeoutMs: 10_000, onWatchStall: (ms) => quiet.push(ms) });
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    assert.equal(r.watchStalledSince, undefined);
    lw.silenceWatches();
    lw.watchErrors.push(Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }));
    clock.step(10_000);
    await until(() => errors.length === 2, 'the stall, then the replacement failing to open');
    assert.deepEqual(quiet, [10_000]);
    assert.equal(r.watchStalledSince, 1_000_000, 'nothing since the watch opened');
    clock.step(800);
    await until(() => lw.openWatches === 1, 'the replacement after the backoff');
    assert.equal(r.watchStalledSince, 1_000_000, 'an open watch is not yet a working one');
    lw.upsert(foo('x'));
    await until(() => r.watchStalledSince === undefined, 'the next event clears it');
    assert.equal(lw.listCalls.length, 1);
    await r.stop();
  });

  it('stops a silent watch as a stall, so the transport leaves the connection it used', async () => {
    const lw = new FakeListerWatcher<Foo>();
    const reasons: unknown[] = [];
    const recording = {
      list: (o: Parameters<typeof lw.list>[0]) => lw.list(o),
      watch: async (o: Parameters<typeof lw.watch>[0]) => {
        const w = await lw.watch(o);
        return { [Symbol.asyncIterator]: () => w[Symbol.asyncIterator](), stop: (reason?: unknown) => (reasons.push(reason), w.stop()) };
      },
    };
    const clock = new FakeClock(0);
    const r = new Reflector<Foo>(recording, new Indexer<Foo>(), { clock, logger: nullLogger, random: () => 0, idleTimeoutMs: 5_000 });
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    lw.silenceWatches();
    clock.step(5_000);
    await until(() => lw.watchCalls.length === 2, 'the replacement watch');
    assert.ok(reasons[0] instanceof ConnectionStalledError, `stopped with ${String(reasons[0])}`);
    await r.stop();
  });

  it('logs connection failures at warn level, each repeat at most every 30 s with a count; other errors at error level', async () => {
    const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      debug: () => undefined,
      info: (msg: string, fields?: Record<string, unknown>) => void lines.push({ level: 'info', msg, ...(fields ? { fields } : {}) }),
      warn: (msg: string, fields?: Record<string, unknown>) => void lines.push({ level: 'warn', msg, ...(fields ? { fields } : {}) }),
      error: (msg: string, fields?: Record<string, unknown>) => void lines.push({ level: 'error', msg, ...(fields ? { fields } : {}) }),
      child: () => logger,
    };
    const { lw, clock, r, errors } = setup({ logger, backoff: { random: () => 0, maxMs: 4000 } });
    for (let i = 0; i < 12; i++) lw.watchErrors.push(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }));
    void r.run();
    for (let i = 1; i <= 12; i++) {
      await until(() => errors.length === i, `error ${i}`);
      await flush();
      clock.step(4000);
    }
    await until(() => lw.openWatches === 1, 'the watch');
    const refused = lines.filter((l) => /watch failed/.test(l.msg));
    assert.ok(refused.every((l) => l.level === 'warn' && l.msg === 'watch failed; retrying'));
    assert.ok(refused.length >= 2 && refused.length <= 3, `12 failures in ~45 s: ${refused.length} lines`);
    assert.ok(refused.slice(1).every((l) => Number(l.fields?.['repeated']) > 0), 'later lines count what they left out');
    lw.listErrors.push(new ApiError(newStatus(403, 'Forbidden', 'cannot list')));
    lw.closeWatches(); // a very short watch: relist after the backoff, and the list is refused
    await until(() => errors.length === 13, 'the very short watch');
    await flush();
    clock.step(4000);
    await until(() => lines.some((l) => l.level === 'error' && /list failed/.test(l.msg)), 'a 403 is an error');
    await r.stop();
  });

  it('treats a watch that ends at once without events as a failure: backoff, then relist', async () => {
    const { lw, clock, r, errors } = setup();
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    lw.closeWatches(); // no event, no time passed
    await until(() => errors.length === 1, 'the error');
    assert.match(String(errors[0]), /very short watch/);
    clock.step(800);
    await until(() => lw.listCalls.length === 2, 'the relist');
    await r.stop();
  });

  it('gives up on a watch that does not open within the idle timeout and tries again', async () => {
    const lw = new FakeListerWatcher<Foo>();
    let hang = true;
    const hanging = {
      list: (o: Parameters<typeof lw.list>[0]) => lw.list(o),
      watch: (o: Parameters<typeof lw.watch>[0]) => (hang ? ((hang = false), new Promise<never>(() => undefined)) : lw.watch(o)),
    };
    const clock = new FakeClock(0);
    const errors: unknown[] = [];
    const r = new Reflector<Foo>(hanging, new Indexer<Foo>(), {
      clock,
      logger: nullLogger,
      watchList: false, // a list, then the watch that hangs
      idleTimeoutMs: 5_000,
      backoff: { random: () => 0 },
      onError: (e) => errors.push(e),
    });
    void r.run();
    await until(() => lw.listCalls.length === 1, 'the list');
    await flush();
    clock.step(5_000);
    await until(() => errors.length === 1, 'the timeout');
    assert.match(String(errors[0]), /opening the watch timed out after 5000 ms/);
    assert.equal(r.watchStalledSince, 0, 'no answer within the deadline is a stall too');
    clock.step(800);
    await until(() => lw.openWatches === 1, 'the second watch');
    lw.bookmark();
    await until(() => r.watchStalledSince === undefined, 'the bookmark clears it');
    await r.stop();
  });

  it('by default waits out the server timeout unless the server has shown it sends periodic bookmarks', async () => {
    const { lw, clock, r } = setup(); // random() = 0 → timeoutSeconds 300 → idle limit 330 s
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch');
    clock.step(329_000);
    await flush();
    assert.equal(lw.watchCalls.length, 1, 'a quiet watch is fine until its server timeout + 30 s');
    clock.step(1_000);
    await until(() => lw.watchCalls.length === 2, 'the replacement');
    clock.step(60_000);
    lw.bookmark(); // a bookmark mid-watch: this server sends them periodically
    await flush();
    clock.step(330_000);
    await until(() => lw.watchCalls.length === 3, 'this watch keeps the limit it opened with');
    clock.step(179_000);
    await flush();
    assert.equal(lw.watchCalls.length, 3);
    clock.step(1_000);
    await until(() => lw.watchCalls.length === 4, 'later watches use the 3-minute limit');
    await r.stop();
  });

  it('keeps going when the store throws on an event', async () => {
    const { lw, r, errors } = setup();
    const store = new Indexer<Foo>();
    let fail = true;
    const r2 = new Reflector<Foo>(lw, {
      replace: (items, rv) => void store.replace(items, rv),
      add: (o) => {
        if (fail) {
          fail = false;
          throw new Error('store broke');
        }
        store.add(o);
      },
      update: (o) => void store.update(o),
      delete: (o) => void store.delete(o),
    }, { logger: nullLogger, onError: (e) => errors.push(e) });
    void r2.run();
    await until(() => lw.openWatches === 1, 'the watch');
    lw.upsert(foo('x'));
    lw.upsert(foo('y'));
    await until(() => store.getByKey('ns/y') !== undefined, 'y');
    assert.equal(store.getByKey('ns/x'), undefined);
    assert.match(String(errors[0]), /store broke/);
    await r2.stop();
    await r.stop();
  });
});
