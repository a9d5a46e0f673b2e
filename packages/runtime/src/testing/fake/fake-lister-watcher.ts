import { ApiError, newStatus } from '../../client/errors.js';
import type { ListOptions, WatchOptions } from '../../client/interfaces.js';
import type { KubeList, KubeObject, Status, Watch, WatchEvent } from '../../client/types.js';
import { metaNamespaceKey } from '../../cache/keys.js';
import type { ListerWatcher } from '../../cache/reflector-types.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../cache/watch-list.js';
import { FakeWatch } from './fake-watch.js';

/**
 * How a {@link FakeListerWatcher} answers a WatchList (a watch with `sendInitialEvents: true`):
 * - `unsupported` (default): it says it cannot (`isWatchListSemanticsUnsupported()` is true, as client-go's fake
 *   clients), so reflectors in `'auto'` mode list and watch; one forced to stream gets a `supported` answer;
 * - `supported`: as kube-apiserver 1.27+: 422 unless `resourceVersionMatch` is `NotOlderThan`, else an ADDED event per
 *   current object, then a BOOKMARK annotated `k8s.io/initial-events-end: "true"`, then changes;
 * - `rejected`: as kube-apiserver 1.20: 422 Invalid, "resourceVersionMatch is forbidden for watch";
 * - `ignored`: as a server that drops the parameters: a plain watch (from `resourceVersion`, or ADDED events for
 *   everything when it is `''`/`'0'`), with no end bookmark.
 */
export type FakeWatchListSupport = 'unsupported' | 'supported' | 'rejected' | 'ignored';

/** Settings of a {@link FakeListerWatcher}. */
export interface FakeListerWatcherOptions {
  /** How WatchList requests are answered; default `unsupported` (see {@link FakeWatchListSupport}). */
  watchList?: FakeWatchListSupport;
}

/**
 * An in-memory {@link ListerWatcher} for testing informers and controllers without an apiserver: it keeps objects,
 * numbers changes with an increasing resourceVersion, paginates lists, replays history to watches that resume from
 * an old resourceVersion, answers 410 below the compaction point, serves WatchList streams as configured
 * ({@link FakeWatchListSupport}), and lets a test inject failures.
 * Objects it hands out are copies, as an apiserver's would be.
 */
export class FakeListerWatcher<T extends KubeObject> implements ListerWatcher<T> {
  private readonly items = new Map<string, T>();
  private readonly history: { rv: number; event: WatchEvent<T> }[] = [];
  private rv = 1;
  private compactedRV = 0;
  private readonly open = new Set<FakeWatch<T>>();
  /** Every list call's options, in order. */
  readonly listCalls: ListOptions[] = [];
  /** Every watch call's options, in order. */
  readonly watchCalls: WatchOptions[] = [];
  /** Errors the next list calls throw, one per call, before answering normally. */
  readonly listErrors: unknown[] = [];
  /** Errors the next watch calls throw, one per call. */
  readonly watchErrors: unknown[] = [];
  /** While true, WatchList streams get their initial events but not the end bookmark (see `sendInitialEventsEnd`). */
  withholdInitialEventsEnd = false;
  private readonly watchList: FakeWatchListSupport;
  /** WatchList streams whose end bookmark was withheld, with the resourceVersion it carries. */
  private readonly awaitingEnd = new Map<FakeWatch<T>, string>();

  constructor(opts: FakeListerWatcherOptions = {}) {
    this.watchList = opts.watchList ?? 'unsupported';
  }

