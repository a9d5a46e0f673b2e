/**
 * Fluent wiring of a multi-cluster controller (multicluster-runtime's `mcbuilder`):
 *
 * ```ts
 * newMultiClusterControllerManagedBy(mgr)
 *   .for(fleetConfigResource, { clusters: 'hub', fanOut: true })   // each hub object, reconciled once per member
 *   .watches(configMapResource, enqueueForObject(), { clusters: 'members' })
 *   .complete(async (req, ctx) => { ... req.cluster ... ctx.cluster.getClient() ... });
 * ```
 *
 * Every watch says in which clusters its kind is watched — `clusters`: `'members'` (every engaged member, the
 * default as in multicluster-runtime), `'hub'`, or `'all'` — and each event's requests go to the lane of the cluster
 * it came from, unless the handler names another (`{ cluster, namespace, name }`: member objects reporting back to
 * their hub owner use `enqueueInHub`). `fanOut: true` on a hub watch delivers each hub object's requests to every
 * member's lane instead (a hub object fanning out to members): every member lane has its own handler on the hub's
 * informer, so a member engaged later gets every hub object at once. The watches of a lane are `KindSource`s of
 * its cluster: they take that cluster's informers when the lane starts and give them back when it drains.
 */
import type { Cluster } from '../cluster/cluster.js';
import type { KubeObject } from '../client/types.js';
import { BuilderSettings, kindOf, type BuilderWatchOptions, type OwnsOptions } from '../builder/builder.js';
import { controllerMetrics } from '../controller/metrics.js';
import { enqueueForObject, enqueueForOwner, type EventHandler, type OwnerType } from '../handler/handler.js';
import type { Predicate } from '../predicate/predicate.js';
import { isResourceInfo, KindSource, type KindRef } from '../source/kind-source.js';
import type { Source } from '../source/source.js';
import { MultiClusterController, type ClusterReconcileFunc, type ClusterReconciler, type ClusterRequestSink } from './controller.js';
import type { MultiClusterManager } from './manager.js';
import { HUB_CLUSTER } from './request.js';

/** Where a watch's kind is watched: every engaged member (default), the hub, or both. */
export type ClusterScope = 'members' | 'hub' | 'all';

/** Options of a multi-cluster watch: the builder's, plus where. */
export interface ClusterWatchOptions<T extends KubeObject = KubeObject> extends BuilderWatchOptions<T> {
  /** Default `'members'`. */
  clusters?: ClusterScope;
  /**
   * With `clusters: 'hub'`: the hub object's requests go to every member's lane (a request per member), not the
   * hub's. A handler's request that names a `cluster` still goes there.
   */
  fanOut?: boolean;
}

/** Options of a multi-cluster `owns`: the owner is enqueued in the dependent's own cluster. */
export interface ClusterOwnsOptions<T extends KubeObject = KubeObject> extends OwnsOptions<T> {
  /** Default: where the `for` kind is reconciled (its clusters; every member for a fan-out hub kind). */
  clusters?: ClusterScope;
}

/**
 * A cluster-aware handler: an `EventHandler` whose sink takes requests with a `cluster` (see `ClusterRequestSink`),
 * or a function of the cluster the events come from that returns one (multicluster-runtime's
 * `handler.TypedEventHandlerFunc(clusterName, cluster)`).
 */
export type ClusterEventHandler<T extends KubeObject = KubeObject> = EventHandler<T> | ((clusterName: string, cluster: Cluster) => EventHandler<T>);

/** The requests of a cluster-aware handler: `sink` is a {@link ClusterRequestSink}. */
export type { ClusterRequestSink };

interface PendingWatch {
  kind: KindRef;
  handler: ClusterEventHandler<KubeObject> | undefined;
  predicates: Predicate<KubeObject>[];
  /** Undefined for an `owns` without `clusters`: where the `for` kind's objects live. */
  clusters: ClusterScope | undefined;
  fanOut: boolean;
  metadataOnly: boolean;
  owns?: { matchEveryOwner: boolean };
}

/**
 * Builds one multi-cluster controller (single use; see the module comment). `withOptions` sets every lane's
 * controller settings: `maxConcurrentReconciles` is per cluster.
 */
export class MultiClusterControllerBuilder extends BuilderSettings {
  private forClusters: ClusterScope = 'members';
  private forFanOut = false;
  private readonly pending: PendingWatch[] = [];

  constructor(private readonly manager: MultiClusterManager) {
    super();
  }

