/**
 * Fluent controller wiring (controller-runtime `pkg/builder`):
 *
 * ```ts
 * controllerFor(mgr, fooResource)
 *   .owns(deploymentResource)
 *   .withOptions({ maxConcurrentReconciles: 2 })
 *   .complete(async (req, ctx) => { ... });
 *
 * controllerFor<Foo>(mgr, fooResource).completeObject(async (foo, ctx) => { ... }); // the object, from the cache
 * ```
 *
 * `for` watches the primary kind (enqueue the object itself), `owns` watches dependents and enqueues their
 * controlling owner of the primary kind, `watches` takes any handler. A kind is a `ResourceInfo` (a generated
 * descriptor, a built-in) or a `GroupVersionKind` (`{ group: 'apps', version: 'v1', kind: 'Deployment' }`, or
 * `for('apps/v1', 'Deployment')`) that the manager's RESTMapper resolves when the controller starts — a kind that
 * is not served yet is waited for. Each watch is a `KindSource`: it takes the manager cache's informers when the
 * controller starts and gives them back when it stops; `watchesSource` and `watchesRawSource` add events from
 * outside the cluster (`channelSource`, `funcSource`). `complete` builds the {@link Controller} and adds it to the
 * manager (started at once if the manager runs). With `ManagerOptions.sharding` the controller is sharded: its
 * `for` and `owns` caches hold this replica's shard only, and a request whose object the sharder asked to drain is
 * acknowledged instead of reconciled (docs/sharding.md).
 */
import type { KubeObject, ResourceInfo } from '../client/types.js';
import { Controller, type ControllerOptions } from '../controller/controller.js';
import { controllerMetrics } from '../controller/metrics.js';
import { parseGroupVersion } from '../discovery/types.js';
import type { ReconcileFunc, Reconciler } from '../reconcile/index.js';
import { enqueueForObject, enqueueForOwner, type EventHandler, type OwnerType } from '../handler/handler.js';
import type { Manager } from '../manager/manager.js';
import { awaitOwnWrites } from '../cluster/read-your-writes.js';
import type { Predicate } from '../predicate/predicate.js';
import { describeKind, isResourceInfo, KindSource, type KindRef } from '../source/kind-source.js';
import { objectReconciler, type ObjectReconcileFunc } from './object-reconciler.js';
import { assertControllerNameFree } from '../manager/controller-names.js';
import type { EventSource } from '../source/external-sources.js';
import type { Source } from '../source/source.js';
import type { Logger } from '../log.js';

export type { KindRef };
export type { ObjectReconcileFunc } from './object-reconciler.js';

/** Options of `for`, `owns`, `watches`: predicates that must all admit an event (as `builder.WithPredicates`). */
export interface BuilderWatchOptions<T extends KubeObject = KubeObject> {
  predicates?: Predicate<T>[];
  /**
   * Watch metadata only (controller-runtime's `builder.OnlyMetadata`): the manager's metadata informer for the kind
   * (`Manager.getMetadataInformer`), whose objects carry `apiVersion`, `kind` and `metadata` but no spec or status —
   * enough for owner references, labels and deletion, at a fraction of the cache memory. Handlers and predicates then
   * see those partial objects.
   */
  metadataOnly?: boolean;
}

/** Options of `owns` (controller-runtime's `builder.OwnsOption`): predicates, and which owners to enqueue. */
export interface OwnsOptions<T extends KubeObject = KubeObject> extends BuilderWatchOptions<T> {
  /** Enqueue every owner of the primary kind, not only the controlling one (`MatchEveryOwner`). */
  matchEveryOwner?: boolean;
}

/**
 * The {@link ControllerOptions} `withOptions` may set (controller-runtime's `builder.WithOptions`); name, registry
 * and clock come from `named()` and the manager.
 */
export type BuilderControllerOptions = Pick<
  ControllerOptions,
  | 'maxConcurrentReconciles' | 'rateLimiter' | 'reconcileTimeoutMs' | 'needLeaderElection' | 'logger' | 'cacheSyncTimeoutMs'
  | 'usePriorityQueue' | 'enableWarmup' | 'skipNameValidation'
>;