  /** True unless built with `watchList: 'supported' | 'rejected' | 'ignored'` (client-go's fakes say the same). */
  isWatchListSemanticsUnsupported(): boolean {
    return this.watchList === 'unsupported';
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  /** Currently open watches. */
  get openWatches(): number {
    return this.open.size;
  }

  async list(opts: ListOptions): Promise<KubeList<T>> {
    this.listCalls.push(opts);
    await Promise.resolve();
    const err = this.listErrors.shift();
    if (err !== undefined) throw err;
    const all = this.sorted();
    const start = opts.continue ? Number(opts.continue) : 0;
    const end = opts.limit ? Math.min(all.length, start + opts.limit) : all.length;
    const page = all.slice(start, end).map(copy);
    return { kind: 'List', metadata: { resourceVersion: String(this.rv), ...(end < all.length ? { continue: String(end) } : {}) }, items: page };
  }

  async watch(opts: WatchOptions): Promise<Watch<T>> {
    this.watchCalls.push(opts);
    await Promise.resolve();
    const err = this.watchErrors.shift();
    if (err !== undefined) throw err;
    if (opts.sendInitialEvents && this.watchList !== 'ignored') return this.streamList(opts);
    // A server that ignores sendInitialEvents answers RV ''/'0' the legacy way: ADDED for everything, then changes.
    const legacyAll = !opts.resourceVersion || opts.resourceVersion === '0';
    if (opts.sendInitialEvents && legacyAll) return this.openWatch(this.sorted(), this.rv);
    const from = Number(opts.resourceVersion || this.rv);
    if (from < this.compactedRV) throw new ApiError(newStatus(410, 'Expired', `too old resource version: ${from} (${this.compactedRV})`));
    return this.openWatch([], from);
  }

  /** Sends the withheld end bookmark to every WatchList stream still waiting for it. */
  sendInitialEventsEnd(): void {
    for (const [w, rv] of this.awaitingEnd) w.push('BOOKMARK', endBookmark<T>(rv));
    this.awaitingEnd.clear();
  }

  /** A WatchList answer per `this.watchList` (not `ignored`: that one is a plain watch). */
  private streamList(opts: WatchOptions): Watch<T> {
    if (this.watchList === 'rejected') {
      const message = 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch';
      throw new ApiError(invalidListOptions(message, 'resourceVersionMatch'));
    }
    if (opts.resourceVersionMatch !== 'NotOlderThan') {
      const message = 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan';
      throw new ApiError(invalidListOptions(message, 'resourceVersionMatch'));
    }
    const w = this.openWatch(this.sorted(), this.rv);
    if (!opts.allowWatchBookmarks) return w;
    if (this.withholdInitialEventsEnd) this.awaitingEnd.set(w, String(this.rv));
    else w.push('BOOKMARK', endBookmark<T>(String(this.rv)));
    return w;
  }

  /** A watch that first gets ADDED events for `initial`, then the history after `from`, then live changes. */
  private openWatch(initial: T[], from: number): FakeWatch<T> {
    const w = new FakeWatch<T>(() => {
      this.open.delete(w);
      this.awaitingEnd.delete(w);
    });
    this.open.add(w);
    for (const obj of initial) w.push('ADDED', copy(obj));
    for (const h of this.history) if (h.rv > from) w.push(h.event.type, copy(h.event.object));
    return w;
  }

  private sorted(): T[] {
    return [...this.items.values()].sort((a, b) => metaNamespaceKey(a).localeCompare(metaNamespaceKey(b)));
  }

  /** Adds or replaces an object as the apiserver would (new resourceVersion) and tells open watches. */
  upsert(obj: T): T {
    const key = metaNamespaceKey(obj);
    const stored = copy(obj);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.rv) };
    const type = this.items.has(key) ? 'MODIFIED' : 'ADDED';
    this.items.set(key, stored);
    this.record({ type, object: stored });
    return copy(stored);
  }

  /** Deletes an object (by key `ns/name`) and tells open watches. */
  remove(key: string): void {
    const obj = this.items.get(key);
    if (!obj) throw new Error(`no object ${key}`);
    this.items.delete(key);
    const final = copy(obj);
    final.metadata = { ...final.metadata, resourceVersion: String(++this.rv) };
    this.record({ type: 'DELETED', object: final });
  }

  /** Changes state without telling watches (as if the watch were down), recording history for later resumes. */
  silently(fn: () => void): void {
    const open = [...this.open];
    this.open.clear();
    try {
      fn();
    } finally {
      for (const w of open) this.open.add(w);
    }
  }

  /** Drops history up to now: later watches from an older resourceVersion get 410 (etcd compaction). */
  compact(): void {
    this.compactedRV = this.rv;
    this.history.length = 0;
  }

  /** Sends a bookmark at the current resourceVersion to open watches. */
  bookmark(): void {
    for (const w of this.open) w.push('BOOKMARK', { metadata: { resourceVersion: String(this.rv) } } as T);
  }

  /** Sends an in-stream ERROR event to open watches. */
  sendError(status: Status): void {
    for (const w of this.open) w.pushError(status);
  }

  /** Ends every open watch normally (server timeout). */
  closeWatches(): void {
    for (const w of [...this.open]) w.stop();
  }

  /** Ends every open watch with a network error. */
  breakWatches(err: Error = new Error('socket hang up')): void {
    for (const w of [...this.open]) w.fail(err);
  }

  /** Keeps open watches open but delivers nothing more to them (a silent connection). */
  silenceWatches(): void {
    this.open.clear();
  }

  private record(event: WatchEvent<T>): void {
    this.history.push({ rv: this.rv, event });
    for (const w of this.open) w.push(event.type, copy(event.object));
  }
}

function copy<O>(obj: O): O {
  return structuredClone(obj);
}

function endBookmark<T>(resourceVersion: string): T {
  return { metadata: { resourceVersion, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } } as T;
}

/** The 422 kube-apiserver answers for bad watch options. */
function invalidListOptions(message: string, field: string): Status {
  return newStatus(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${message}`, {
    group: 'meta.k8s.io',
    kind: 'ListOptions',
    causes: [{ reason: 'FieldValueForbidden', message, field }],
  });
}
