import type { KubeObject } from '../client/types.js';
import { metaNamespaceKey } from './keys.js';

/** Computes the values an object is indexed under (client-go `IndexFunc`). Must be pure and must not throw. */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Named index functions. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** Computes an object's store key. */
export type KeyFunc<T> = (obj: T) => string;

/** The name of the index every informer's indexer has by default. */
export const NAMESPACE_INDEX = 'namespace';

/** Indexes an object under its namespace (`''` for cluster-scoped objects), as client-go's `MetaNamespaceIndexFunc`. */
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/**
 * The read side of an {@link Indexer}: what `SharedIndexInformer.getIndexer()` hands out and listers read. The
 * informer alone writes its store; this type has no write method (`add`, `update`, `delete`, `replace`, `addIndexers` …).
 */
export type ReadonlyIndexer<T extends KubeObject = KubeObject> = Pick<
  Indexer<T>,
  | 'keyOf' | 'size' | 'lastSyncResourceVersion' | 'get' | 'getByKey' | 'has' | 'list' | 'listKeys' | 'values' | 'entries'
  | 'index' | 'byIndex' | 'indexKeys' | 'listIndexFuncValues' | 'hasIndex' | 'getIndexers'
>;

/**
 * A keyed object store with secondary indexes (client-go `Indexer` over a `ThreadSafeStore`).
 *
 * Every write costs O(1) plus O(index values of the old and new object); `replace` costs O(old + new).
 * The store keeps the objects it is given without copying: whoever reads from it gets the stored, shared objects
 * and must treat them as read-only. Only the owner of the store (a reflector or an informer) writes to it.
 */
export class Indexer<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → index value → keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly keyFunc: KeyFunc<T>;
  private rv = '';

  constructor(indexers: Indexers<T> = {}, keyFunc: KeyFunc<T> = metaNamespaceKey) {
    this.keyFunc = keyFunc;
    this.addIndexers(indexers);
  }

  /** The key this store files `obj` under. */
  keyOf(obj: T): string {
    return this.keyFunc(obj);
  }

  /** Number of stored objects. */
  get size(): number {
    return this.items.size;
  }

  /** The resourceVersion of the last list or bookmark written through `replace`/`setResourceVersion` (`''` if none). */
  get lastSyncResourceVersion(): string {
    return this.rv;
  }

  setResourceVersion(rv: string): void {
    this.rv = rv;
  }

  /** Inserts or replaces `obj`; returns the previous object under its key, if any. */
  add(obj: T): T | undefined {
    return this.put(this.keyFunc(obj), obj);
  }

  /** Same as `add` (client-go keeps both names). */
  update(obj: T): T | undefined {
    return this.put(this.keyFunc(obj), obj);
  }

  /** Removes the object with `obj`'s key; returns what was stored, if anything. */
  delete(obj: T): T | undefined {
    return this.deleteByKey(this.keyFunc(obj));
  }

  deleteByKey(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.items.delete(key);
    this.unindex(key, old);
    return old;
  }

  /** Inserts or replaces the object under `key`; returns the previous one. */
  put(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    this.items.set(key, obj);
    if (old !== undefined) this.unindex(key, old);
    this.indexInto(key, obj);
    return old;
  }

  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  /** A new array of every stored object (the objects themselves are shared). */
  list(): T[] {
    return Array.from(this.items.values());
  }

  listKeys(): string[] {
    return Array.from(this.items.keys());
  }

  /** Iterates stored objects without copying them into an array. Do not write to the store while iterating. */
  values(): IterableIterator<T> {
    return this.items.values();
  }

  entries(): IterableIterator<[string, T]> {
    return this.items.entries();
  }

  /**
   * Replaces the whole content with `items` and records `resourceVersion`. Returns the objects that were stored
   * but are absent from `items`, keyed by their keys (the caller turns them into tombstones).
   */
  replace(items: readonly T[], resourceVersion: string): Map<string, T> {
    const next = new Map<string, T>();
    for (const obj of items) next.set(this.keyFunc(obj), obj);
    const gone = new Map<string, T>();
    for (const [key, old] of this.items) if (!next.has(key)) gone.set(key, old);
    for (const key of gone.keys()) this.deleteByKey(key);
    for (const [key, obj] of next) this.put(key, obj);
    this.rv = resourceVersion;
    return gone;
  }

  /** Objects sharing any of `obj`'s values for index `indexName` (client-go `Index`). */
  index(indexName: string, obj: T): T[] {
    const fn = this.indexFunc(indexName);
    const values = fn(obj);
    const idx = this.indices.get(indexName)!;
    if (values.length === 1) return this.objectsFor(idx.get(values[0]!));
    const keys = new Set<string>();
    for (const v of values) for (const k of idx.get(v) ?? []) keys.add(k);
    return this.objectsFor(keys);
  }

  /** Objects whose index `indexName` contains `value` (client-go `ByIndex`). Throws on an unknown index. */
  byIndex(indexName: string, value: string): T[] {
    this.indexFunc(indexName);
    return this.objectsFor(this.indices.get(indexName)!.get(value));
  }

  /** Keys of the objects whose index `indexName` contains `value` (client-go `IndexKeys`). */
  indexKeys(indexName: string, value: string): string[] {
    this.indexFunc(indexName);
    const set = this.indices.get(indexName)!.get(value);
    return set ? Array.from(set) : [];
  }

  /** Every value currently present in index `indexName` (client-go `ListIndexFuncValues`). */
  listIndexFuncValues(indexName: string): string[] {
    this.indexFunc(indexName);
    return Array.from(this.indices.get(indexName)!.keys());
  }

  hasIndex(indexName: string): boolean {
    return this.indexers.has(indexName);
  }

  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.indexers);
  }

  /** Adds index functions; existing objects are indexed at once. Throws if a name is already taken. */
  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer conflict: ${name}`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      this.indexers.set(name, fn);
      const idx = new Map<string, Set<string>>();
      this.indices.set(name, idx);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(idx, v, key);
    }
  }

  private indexFunc(indexName: string): IndexFunc<T> {
    const fn = this.indexers.get(indexName);
    if (!fn) throw new Error(`index ${JSON.stringify(indexName)} does not exist`);
    return fn;
  }

  private objectsFor(keys: Set<string> | undefined): T[] {
    const out: T[] = [];
    if (keys) for (const k of keys) out.push(this.items.get(k)!);
    return out;
  }

  private indexInto(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) addTo(idx, v, key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const set = idx.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) idx.delete(v);
      }
    }
  }
}

function addTo(idx: Map<string, Set<string>>, value: string, key: string): void {
  let set = idx.get(value);
  if (!set) idx.set(value, (set = new Set()));
  set.add(key);
}
