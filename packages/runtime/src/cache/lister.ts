import type { KubeObject } from '../client/types.js';
import { parseSelector } from '../labels/parse-selector.js';
import type { Selector } from '../labels/selector.js';
import { NAMESPACE_INDEX, type ReadonlyIndexer } from './indexer.js';

/** A label selector in Kubernetes syntax (`app=web,tier in (a,b)`) or an already-built `Selector`. */
export type SelectorInput = string | Selector;

/**
 * Reads one resource from an informer's cache (client-go listers). Every object returned is the cache's shared
 * object: read-only. Copy it (`structuredClone`) before changing it, e.g. to send an update.
 */
export class Lister<T extends KubeObject> {
  constructor(private readonly indexer: ReadonlyIndexer<T>) {}

  /** Every cached object matching `selector` (all of them when omitted or empty), across namespaces. */
  list(selector?: SelectorInput): T[] {
    const sel = toSelector(selector);
    if (!sel) return this.indexer.list();
    const out: T[] = [];
    for (const obj of this.indexer.values()) if (sel.matches(obj.metadata?.labels)) out.push(obj);
    return out;
  }

  /** A cluster-scoped object by name (or a namespaced one by `namespace/name` key). */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  /** The objects of one namespace. */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, namespace);
  }
}

/** Reads one namespace of a namespaced resource from the cache; objects returned are shared and read-only. */
export class NamespaceLister<T extends KubeObject> {
  constructor(
    private readonly indexer: ReadonlyIndexer<T>,
    readonly namespace: string,
  ) {}

  /** The namespace's objects matching `selector` (all when omitted); served from the `namespace` index when present. */
  list(selector?: SelectorInput): T[] {
    const sel = toSelector(selector);
    let objs: T[];
    if (this.indexer.hasIndex(NAMESPACE_INDEX)) {
      objs = this.indexer.byIndex(NAMESPACE_INDEX, this.namespace);
    } else {
      objs = [];
      for (const obj of this.indexer.values()) if ((obj.metadata?.namespace ?? '') === this.namespace) objs.push(obj);
    }
    return sel ? objs.filter((o) => sel.matches(o.metadata?.labels)) : objs;
  }

  /** The object named `name` in this namespace, or undefined when the cache does not have it. */
  get(name: string): T | undefined {
    return this.indexer.getByKey(this.namespace ? this.namespace + '/' + name : name);
  }
}

/** Parses a selector string; returns undefined for "everything" so callers can skip matching. */
function toSelector(selector: SelectorInput | undefined): Selector | undefined {
  if (selector === undefined) return undefined;
  const sel = typeof selector === 'string' ? parseSelector(selector) : selector;
  return sel.empty() ? undefined : sel;
}
