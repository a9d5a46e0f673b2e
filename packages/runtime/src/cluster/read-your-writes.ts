/**
 * Read-your-writes for the manager's client (controller-runtime #3320 / #3472, client-go 1.36's store resource
 * versions): after a write through the client, a cache read of that object — and a reconcile of it — waits until the
 * informer's store has applied the write (or something newer), for at most `timeoutMs` after the write; past that the
 * read goes to the API instead, and is counted.
 *
 * How "caught up" is decided, per pending write of key K at resourceVersion W (see `compareResourceVersions`):
 * - the store holds K at exactly W (works with any resourceVersion format), or
 * - the store's last applied resourceVersion (list, event or bookmark) is ≥ W, or the stored K's is: etcd revisions,
 *   integers that grow with every write, compared within one resource type's watch — what the Kubernetes API
 *   guarantees since 1.35 and what every etcd-backed apiserver (1.20 included) does. A resourceVersion that is not
 *   a decimal integer is only ever matched exactly.
 * - for a delete, K is gone from the store, holds an object with another uid, or is marked for deletion.
 * A pending write is dropped once the store shows it, or 10 minutes after it was made (the bound on its memory).
 */
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { compareResourceVersions } from '../cache/store-waiters.js';
import type { KubeObject } from '../client/types.js';
import { realClock, type Clock } from '../clock.js';
import { Counter, Histogram, type Registry } from '../metrics/prom.js';
import { metricsRegistry, registeredOr } from '../metrics/registry.js';
import type { ReconcileContext, ReconcileFunc, Reconciler, Request } from '../reconcile/index.js';

/** Settings of read-your-writes (`ManagerOptions.readYourWrites`, `ClusterOptions.readYourWrites`). */
export interface ReadYourWritesOptions {
  /** Default true. `false`: cache reads and reconciles never wait for the client's own writes (controller-runtime 0.19). */
  enabled?: boolean;
  /**
   * How long after a write a cache read of the object (or a reconcile of it) may wait for the cache to show it; past
   * it the read goes to the API. Default {@link DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS}.
   */
  timeoutMs?: number;
}

/** Default `ReadYourWritesOptions.timeoutMs`: 5 s. */
export const DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS = 5000;
/** A pending write the store never showed is forgotten this long after it was made. */
const PENDING_WRITE_TTL_MS = 600_000;

/** Reads (or reconciles) that waited for the cache to show the client's own write. */
export const READ_YOUR_WRITES_WAITS_TOTAL = 'kubegen_read_your_writes_waits_total';
/** Reads (or reconciles) whose wait ran out: the read went to the API instead of the cache. */
export const READ_YOUR_WRITES_FALLBACKS_TOTAL = 'kubegen_read_your_writes_fallbacks_total';
/** How long reads (or reconciles) waited for the cache to show the client's own write. */
export const READ_YOUR_WRITES_WAIT_SECONDS = 'kubegen_read_your_writes_wait_seconds';

/** What waited: a cache `get`, a cache `list`, or a controller about to reconcile the object. */
export type ReadYourWritesOperation = 'get' | 'list' | 'reconcile';

interface PendingWrite {
  /** The resourceVersion the write returned (a delete that removed the object at once has none). */
  resourceVersion: string | undefined;
  /** A delete: the uid of the object deleted (when the cache knew it). */
  deleted: { uid: string | undefined } | undefined;
  madeAt: number;
}

interface Metrics {
  waits: Counter<'resource' | 'operation'>;
  fallbacks: Counter<'resource' | 'operation'>;
  waitSeconds: Histogram<'resource' | 'operation'>;
}

function metricsOf(registry: Registry): Metrics {
  const registers = [registry];
  const labelNames = ['resource', 'operation'] as const;
  return {
    waits: registeredOr(registry, READ_YOUR_WRITES_WAITS_TOTAL, () => new Counter({ name: READ_YOUR_WRITES_WAITS_TOTAL, help: "Cache reads and reconciles that waited for the cache to show the manager client's own write", labelNames, registers })),
    fallbacks: registeredOr(registry, READ_YOUR_WRITES_FALLBACKS_TOTAL, () => new Counter({ name: READ_YOUR_WRITES_FALLBACKS_TOTAL, help: "Cache reads and reconciles whose wait for the manager client's own write ran out (the read went to the API)", labelNames, registers })),
    waitSeconds: registeredOr(registry, READ_YOUR_WRITES_WAIT_SECONDS, () => new Histogram({ name: READ_YOUR_WRITES_WAIT_SECONDS, help: "How long cache reads and reconciles waited for the cache to show the manager client's own write", labelNames, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers })),
  };
}

/**
 * The writes the manager's client made that its cache may not show yet, per informer and object key, and the
 * bounded waits for them (see the module comment). One per cluster, shared by its client and its controllers.
 */
export class ReadYourWrites {
  readonly enabled: boolean;
  readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly registry: Registry;
  private metrics: Metrics | undefined;
  private readonly pending = new WeakMap<object, Map<string, PendingWrite>>();
  /** Per informer, the number of pending writes at which the next sweep runs. */
  private readonly sweepAt = new WeakMap<object, number>();

  constructor(opts: ReadYourWritesOptions & { clock?: Clock; registry?: Registry } = {}) {
    this.enabled = opts.enabled ?? true;
    this.timeoutMs = Math.max(0, opts.timeoutMs ?? DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS);
    this.clock = opts.clock ?? realClock;
    this.registry = opts.registry ?? metricsRegistry;
  }

