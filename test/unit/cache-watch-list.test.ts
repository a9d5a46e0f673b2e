/**
 * The reflector's WatchList state machine against a FakeListerWatcher serving WatchList as a modern apiserver
 * (`supported`), as kube-apiserver 1.20 (`rejected`), or as a server that drops the parameters (`ignored`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import type { Logger } from '@kubegen/runtime/internal/log.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Indexer } from '@kubegen/runtime/internal/cache/indexer.js';
import { Reflector, type ReflectorOptions, type ReflectorPhase } from '@kubegen/runtime/internal/cache/reflector.js';
import { forgetAnnouncedWatchListModes, WATCH_LIST_ENV } from '@kubegen/runtime/internal/cache/watch-list.js';
import { FakeListerWatcher, type FakeWatchListSupport } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { settle } from '../support/wait.js';

interface Foo extends KubeObject {
  spec?: { replicas?: number };
}

const foo = (name: string, replicas = 1): Foo => ({ metadata: { namespace: 'ns', name }, spec: { replicas } });
const until = (cond: () => boolean, what: string): Promise<void> => settle(cond, what, 500);

async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

function setup(watchList: FakeWatchListSupport, opts: ReflectorOptions = {}, seed = 3) {
  const lw = new FakeListerWatcher<Foo>({ watchList });
  for (let i = 0; i < seed; i++) lw.upsert(foo(`f${i}`));
  const store = new Indexer<Foo>();
  const clock = new FakeClock(1_000_000);
  const errors: { err: unknown; phase: ReflectorPhase }[] = [];
  const r = new Reflector<Foo>(lw, store, {
    clock,
    logger: nullLogger,
    random: () => 0,
    backoff: { random: () => 0 },
    onError: (err, phase) => errors.push({ err, phase }),
    ...opts,
  });
  return { lw, store, clock, errors, r };
}

const names = (store: Indexer<Foo>): string[] => store.list().map((o) => o.metadata!.name!).sort();
const streams = (lw: FakeListerWatcher<Foo>) => lw.watchCalls.filter((c) => c.sendInitialEvents);

describe('Reflector WatchList', () => {
  it('collects the initial events apart and replaces the store with them at the end bookmark, then watches on', async () => {
    const { lw, store, r } = setup('supported');
    store.add(foo('ghost')); // stale content: the swap must replace it, as a list would
    lw.withholdInitialEventsEnd = true;
    void r.run();
    await until(() => lw.openWatches === 1, 'the stream');
    await flush();
    assert.deepEqual(names(store), ['ghost'], 'nothing reaches the store before the bookmark');
    const w = lw.watchCalls[0]!;
    assert.equal(w.sendInitialEvents, true);
    assert.equal(w.resourceVersionMatch, 'NotOlderThan');
    assert.equal(w.allowWatchBookmarks, true);
    assert.equal(w.resourceVersion, '');
    lw.sendInitialEventsEnd();
    await until(() => store.size === 3, 'the swap');
    assert.deepEqual(names(store), ['f0', 'f1', 'f2']);
    assert.equal(store.lastSyncResourceVersion, lw.resourceVersion);
    assert.equal(r.lastSyncResourceVersion, lw.resourceVersion);
    lw.upsert(foo('f3'));
    await until(() => store.size === 4, 'a change on the same stream');
    assert.equal(lw.watchCalls.length, 1, 'no new watch');
    assert.equal(lw.listCalls.length, 0, 'no list at all');
    await r.stop();
  });

  it('after the stream ends, watches from the last resourceVersion without streaming or listing again', async () => {
    const { lw, clock, r } = setup('supported');
    void r.run();
    await until(() => r.lastSyncResourceVersion === lw.resourceVersion, 'synced');
    clock.step(5_000);
    lw.closeWatches(); // server timeout
    await until(() => lw.watchCalls.length === 2, 'the next watch');
    assert.equal(lw.watchCalls[1]!.sendInitialEvents, undefined);
    assert.equal(lw.watchCalls[1]!.resourceVersion, lw.resourceVersion);
    assert.equal(lw.listCalls.length, 0);
    await r.stop();
  });

  it('discards what a stream brought when it drops before the bookmark, and starts over after the watch backoff', async () => {
    const { lw, store, clock, r, errors } = setup('supported');
    lw.withholdInitialEventsEnd = true;
    void r.run();
    await until(() => lw.openWatches === 1, 'the stream');
    lw.breakWatches(new Error('socket hang up'));
    await until(() => errors.length === 1, 'the error');
    assert.equal(errors[0]!.phase, 'list', 'before the bookmark the stream stands for the list');
    lw.silently(() => lw.remove('ns/f1')); // gone by the time the second stream starts
    lw.withholdInitialEventsEnd = false;
    await flush();
    clock.step(799);
    await flush();
    assert.equal(lw.watchCalls.length, 1, 'waits the 800 ms watch backoff');
    clock.step(1);
    await until(() => store.size > 0, 'the second stream synced');
    assert.deepEqual(names(store), ['f0', 'f2'], 'f1 from the first stream was discarded');
    assert.equal(streams(lw).length, 2);
    assert.equal(lw.listCalls.length, 0);
    await r.stop();
  });

  it('starts over when the server ends the stream before the bookmark', async () => {
    const { lw, store, clock, r, errors } = setup('supported');
    lw.withholdInitialEventsEnd = true;
    void r.run();
    await until(() => lw.openWatches === 1, 'the stream');
    clock.step(2_000); // not a very short watch: it delivered events
    lw.closeWatches();
    await until(() => errors.length === 1, 'the report');
    assert.match(String(errors[0]!.err), /ended before its initial-events-end bookmark/);
    lw.withholdInitialEventsEnd = false;
    await flush();
    clock.step(800);
    await until(() => store.size === 3, 'the second stream');
    await r.stop();
  });

  it('resumes after a 410 with a stream from the last resourceVersion, replacing what changed meanwhile', async () => {
    const { lw, store, r } = setup('supported');
    void r.run();
    await until(() => store.size === 3, 'synced');
    const rv = r.lastSyncResourceVersion;
    lw.silently(() => lw.remove('ns/f1'));
    lw.sendError(newStatus(410, 'Expired', 'too old resource version'));
    await until(() => streams(lw).length === 2, 'the second stream');
    assert.equal(streams(lw)[1]!.resourceVersion, rv, 'not older than the last resourceVersion');
    assert.equal(streams(lw)[1]!.resourceVersionMatch, 'NotOlderThan');
    await until(() => store.size === 2, 'the swap');
    assert.deepEqual(names(store), ['f0', 'f2']);
    assert.equal(lw.listCalls.length, 0);
    await r.stop();
  });

  it('on 410 or "too large resource version" while opening a resumed stream, streams the current state (RV "") at once', async () => {
    for (const status of [
      newStatus(410, 'Expired', 'too old resource version'),
      newStatus(504, 'Timeout', 'Timeout: Too large resource version: 99, current: 7', {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      }),
    ]) {
      const { lw, store, clock, r } = setup('supported');
      void r.run();
      await until(() => store.size === 3, 'synced');
      lw.watchErrors.push(new ApiError(status));
      lw.sendError(newStatus(410, 'Expired', 'too old resource version'));
      await until(() => streams(lw).length === 3, 'the third stream');
      assert.notEqual(streams(lw)[1]!.resourceVersion, '');
      assert.equal(streams(lw)[2]!.resourceVersion, '', status.reason);
      assert.equal(clock.now(), 1_000_000, 'no backoff');
      await r.stop();
    }
  });

  it('retries a stream answered 429 (an apiserver whose watch cache is still initializing) after the watch backoff, without listing', async () => {
    const { lw, store, clock, r, errors } = setup('supported');
    lw.watchErrors.push(new ApiError(newStatus(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 })));
    void r.run();
    await until(() => errors.length === 1, 'the 429');
    await flush();
    clock.step(800);
    await until(() => store.size === 3, 'the second stream');
    assert.equal(streams(lw).length, 2);
    assert.equal(lw.listCalls.length, 0);
    assert.equal(r.initialStateMode, 'watch-list', 'a 429 says nothing against WatchList');
    await r.stop();
  });

  it('falls back to list+watch when the server rejects WatchList (kube-apiserver 1.20), and remembers it', async () => {
    const { lw, store, r, errors } = setup('rejected');
    void r.run();
    await until(() => lw.openWatches === 1, 'the watch after the list');
    assert.equal(store.size, 3);
    assert.equal(streams(lw).length, 1, 'one WatchList request');
    assert.equal(lw.listCalls.length, 1);
    assert.equal(lw.watchCalls[1]!.sendInitialEvents, undefined);
    assert.equal(r.initialStateMode, 'list');
    assert.equal(errors.length, 0, 'a rejection is not an error');
    lw.sendError(newStatus(410, 'Expired', 'too old resource version'));
    await until(() => lw.listCalls.length === 2, 'the relist');
    assert.equal(streams(lw).length, 1, 'no second WatchList request');
    await r.stop();
  });

  it('falls back when the server ignores the request: a change before the end bookmark', async () => {
    const { lw, store, clock, r } = setup('ignored');
    void r.run();
    await until(() => lw.openWatches === 1, 'the plain watch');
    lw.upsert(foo('f0', 7));
    await until(() => lw.listCalls.length === 1, 'the list');
    assert.equal(clock.now(), 1_000_000, 'at once');
    await until(() => lw.openWatches === 1 && lw.watchCalls.length === 2, 'the watch');
    assert.equal(store.getByKey('ns/f0')!.spec!.replicas, 7);
    assert.equal(r.initialStateMode, 'list');
    await r.stop();
  });

  it('falls back when the server ignores the request: no end bookmark within 10 s of silence', async () => {
    const { lw, store, clock, r } = setup('ignored');
    void r.run();
    await until(() => lw.openWatches === 1, 'the plain watch');
    await flush();
    clock.step(9_999);
    await flush();
    assert.equal(lw.listCalls.length, 0, 'still waiting');
    clock.step(1);
    await until(() => lw.listCalls.length === 1, 'the list');
    await until(() => store.size === 3, 'listed');
    assert.equal(r.initialStateMode, 'list');
    await r.stop();
  });

  it('forced (watchList: true) never lists: a rejection is retried after the relist backoff', async () => {
    const { lw, clock, r, errors } = setup('rejected', { watchList: true });
    void r.run();
    await until(() => errors.length === 1, 'the rejection');
    assert.equal(errors[0]!.phase, 'list');
    assert.ok(errors[0]!.err instanceof ApiError && errors[0]!.err.code === 422);
    clock.step(800);
    await until(() => streams(lw).length === 2, 'the retry');
    assert.equal(lw.listCalls.length, 0);
    await r.stop();
  });

  it('forced (watchList: true) waits for the end bookmark however long the stream is silent', async () => {
    const { lw, store, clock, r } = setup('supported', { watchList: true });
    lw.withholdInitialEventsEnd = true;
    void r.run();
    await until(() => lw.openWatches === 1, 'the stream');
    clock.step(60_000);
    await flush();
    lw.sendInitialEventsEnd();
    await until(() => store.size === 3, 'synced');
    assert.equal(lw.watchCalls.length, 1);
    await r.stop();
  });

  it('watchList: false, KUBEGEN_WATCH_LIST=false, and a lister-watcher without WatchList semantics list and watch', async () => {
    const cases: [string, FakeWatchListSupport, ReflectorOptions, string | undefined][] = [
      ['option', 'supported', { watchList: false }, undefined],
      ['env', 'supported', {}, 'false'],
      ['lister-watcher', 'unsupported', {}, undefined],
    ];
    for (const [what, support, opts, env] of cases) {
      const saved = process.env[WATCH_LIST_ENV];
      if (env === undefined) delete process.env[WATCH_LIST_ENV];
      else process.env[WATCH_LIST_ENV] = env;
      try {
        const { lw, r } = setup(support, opts);
        void r.run();
        await until(() => lw.openWatches === 1, `${what}: the watch`);
        assert.equal(lw.listCalls.length, 1, what);
        assert.equal(streams(lw).length, 0, what);
        await r.stop();
      } finally {
        if (saved === undefined) delete process.env[WATCH_LIST_ENV];
        else process.env[WATCH_LIST_ENV] = saved;
      }
    }
  });

  it('the end bookmark does not count as a sign of periodic bookmarks (idle limits stay at the server timeout + 30 s)', async () => {
    const { lw, clock, r } = setup('supported'); // random() = 0 → timeoutSeconds 300 → idle limit 330 s
    void r.run();
    await until(() => r.lastSyncResourceVersion === lw.resourceVersion, 'synced');
    clock.step(330_000);
    await until(() => lw.watchCalls.length === 2, 'the stream replaced when idle');
    clock.step(180_000);
    await flush();
    assert.equal(lw.watchCalls.length, 2, 'not the 3-minute limit of servers that send periodic bookmarks');
    clock.step(150_000);
    await until(() => lw.watchCalls.length === 3, 'replaced at 330 s');
    await r.stop();
  });

  it('says at info level, once, which way it syncs', async () => {
    for (const [support, want] of [
      ['supported', /^using WatchList/],
      ['rejected', /^using list\+watch/],
    ] as const) {
      const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
      const logger: Logger = {
        debug: (msg, fields) => void lines.push({ level: 'debug', msg, fields }),
        info: (msg, fields) => void lines.push({ level: 'info', msg, fields }),
        warn: (msg, fields) => void lines.push({ level: 'warn', msg, fields }),
        error: (msg, fields) => void lines.push({ level: 'error', msg, fields }),
        child: () => logger,
      };
      forgetAnnouncedWatchListModes();
      const { lw, r } = setup(support, { logger });
      void r.run();
      await until(() => lw.openWatches === 1 && r.lastSyncResourceVersion !== '', 'synced');
      lw.sendError(newStatus(410, 'Expired', 'too old resource version')); // a second sync
      const secondSync = support === 'supported' ? () => streams(lw).length === 2 : () => lw.listCalls.length === 2;
      await until(() => secondSync() && lw.openWatches === 1, 'resynced');
      await flush();
      const modeLines = lines.filter((l) => /^using /.test(l.msg));
      const info = modeLines.filter((l) => l.level === 'info');
      assert.equal(info.length, 1, `${support}: ${JSON.stringify(modeLines)}`);
      assert.match(info[0]!.msg, want);
      if (support === 'rejected') assert.match(String(info[0]!.fields?.['reason']), /does not support WatchList: .*resourceVersionMatch is forbidden/);
      await r.stop();
      // Another informer of the same process says it at debug level only: once per process, not once per informer.
      const other = setup(support, { logger });
      void other.r.run();
      await until(() => other.lw.openWatches === 1 && other.r.lastSyncResourceVersion !== '', 'the second reflector synced');
      await flush();
      assert.equal(lines.filter((l) => /^using /.test(l.msg) && l.level === 'info').length, 1, `${support}: said again at info level`);
      assert.ok(lines.filter((l) => /^using /.test(l.msg) && l.level === 'debug').length > modeLines.length - 1);
      await other.r.stop();
    }
  });
});
