import { ApiError, newStatus } from '../../client/errors.js';
import type { ListOptions, WatchOptions } from '../../client/interfaces.js';
import type { KubeList, KubeObject, Status, Watch, WatchEvent } from '../../client/types.js';
import { metaNamespaceKey } from '../../cache/keys.js';
import type { ListerWatcher } from '../../cache/reflector-types.js';
import { FakeWatch } from './fake-watch.js';

/**
 * An in-memory {@link ListerWatcher} for testing informers and controllers without an apiserver: it keeps objects,
 * numbers changes with an increasing resourceVersion, paginates lists, replays history to watches that resume from
 * an old resourceVersion, answers 410 below the compaction point, and lets a test inject failures.
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
    const all = [...this.items.values()].sort((a, b) => metaNamespaceKey(a).localeCompare(metaNamespaceKey(b)));
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
    const from = Number(opts.resourceVersion || this.rv);
    if (from < this.compactedRV) throw new ApiError(newStatus(410, 'Expired', `too old resource version: ${from} (${this.compactedRV})`));
    const w = new FakeWatch<T>(() => this.open.delete(w));
    this.open.add(w);
    for (const h of this.history) if (h.rv > from) w.push(h.event.type, copy(h.event.object));
    return w;
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