  /** Records a create, update, patch or apply that returned `obj` (a no-op when disabled or `obj` has no resourceVersion). */
  wrote<T extends KubeObject>(informer: SharedIndexInformer<T>, obj: T): void {
    const rv = obj.metadata?.resourceVersion;
    if (!this.enabled || !rv || !obj.metadata?.name) return;
    const key = informer.getIndexer().keyOf(obj);
    // A write after a delete of the same key (a re-create) supersedes it.
    this.record(informer, key, { resourceVersion: rv, deleted: undefined, madeAt: this.clock.now() });
  }

  /** Records a delete of `key`; `uid` is the deleted object's, when known. */
  deleted<T extends KubeObject>(informer: SharedIndexInformer<T>, key: string, uid: string | undefined): void {
    if (!this.enabled) return;
    this.record(informer, key, { resourceVersion: undefined, deleted: { uid }, madeAt: this.clock.now() });
  }

  /** Whether a write of `key` (any key, when undefined) is recorded that the store of `informer` may not show yet. */
  hasPending<T extends KubeObject>(informer: SharedIndexInformer<T>, key?: string): boolean {
    const map = this.pending.get(informer);
    if (!map || map.size === 0) return false;
    return key === undefined || map.has(key);
  }

  /**
   * Resolves `true` once the store of `informer` shows every recorded write of `key` (of every key, when undefined):
   * at once when nothing is pending, else after waiting at most until `timeoutMs` after the latest of those writes.
   * `false` when that time passed first (counted as a fallback: the caller reads from the API) or `signal` aborted.
   */
  async caughtUp<T extends KubeObject>(informer: SharedIndexInformer<T>, key: string | undefined, resource: string, operation: ReadYourWritesOperation, signal?: AbortSignal): Promise<boolean> {
    if (!this.hasPending(informer, key) || this.shows(informer, key)) return true;
    const map = this.pending.get(informer)!;
    let latest = 0;
    for (const [k, w] of map) if (key === undefined || k === key) latest = Math.max(latest, w.madeAt);
    const m = (this.metrics ??= metricsOf(this.registry));
    const labels = { resource, operation };
    m.waits.inc(labels);
    const started = this.clock.now();
    const met = await informer.waitForStore(() => this.shows(informer, key), latest + this.timeoutMs - started, signal);
    m.waitSeconds.observe(labels, (this.clock.now() - started) / 1000);
    if (!met && !signal?.aborted) m.fallbacks.inc(labels);
    return met;
  }

  /** True when the store shows every pending write of `key` (every key: undefined); drops those it shows. */
  private shows<T extends KubeObject>(informer: SharedIndexInformer<T>, key: string | undefined): boolean {
    const map = this.pending.get(informer);
    if (!map) return true;
    if (key !== undefined) {
      const w = map.get(key);
      if (w && !storeShows(informer, key, w)) return false;
      map.delete(key);
      return true;
    }
    let all = true;
    for (const [k, w] of map) {
      if (storeShows(informer, k, w)) map.delete(k);
      else all = false;
    }
    return all;
  }

  private record<T extends KubeObject>(informer: SharedIndexInformer<T>, key: string, write: PendingWrite): void {
    let map = this.pending.get(informer);
    if (!map) this.pending.set(informer, (map = new Map()));
    map.delete(key); // re-insert: the map stays in order of writes
    map.set(key, write);
    // Writes nobody reads back are swept now and then: those the store shows, and those older than the TTL.
    if (map.size >= (this.sweepAt.get(informer) ?? 64)) {
      const now = this.clock.now();
      for (const [k, w] of map) if (now - w.madeAt > PENDING_WRITE_TTL_MS || storeShows(informer, k, w)) map.delete(k);
      this.sweepAt.set(informer, Math.max(64, map.size * 2));
    }
  }
}

/** Whether the store of `informer` shows the write `w` of `key` (see the module comment). */
function storeShows<T extends KubeObject>(informer: SharedIndexInformer<T>, key: string, w: PendingWrite): boolean {
  const stored = informer.getIndexer().getByKey(key);
  if (w.deleted) {
    if (!stored) return true;
    return (w.deleted.uid !== undefined && stored.metadata?.uid !== w.deleted.uid) || stored.metadata?.deletionTimestamp != null;
  }
  const rv = w.resourceVersion;
  const storedRV = stored?.metadata?.resourceVersion;
  if (storedRV === rv) return true;
  if ((compareResourceVersions(informer.lastStoreSyncResourceVersion, rv) ?? -1) >= 0) return true;
  return (compareResourceVersions(storedRV, rv) ?? -1) >= 0;
}

/**
 * Wraps a controller's reconciler so that a request for an object the cluster's client wrote waits (bounded, counted
 * as operation `reconcile`) until the cache shows that write: a reconcile never starts from a state older than the
 * controller's own last write. When the wait runs out the reconcile starts anyway; its cache reads then go to the API.
 * `informers(namespace)` are the informers of the controller's `for` kind that may hold the request's object, and
 * `resource` names the kind in metrics. Disabled read-your-writes: `reconciler` is returned as it is.
 */
export function awaitOwnWrites(
  reconciler: Reconciler | ReconcileFunc,
  ryw: ReadYourWrites,
  informers: (namespace: string) => readonly SharedIndexInformer<KubeObject>[],
  resource: () => string,
): Reconciler | ReconcileFunc {
  if (!ryw.enabled) return reconciler;
  const reconcile: ReconcileFunc = typeof reconciler === 'function' ? reconciler : (req, ctx) => reconciler.reconcile(req, ctx);
  return async (req: Request, ctx: ReconcileContext) => {
    const key = req.namespace ? `${req.namespace}/${req.name}` : req.name;
    for (const informer of informers(req.namespace)) {
      if (ryw.hasPending(informer, key)) await ryw.caughtUp(informer, key, resource(), 'reconcile', ctx.signal);
    }
    return reconcile(req, ctx);
  };
}
