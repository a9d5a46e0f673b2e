/**
 * Fluent controller wiring (controller-runtime `pkg/builder`):
 *
 * ```ts
 * controllerFor(mgr, fooResource)
 *   .owns(deploymentResource)
 *   .withOptions({ maxConcurrentReconciles: 2 })
 *   .complete(async (req, ctx) => { ... });
 * ```
 *
 * `for` watches the primary kind (enqueue the object itself), `owns` watches dependents and enqueues their
 * controlling owner of the primary kind, `watches` takes any handler. Informers come from the manager's shared
 * cache; `complete` builds the {@link Controller} and adds it to the manager. With `ManagerOptions.sharding` the
 * controller is sharded: its `for` and `owns` caches hold this replica's shard only, and a request whose object the
 * sharder asked to drain is acknowledged instead of reconciled (docs/sharding.md).
 */
import type { KubeObject, ResourceInfo } from '../client/types.js';
import { Controller, type ControllerOptions } from '../controller/controller.js';
import type { ReconcileFunc, Reconciler } from '../reconcile/index.js';
import { enqueueForObject, enqueueForOwner, type EventHandler } from '../handler/handler.js';
import type { Manager } from '../manager/manager.js';
import type { Predicate } from '../predicate/predicate.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { drainRequested, withDrainHandshake } from '../sharding/drain-reconciler.js';

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
  'maxConcurrentReconciles' | 'rateLimiter' | 'reconcileTimeoutMs' | 'needLeaderElection' | 'logger' | 'cacheSyncTimeoutMs'
>;

interface PendingWatch {
  info: ResourceInfo;
  /** Undefined for `owns`: the owner handler is made in build(), once `for` is known. */
  handler?: EventHandler<KubeObject>;
  predicates: Predicate<KubeObject>[];
  owns?: { matchEveryOwner: boolean };
  metadataOnly: boolean;
  /** The `for()` watch. */
  isFor?: boolean;
}

/**
 * Builds one controller step by step (controller-runtime's `builder.Builder`; example in the module comment). Single
 * use: `complete` (or `build`) may be called once; it needs `for()` or `named()`, and `owns()` needs `for()`.
 */
export class ControllerBuilder {
  private forInfo: ResourceInfo | undefined;
  private readonly pending: PendingWatch[] = [];
  private readonly globalPredicates: Predicate<KubeObject>[] = [];
  private name: string | undefined;
  private options: BuilderControllerOptions = {};
  private built = false;

  constructor(private readonly manager: Manager) {}

  /** The primary kind: its events enqueue the object itself. Exactly one `for` per controller. */
  for<T extends KubeObject = KubeObject>(info: ResourceInfo, opts: BuilderWatchOptions<T> = {}): this {
    if (this.forInfo) throw new Error('for() may only be called once');
    this.forInfo = info;
    this.pending.unshift({ info, handler: enqueueForObject(), predicates: (opts.predicates ?? []) as Predicate<KubeObject>[], metadataOnly: opts.metadataOnly ?? false, isFor: true });
    return this;
  }

  /**
   * A dependent kind: its events enqueue its controlling owner of the `for` kind. Unless the manager's cache options
   * say otherwise, a kind watched only through `owns` is cached without `metadata.managedFields`.
   */
  owns<T extends KubeObject = KubeObject>(info: ResourceInfo, opts: OwnsOptions<T> = {}): this {
    this.pending.push({
      info,
      predicates: (opts.predicates ?? []) as Predicate<KubeObject>[],
      owns: { matchEveryOwner: opts.matchEveryOwner ?? false },
      metadataOnly: opts.metadataOnly ?? false,
    });
    return this;
  }

  /** Any kind with any handler. */
  watches<T extends KubeObject = KubeObject>(info: ResourceInfo, handler: EventHandler<T>, opts: BuilderWatchOptions<T> = {}): this {
    this.pending.push({ info, handler: handler as EventHandler<KubeObject>, predicates: (opts.predicates ?? []) as Predicate<KubeObject>[], metadataOnly: opts.metadataOnly ?? false });
    return this;
  }

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

  /** Builds the controller, wires its watches to the manager's informers and adds it to the manager. */
  complete(reconciler: Reconciler | ReconcileFunc): Controller {
    return this.build(reconciler);
  }

  build(reconciler: Reconciler | ReconcileFunc): Controller {
    if (this.built) throw new Error('controller already built');
    if (!this.forInfo && !this.name) throw new Error('a controller needs for() or named()');
    this.built = true;
    const name = this.name ?? this.forInfo!.kind.toLowerCase();
    // A sharded manager: this controller's informers select its shard, and drains are acknowledged before reconciles.
    const shard = this.forInfo ? this.manager.shardController(name, this.forInfo, this.pending.filter((w) => w.owns).map((w) => w.info)) : undefined;
    let forInformers: SharedIndexInformer<KubeObject>[] = [];
    const controller = new Controller({
      cacheSyncTimeoutMs: this.manager.cacheSyncTimeoutMs,
      ...this.options,
      name,
      reconciler: shard ? withDrainHandshake(shard, reconciler, () => forInformers) : reconciler,
      registry: this.manager.registry,
      clock: this.manager.clock,
      logger: (this.options.logger ?? this.manager.logger).child(
        this.forInfo ? { controllerGroup: this.forInfo.group, controllerKind: this.forInfo.kind } : {},
      ),
    });
    for (const w of this.pending) {
      let handler = w.handler;
      if (w.owns) {
        if (!this.forInfo) throw new Error('owns() needs for()');
        handler = enqueueForOwner(this.forInfo, { onlyControllers: !w.owns.matchEveryOwner });
      }
      if (!handler) throw new Error('watch without a handler');
      // A kind cached in several namespaces has an informer per namespace: the controller watches each.
      const informers = w.metadataOnly
        ? this.manager.getMetadataInformers(w.info)
        : this.manager.getInformers(w.info, { dependentOnly: w.owns !== undefined });
      for (const informer of informers) controller.watch(informer, handler, [...this.globalPredicates, ...w.predicates]);
      if (w.isFor) forInformers = informers;
    }
    // The update that asks for a drain must reach the queue whatever the controller's predicates filter out.
    if (shard) for (const informer of forInformers) controller.watch(informer, enqueueForObject(), [drainRequested(shard)]);
    this.manager.add(controller);
    return controller;
  }
}

/** `ctrl.NewControllerManagedBy(mgr)`. */
export function newControllerManagedBy(manager: Manager): ControllerBuilder {
  return new ControllerBuilder(manager);
}

/** `NewControllerManagedBy(mgr).For(info, opts)`. */
export function controllerFor<T extends KubeObject = KubeObject>(manager: Manager, info: ResourceInfo, opts: BuilderWatchOptions<T> = {}): ControllerBuilder {
  return new ControllerBuilder(manager).for(info, opts);
}