interface PendingWatch {
  kind: KindRef;
  /** Undefined for `owns`: the owner handler is made in build(), once `for` is known. */
  handler?: EventHandler<KubeObject>;
  predicates: Predicate<KubeObject>[];
  owns?: { matchEveryOwner: boolean };
  metadataOnly: boolean;
  /** The `for()` watch. */
  isFor?: boolean;
}

/** `for(kind)` or `for('apps/v1', 'Deployment')`: the kind either way. */
export function kindOf(kind: KindRef | string, name: string | undefined): KindRef {
  if (typeof kind !== 'string') return kind;
  if (!name) throw new TypeError(`a kind named by apiVersion needs its kind too: for('${kind}', 'Kind')`);
  return { ...parseGroupVersion(kind), kind: name };
}

/**
 * What every controller builder has besides its watches: the `for` kind, the name, the controller options and the
 * predicates of all watches, and the single-use rule (the single-cluster and the multi-cluster builder share it).
 */
export abstract class BuilderSettings {
  protected forKind: KindRef | undefined;
  protected readonly globalPredicates: Predicate<KubeObject>[] = [];
  protected name: string | undefined;
  protected options: BuilderControllerOptions = {};
  private built = false;

  /** Predicates applied to every watch of this controller. */
  withEventFilter<T extends KubeObject = KubeObject>(p: Predicate<T>): this {
    this.globalPredicates.push(p as Predicate<KubeObject>);
    return this;
  }

  /** Controller name (logs, metrics, queue). Default: the `for` kind, lower-cased. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  withOptions(options: BuilderControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /** Marks the builder used (a second build throws) and returns the controller's name; needs `for()` or `named()`. */
  protected startBuild(): string {
    if (this.built) throw new Error('controller already built');
    if (!this.forKind && !this.name) throw new Error('a controller needs for() or named()');
    this.built = true;
    return this.name ?? this.forKind!.kind.toLowerCase();
  }
}

/**
 * Builds one controller step by step (controller-runtime's `builder.Builder`; example in the module comment). Single
 * use: `complete` (or `build`) may be called once; it needs `for()` or `named()`, and `owns()` needs `for()`.
 */
export class ControllerBuilder<F extends KubeObject = KubeObject> extends BuilderSettings {
  private readonly pending: PendingWatch[] = [];
  /** `watchesSource` and `watchesRawSource`: made into sources in `build`, with the controller's logger. */
  private readonly sourceWatches: ((log: Logger) => Source)[] = [];
  /** The `for` kind as its source resolved it, once `build` made the sources (for `completeObject`). */
  private forInfo: () => ResourceInfo | undefined = () => undefined;

  constructor(private readonly manager: Manager) {
    super();
  }