  /** The primary kind: its events enqueue the object itself, in its cluster (or, with `fanOut`, in every member). */
  for<T extends KubeObject = KubeObject>(kind: KindRef, opts?: ClusterWatchOptions<T>): this;
  for<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, opts?: ClusterWatchOptions<T>): this;
  for<T extends KubeObject = KubeObject>(kind: KindRef | string, a?: string | ClusterWatchOptions<T>, b?: ClusterWatchOptions<T>): this {
    if (this.forKind) throw new Error('for() may only be called once');
    const opts = (typeof a === 'string' ? b : a) ?? {};
    this.forKind = kindOf(kind, typeof a === 'string' ? a : undefined);
    this.forClusters = opts.clusters ?? 'members';
    this.forFanOut = opts.fanOut ?? false;
    this.pending.unshift(this.pendingOf(this.forKind, enqueueForObject(), opts));
    return this;
  }

  /** A dependent kind: its events enqueue its controlling owner of the `for` kind, in the dependent's cluster. */
  owns<T extends KubeObject = KubeObject>(kind: KindRef, opts?: ClusterOwnsOptions<T>): this {
    this.pending.push({
      ...this.pendingOf(kind, undefined, opts ?? {}),
      clusters: opts?.clusters,
      owns: { matchEveryOwner: opts?.matchEveryOwner ?? false },
    });
    return this;
  }

  /** Any kind with any (cluster-aware) handler. */
  watches<T extends KubeObject = KubeObject>(kind: KindRef, handler: ClusterEventHandler<T>, opts: ClusterWatchOptions<T> = {}): this {
    this.pending.push(this.pendingOf(kind, handler as ClusterEventHandler<KubeObject>, opts));
    return this;
  }

  /** Builds the controller and adds it to the manager. */
  complete(reconciler: ClusterReconciler | ClusterReconcileFunc): MultiClusterController {
    return this.build(reconciler);
  }

  build(reconciler: ClusterReconciler | ClusterReconcileFunc): MultiClusterController {
    const name = this.startBuild();
    const forKind = this.forKind;
    const mgr = this.manager;
    const local = mgr.local;
    const { logger, needLeaderElection, ...controllerOptions } = this.options;
    const log = (logger ?? local.logger).child(forKind ? { controllerGroup: forKind.group, controllerKind: forKind.kind } : {});
    const served = { gauge: controllerMetrics(local.registry).kindServed, controller: name };
    for (const w of this.pending) if (w.owns && !forKind) throw new Error('owns() needs for()');
    // An owns() without clusters: where the for kind's reconciles happen (every member for a fan-out hub kind).
    const ownerClusters: ClusterScope = this.forFanOut ? 'members' : this.forClusters;
    const watches = this.pending.map((w) => ({ ...w, clusters: w.clusters ?? ownerClusters }));
    const sourcesFor = (clusterName: string, cluster: Cluster): Source[] => {
      const isHub = clusterName === HUB_CLUSTER;
      const out: Source[] = [];
      for (const w of watches) {
        // Where the informer lives: this lane's cluster, or — for a fan-out watch in a member lane — the hub.
        let source: Cluster | undefined;
        if (w.fanOut) source = isHub ? undefined : mgr.hub;
        else if (isHub ? w.clusters !== 'members' : w.clusters !== 'hub') source = cluster;
        if (!source) continue;
        const handler = w.owns
          ? enqueueForOwner(ownerTypeOf(forKind!), { onlyControllers: !w.owns.matchEveryOwner })
          : typeof w.handler === 'function' ? w.handler(clusterName, cluster) : w.handler!;
        const request = { dependentOnly: w.owns !== undefined };
        if (isResourceInfo(w.kind) && !w.metadataOnly) source.cache.expect(w.kind, request);
        out.push(new KindSource({
          cluster: source,
          kind: w.kind,
          handler: handler as EventHandler<KubeObject>,
          predicates: [...this.globalPredicates, ...w.predicates],
          metadataOnly: w.metadataOnly,
          request,
          clock: local.clock,
          log: isHub ? log : log.child({ cluster: clusterName }),
          ...(isHub ? { served } : {}),
        }));
      }
      return out;
    };
    const controller = new MultiClusterController({
      name,
      reconciler,
      hub: mgr.hub,
      sourcesFor,
      controller: {
        cacheSyncTimeoutMs: local.controllerDefaults.cacheSyncTimeoutMs,
        usePriorityQueue: local.controllerDefaults.usePriorityQueue,
        ...controllerOptions,
        ...(forKind ? { forKind: { group: forKind.group, kind: forKind.kind } } : {}),
      },
      ...(needLeaderElection !== undefined ? { needLeaderElection } : {}),
      registry: local.registry,
      clock: local.clock,
      logger: log,
    });
    mgr.add(controller);
    return controller;
  }

  private pendingOf<T extends KubeObject>(kind: KindRef, handler: ClusterEventHandler<T> | undefined, opts: ClusterWatchOptions<T>): PendingWatch {
    const clusters = opts.clusters ?? 'members';
    if (opts.fanOut && clusters !== 'hub') throw new TypeError(`fanOut is for a hub kind (clusters: 'hub'), not '${clusters}'`);
    return {
      kind,
      handler: handler as ClusterEventHandler<KubeObject> | undefined,
      predicates: (opts.predicates ?? []) as Predicate<KubeObject>[],
      clusters,
      fanOut: opts.fanOut ?? false,
      metadataOnly: opts.metadataOnly ?? false,
    };
  }
}

function ownerTypeOf(forKind: KindRef): OwnerType {
  return { group: forKind.group, kind: forKind.kind, namespaced: isResourceInfo(forKind) ? forKind.namespaced : true };
}

/** multicluster-runtime's `mcbuilder.ControllerManagedBy(mgr)`. */
export function newMultiClusterControllerManagedBy(manager: MultiClusterManager): MultiClusterControllerBuilder {
  return new MultiClusterControllerBuilder(manager);
}

/** `newMultiClusterControllerManagedBy(mgr).for(kind, opts)`. */
export function multiClusterControllerFor<T extends KubeObject = KubeObject>(manager: MultiClusterManager, kind: KindRef, opts: ClusterWatchOptions<T> = {}): MultiClusterControllerBuilder {
  return new MultiClusterControllerBuilder(manager).for(kind, opts);
}