  /**
   * The primary kind: its events enqueue the object itself. Exactly one `for` per controller. `T` types the objects
   * of the kind (predicates, `completeObject`): `for<KVStore>(kvStoreResource)`.
   */
  for<T extends KubeObject = KubeObject>(kind: KindRef, opts?: BuilderWatchOptions<T>): ControllerBuilder<T>;
  for<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, opts?: BuilderWatchOptions<T>): ControllerBuilder<T>;
  for<T extends KubeObject = KubeObject>(kind: KindRef | string, a?: string | BuilderWatchOptions<T>, b?: BuilderWatchOptions<T>): ControllerBuilder<T> {
    if (this.forKind) throw new Error('for() may only be called once');
    const opts = (typeof a === 'string' ? b : a) ?? {};
    this.forKind = kindOf(kind, typeof a === 'string' ? a : undefined);
    this.pending.unshift({ kind: this.forKind, handler: enqueueForObject(), predicates: (opts.predicates ?? []) as Predicate<KubeObject>[], metadataOnly: opts.metadataOnly ?? false, isFor: true });
    return this as unknown as ControllerBuilder<T>;
  }

  /**
   * A dependent kind: its events enqueue its controlling owner of the `for` kind. Unless the manager's cache options
   * say otherwise, a kind watched only through `owns` is cached without `metadata.managedFields`.
   */
  owns<T extends KubeObject = KubeObject>(kind: KindRef, opts?: OwnsOptions<T>): this;
  owns<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, opts?: OwnsOptions<T>): this;
  owns<T extends KubeObject = KubeObject>(kind: KindRef | string, a?: string | OwnsOptions<T>, b?: OwnsOptions<T>): this {
    const opts = (typeof a === 'string' ? b : a) ?? {};
    this.pending.push({
      kind: kindOf(kind, typeof a === 'string' ? a : undefined),
      predicates: (opts.predicates ?? []) as Predicate<KubeObject>[],
      owns: { matchEveryOwner: opts.matchEveryOwner ?? false },
      metadataOnly: opts.metadataOnly ?? false,
    });
    return this;
  }

  /** Any kind with any handler. */
  watches<T extends KubeObject = KubeObject>(kind: KindRef, handler: EventHandler<T>, opts: BuilderWatchOptions<T> = {}): this {
    this.pending.push({ kind, handler: handler as EventHandler<KubeObject>, predicates: (opts.predicates ?? []) as Predicate<KubeObject>[], metadataOnly: opts.metadataOnly ?? false });
    return this;
  }

  /**
   * Events from outside the cluster (controller-runtime's `Watches` over a `source.Channel`): the objects `source`
   * gives (`channelSource(events)`) go through `opts.predicates` and the controller's event filters to `handler`'s
   * `generic` (e.g. `enqueueForObject()`, `enqueueMapped(fn)`).
   */
  watchesSource<T extends KubeObject = KubeObject>(source: EventSource<T>, handler: EventHandler<T>, opts: { predicates?: Predicate<T>[] } = {}): this {
    this.sourceWatches.push((log) => source.bind(handler, [...(this.globalPredicates as Predicate<T>[]), ...(opts.predicates ?? [])], log));
    return this;
  }

  /**
   * Any {@link Source} as it is (controller-runtime's `WatchesRawSource`): a `funcSource(fn)`, or one of your own; no
   * handler and no predicates of the builder apply.
   */
  watchesRawSource(source: Source): this {
    this.sourceWatches.push(() => source);
    return this;
  }

  /** Builds the controller, wires its watches to the manager's cache and adds it to the manager. */
  complete(reconciler: Reconciler | ReconcileFunc): Controller {
    return this.build(reconciler);
  }

  /**
   * Builds the controller with an object reconciler (controller-runtime's `reconcile.AsReconciler`): `fn` gets the
   * request's object of the `for` kind, read through the manager's client (the cache), as a copy it may change; an
   * object that is gone is skipped (see `object-reconciler.ts`). Needs `for()`.
   */
  completeObject(fn: ObjectReconcileFunc<F>): Controller {
    if (!this.forKind) throw new Error('completeObject() needs for()');
    return this.build(objectReconciler(() => this.manager.getClient(), () => this.forInfo(), this.pending[0]!.metadataOnly, fn));
  }

  build(reconciler: Reconciler | ReconcileFunc): Controller {
    const name = this.startBuild();
    // Refused before anything is made: the controller's metrics and queue would reset a live namesake's series.
    if (!this.options.skipNameValidation) assertControllerNameFree(this.manager.registry, name);
    const forKind = this.forKind;
    // A sharded manager: this controller's informers select its shard, and drains are acknowledged before reconciles.
    const shard = forKind ? this.shard(name, forKind) : undefined;
    const sources: { source: KindSource; isFor: boolean }[] = [];
    const forInformers = () => sources.filter((s) => s.isFor).flatMap((s) => s.source.informers());
    const cluster = this.manager.cluster;
    // Read-your-writes: a reconcile of an object the manager's client wrote waits until the cache shows that write.
    const forInfo = () => sources.find((s) => s.isFor)?.source.info;
    this.forInfo = forInfo;
    const ownWrites = awaitOwnWrites(
      reconciler,
      cluster.readYourWrites,
      (ns) => {
        const info = forInfo();
        return info ? [...(cluster.cache.lookup(info, ns, false) ?? []), ...(cluster.cache.lookup(info, ns, true) ?? [])] : [];
      },
      () => {
        const info = forInfo();
        return info ? `${info.resource}${info.group ? '.' + info.group : ''}` : '';
      },
    );
    const log = (this.options.logger ?? this.manager.logger).child(forKind ? { controllerGroup: forKind.group, controllerKind: forKind.kind } : {});
    const controller = new Controller({
      cacheSyncTimeoutMs: this.manager.controllerDefaults.cacheSyncTimeoutMs,
      usePriorityQueue: this.manager.controllerDefaults.usePriorityQueue,
      enableWarmup: this.manager.controllerDefaults.enableWarmup,
      ...this.options,
      name,
      ...(forKind ? { forKind: { group: forKind.group, kind: forKind.kind } } : {}),
      reconciler: shard ? shard.gate(ownWrites, forInformers) : ownWrites,
      registry: this.manager.registry,
      clock: this.manager.clock,
      logger: log,
    });
    const served = { gauge: controllerMetrics(this.manager.registry).kindServed, controller: name };
    const watch = (w: PendingWatch, handler: EventHandler<KubeObject>, predicates: Predicate<KubeObject>[]): void => {
      const request = { dependentOnly: w.owns !== undefined };
      if (isResourceInfo(w.kind) && !w.metadataOnly) cluster.cache.expect(w.kind, request);
      const source = new KindSource({ cluster, kind: w.kind, handler, predicates, metadataOnly: w.metadataOnly, request, clock: this.manager.clock, log, served });
      sources.push({ source, isFor: w.isFor === true });
      controller.watchSource(source);
    };
    for (const w of this.pending) {
      let handler = w.handler;
      if (w.owns) {
        if (!forKind) throw new Error('owns() needs for()');
        handler = enqueueForOwner(ownerTypeOf(forKind, () => sources.find((s) => s.isFor)?.source.info));
      }
      if (!handler) throw new Error('watch without a handler');
      // A sharded controller sees only the events of its part of the ring (ranges; labels select on the server).
      watch(w, handler, [...(shard && w.isFor ? [shard.admits()] : []), ...this.globalPredicates, ...w.predicates]);
    }
    for (const make of this.sourceWatches) controller.watchSource(make(log));
    if (shard && forKind) {
      // Labels: the update that asks for a drain must reach the queue whatever the controller's predicates filter out.
      watch({ kind: forKind, metadataOnly: this.pending[0]!.metadataOnly, predicates: [], isFor: false }, enqueueForObject(), [shard.drainPredicate()]);
      // Ranges: the objects of buckets this shard takes over are reconciled (their events went to the previous owner).
      controller.watchSource(shard.activationSource(forInformers));
    }
    this.manager.add(controller);
    return controller;
  }

  /** With sharding on, the replica's shard for this controller (its `for` kind must be a `ResourceInfo`). */
  private shard(name: string, forKind: KindRef) {
    const owned = this.pending.filter((w) => w.owns).map((w) => w.kind);
    if (!this.manager.controllerDefaults.shardingEnabled) return undefined;
    if (!isResourceInfo(forKind) || !owned.every(isResourceInfo)) {
      throw new TypeError(`sharding needs the kinds of a sharded controller as ResourceInfo (its label selectors are set before its informers exist): ${[forKind, ...owned].filter((k) => !isResourceInfo(k)).map(describeKind).join(', ')}`);
    }
    return this.manager.controllerDefaults.shardController(name, forKind, owned as ResourceInfo[]);
  }
}

/** The owner type `owns()` enqueues: the `for` kind, its scope read from the resolved source once it has one. */
function ownerTypeOf(forKind: KindRef, resolved: () => ResourceInfo | undefined): OwnerType {
  return {
    group: forKind.group,
    kind: forKind.kind,
    get namespaced() {
      return resolved()?.namespaced ?? (isResourceInfo(forKind) ? forKind.namespaced : true);
    },
  };
}

/** `ctrl.NewControllerManagedBy(mgr)`. */
export function newControllerManagedBy(manager: Manager): ControllerBuilder {
  return new ControllerBuilder(manager);
}

/** `NewControllerManagedBy(mgr).For(kind, opts)`: a `ResourceInfo`, or a `GroupVersionKind` resolved at start. */
export function controllerFor<T extends KubeObject = KubeObject>(manager: Manager, kind: KindRef, opts: BuilderWatchOptions<T> = {}): ControllerBuilder<T> {
  return new ControllerBuilder(manager).for<T>(kind, opts);
}

