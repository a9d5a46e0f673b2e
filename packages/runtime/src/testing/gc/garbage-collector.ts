/**
 * `GarbageCollector`: kube-controller-manager's garbage collector, for control planes that have none (the envtest
 * `crd-only` profile runs it by default). It watches every deletable resource, metadata only (`gc-monitors.ts`),
 * keeps the owner → dependents graph by uid (`gc-graph.ts`), and acts as the Go collector does
 * (`pkg/controller/garbagecollector`):
 *
 * - **Background**: a dependent none of whose owners exists any more (a live GET of each owner answers 404 or another
 *   uid) is deleted (with the propagation its own finalizers ask for, else `Background`); a dependent with a living
 *   owner stays, and loses its references to the owners that are gone.
 * - **Foreground**: an owner deleted with `propagationPolicy: Foreground` carries the `foregroundDeletion`
 *   finalizer; its dependents are deleted (in the foreground when they have dependents of their own), and the
 *   finalizer is removed once no dependent with `blockOwnerDeletion: true` remains.
 * - **Orphan**: an owner deleted with `propagationPolicy: Orphan` carries the `orphan` finalizer; its references are
 *   removed from every dependent, then the finalizer.
 *
 * Errors never escape: each is logged (level error, at most once per object, verb and 30 s) naming the kind, the
 * verb and the object, and the object is retried with backoff. `stop()` ends the watches and the workers.
 */
import { isNotFound } from '../../client/errors.js';
import type { OwnerReference, ResourceInfo, Transport } from '../../client/types.js';
import { getLogger, type Logger } from '../../log.js';
import { RepeatFilter } from '../../log-repeats.js';
import { DynamicRESTMapper } from '../../restmapper/dynamic-mapper.js';
import { mappingOf, type RESTMapping } from '../../restmapper/types.js';
import type { GroupKind } from '../../discovery/types.js';
import { RateLimitingQueue } from '../../workqueue/rate-limiting-queue.js';
import { DependencyGraph } from './gc-graph.js';
import { DEFAULT_IGNORED_RESOURCES, ResourceMonitors } from './gc-monitors.js';
import {
  AbsentOwnerCache,
  FINALIZER_DELETE_DEPENDENTS,
  FINALIZER_ORPHAN_DEPENDENTS,
  hasFinalizer,
  identityOfReference,
  type GraphNode,
} from './gc-node.js';
import { GcOperations, NamespacedOwnerOfClusterScopedObjectError, RestMappingError, type MetadataObject } from './gc-operations.js';
import { WorkerGate } from './worker-gate.js';

/** Settings of {@link GarbageCollector.start}; all optional. */
export interface GarbageCollectorOptions {
  /** Where the collector logs (default: the runtime's logger), with `component: garbage-collector`. */
  logger?: Logger;
  /** Concurrent deletions (Go's `--concurrent-gc-syncs`, default here 5). */
  workers?: number;
  /** How often discovery is asked again for new or removed resources (default 30 s, as kube-controller-manager). */
  resyncPeriodMs?: number;
  /** How long workers wait for new informers to list before going on (default 30 s). */
  syncTimeoutMs?: number;
  /** `group/resource` never watched (default `/events`, core Events). */
  ignoredResources?: readonly string[];
}

type Outcome = 'done' | 'virtual-delete';

/**
 * kube-controller-manager's garbage collector for a control plane that has none (the envtest `crd-only` profile
 * runs one): metadata-only watches of every deletable resource (CRDs installed later included) and an owner →
 * dependents graph by uid; background (dependents whose owners are all gone are deleted; references to gone owners
 * are removed from dependents that keep a living one), foreground (`foregroundDeletion`: dependents deleted, the
 * finalizer removed once no `blockOwnerDeletion` dependent remains) and orphan (`orphan`: the owner's references
 * removed from its dependents, then the finalizer). Failures are logged naming the kind, the verb and the object,
 * and retried with backoff; nothing is thrown after `start`. Create with {@link GarbageCollector.start}; always
 * `stop()` it.
 */
export class GarbageCollector {
  private readonly log: Logger;
  private readonly graph: DependencyGraph;
  private readonly monitors: ResourceMonitors;
  private readonly ops: GcOperations;
  private readonly mapper: DynamicRESTMapper;
  private readonly attemptToDelete = new RateLimitingQueue<GraphNode>();
  private readonly attemptToOrphan = new RateLimitingQueue<GraphNode>();
  private readonly gate = new WorkerGate();
  private readonly repeats = new RepeatFilter();
  private readonly workers: Promise<void>[] = [];
  private resyncTimer: NodeJS.Timeout | undefined;
  private crdSyncTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  /** Aborted by `stop()`, and by a CRD change while a sync waits for informers (the next sync then runs at once). */
  private syncWait = new AbortController();
  private stopped = false;

  private constructor(
    transport: Transport,
    private readonly opts: GarbageCollectorOptions,
  ) {
    this.log = (opts.logger ?? getLogger()).child({ component: 'garbage-collector' });
    this.graph = new DependencyGraph(
      {
        attemptToDelete: (n) => this.attemptToDelete.add(n),
        attemptToDeleteLater: (n) => this.attemptToDelete.addRateLimited(n),
        attemptToOrphan: (n) => this.attemptToOrphan.add(n),
      },
      new AbsentOwnerCache(),
      this.log,
    );
    this.monitors = new ResourceMonitors(transport, (ev) => this.graph.process(ev), this.log, new Set(opts.ignoredResources ?? DEFAULT_IGNORED_RESOURCES));
    this.mapper = new DynamicRESTMapper(transport, { logger: this.log, missBackoff: { initialMs: 200, maxMs: 5000 } });
    this.ops = new GcOperations(transport, { restMapping: (gk, ...versions) => this.restMapping(gk, versions) });
  }

  /**
   * Starts watching and collecting; resolves once the informers of the resources served now have listed (or the
   * sync timeout passed). Rejects, with everything stopped, when discovery cannot be asked.
   */
  static async start(transport: Transport, opts: GarbageCollectorOptions = {}): Promise<GarbageCollector> {
    const gc = new GarbageCollector(transport, opts);
    try {
      gc.monitors.watchCrds(() => gc.crdChanged());
      await gc.monitors.sync();
      if (!(await gc.monitors.waitForSync(gc.syncTimeoutMs(), gc.syncWait.signal))) gc.warnUnsynced();
    } catch (err) {
      await gc.stop();
      throw new Error(`garbage collector: cannot start: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    for (let i = 0; i < Math.max(1, opts.workers ?? 5); i++) gc.workers.push(gc.runWorker(gc.attemptToDelete, (n) => gc.processAttemptToDelete(n)));
    gc.workers.push(gc.runWorker(gc.attemptToOrphan, (n) => gc.processAttemptToOrphan(n)));
    gc.scheduleResync();
    gc.log.debug('garbage collector started', { resources: gc.monitors.resources().length });
    return gc;
  }

  /** The resources watched now. */
  resources(): ResourceInfo[] {
    return this.monitors.resources();
  }

  /** Whether the graph holds a node for `uid` (for tests, as Go's `GraphHasUID`). */
  graphHasUid(uid: string): boolean {
    return this.graph.read(uid) !== undefined;
  }

  /** Asks discovery again now (as the periodic resync does); resolves when the informers are in line. */
  resync(): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncMonitors());
    return this.syncing;
  }

  /** Stops the watches and workers; resolves once every worker has returned. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.resyncTimer);
    clearTimeout(this.crdSyncTimer);
    this.syncWait.abort();
    this.attemptToDelete.shutDown();
    this.attemptToOrphan.shutDown();
    await this.syncing;
    await this.monitors.stop();
    await Promise.all(this.workers);
  }

  private warnUnsynced(): void {
    const unsynced = this.monitors.unsynced();
    if (unsynced.length > 0 && !this.stopped) this.log.warn('informers had not listed within the sync timeout; collecting anyway', { resources: unsynced });
  }

  private syncTimeoutMs(): number {
    return this.opts.syncTimeoutMs ?? 30_000;
  }

  private scheduleResync(): void {
    if (this.stopped) return;
    this.resyncTimer = setTimeout(() => void this.resync().finally(() => this.scheduleResync()), this.opts.resyncPeriodMs ?? 30_000);
    this.resyncTimer.unref();
  }

  /** A CRD changed: sync soon (a burst of CRD events gives one sync). */
  private crdChanged(): void {
    // A sync waiting for informers (maybe of a CRD just deleted) gives way to the one this change asks for.
    this.syncWait.abort();
    if (this.stopped || this.crdSyncTimer) return;
    this.crdSyncTimer = setTimeout(() => {
      this.crdSyncTimer = undefined;
      void this.resync();
    }, 50);
  }

  /** One monitor sync with the workers paused (Go's `workerLock`), so no decision is made on a half-built graph. */
  private async syncMonitors(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.gate.exclusive(async () => {
        if (this.syncWait.signal.aborted && !this.stopped) this.syncWait = new AbortController();
        const changes = await this.monitors.sync();
        if (changes.started.length + changes.stopped.length === 0) return;
        this.log.debug('watched resources changed', { started: changes.started, stopped: changes.stopped });
        const wait = this.syncWait.signal;
        if (!(await this.monitors.waitForSync(this.syncTimeoutMs(), wait)) && !wait.aborted) this.warnUnsynced();
      });
    } catch (err) {
      this.logFailure('discover', undefined, err);
    }
  }

  /** A mapping from the watched resources first (current at once), else from discovery through the mapper. */
  private async restMapping(gk: GroupKind, versions: string[]): Promise<RESTMapping> {
    const watched = this.monitors.resources().find((r) => r.group === gk.group && r.kind === gk.kind && (versions.length === 0 || versions.includes(r.version)));
    return watched ? mappingOf(watched) : this.mapper.restMapping(gk, ...versions);
  }

  private async runWorker(queue: RateLimitingQueue<GraphNode>, process: (n: GraphNode) => Promise<'retry' | 'forget'>): Promise<void> {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      const node = next.item;
      await this.gate.enter();
      try {
        if ((await process(node)) === 'retry' && !this.stopped) queue.addRateLimited(node);
        else queue.forget(node);
      } catch (err) {
        // process() logs its own failures; this is a bug guard so that a worker never dies.
        this.log.error('garbage collector worker failed', { kind: node.identity.kind, verb: 'process', name: node.identity.name, uid: node.identity.uid, error: err });
        if (!this.stopped) queue.addRateLimited(node);
      } finally {
        this.gate.leave();
        queue.done(node);
      }
    }
  }

  /** Go's `attemptToDeleteWorker`. */
  private async processAttemptToDelete(node: GraphNode): Promise<'retry' | 'forget'> {
    if (node.virtual) {
      const current = this.graph.read(node.identity.uid);
      // Removed meanwhile, or observed by an informer since: nothing to do with this virtual node.
      if (!current || !current.virtual) return 'forget';
    }
    try {
      const outcome = await this.attemptToDeleteItem(node);
      if (outcome === 'virtual-delete') return 'forget';
    } catch (err) {
      if (err instanceof NamespacedOwnerOfClusterScopedObjectError) {
        this.log.warn(err.message, { kind: node.identity.kind, name: node.identity.name, uid: node.identity.uid });
        return 'forget';
      }
      if (err instanceof RestMappingError) this.log.debug(err.message, { kind: node.identity.kind, name: node.identity.name });
      else this.logFailure((err as { verb?: string }).verb ?? 'get', node, err);
      return 'retry';
    }
    // A virtual node stays queued until an informer sees it (kubernetes#56121).
    return node.virtual ? 'retry' : 'forget';
  }

  /** Go's `attemptToDeleteItem`: delete `node`'s object when every owner is gone (see the module comment). */
  private async attemptToDeleteItem(node: GraphNode): Promise<Outcome> {
    if (node.beingDeleted && !node.deletingDependents) return 'done';
    let latest: MetadataObject;
    try {
      latest = await this.ops.get(node.identity);
    } catch (err) {
      if (!isNotFound(err)) throw withVerb(err, 'get');
      this.graph.virtualDelete(node.identity);
      return 'virtual-delete';
    }
    if (latest.metadata.uid !== node.identity.uid) {
      this.graph.virtualDelete(node.identity);
      return 'virtual-delete';
    }
    if (node.deletingDependents) {
      await this.processDeletingDependents(node);
      return 'done';
    }
    const refs = latest.metadata.ownerReferences ?? [];
    if (refs.length === 0) return 'done';
    const { solid, dangling, waiting } = await this.classifyReferences(node, refs);
    if (solid.length > 0) {
      if (dangling.length + waiting.length === 0) return 'done';
      // Owners gone, or waiting for their dependents to go, lose this dependent; a living owner keeps it.
      await this.ops.removeOwnerReferences(node, [...dangling, ...waiting].map((r) => r.uid)).catch((err: unknown) => Promise.reject(withVerb(err, 'patch')));
      return 'done';
    }
    if (waiting.length > 0 && node.dependents.size > 0) {
      if ([...node.dependents].some((d) => d.deletingDependents)) {
        // A possible cycle of foreground deletions: stop blocking the owners before deleting in the foreground.
        await this.ops.unblockOwnerReferences(node).catch((err: unknown) => Promise.reject(withVerb(err, 'patch')));
      }
      await this.deleteObject(node, 'Foreground');
      return 'done';
    }
    const policy = hasFinalizer(latest.metadata, FINALIZER_ORPHAN_DEPENDENTS) ? 'Orphan' : hasFinalizer(latest.metadata, FINALIZER_DELETE_DEPENDENTS) ? 'Foreground' : 'Background';
    await this.deleteObject(node, policy);
    return 'done';
  }

  private async deleteObject(node: GraphNode, policy: 'Background' | 'Foreground' | 'Orphan'): Promise<void> {
    this.log.debug('deleting object', { kind: node.identity.kind, namespace: node.identity.namespace, name: node.identity.name, uid: node.identity.uid, propagationPolicy: policy });
    await this.ops.delete(node.identity, policy).catch((err: unknown) => Promise.reject(withVerb(err, 'delete')));
  }

  /** Owners that exist (`solid`), are gone (`dangling`), or exist waiting for their dependents' deletion (`waiting`). */
  private async classifyReferences(node: GraphNode, refs: OwnerReference[]): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const owner = await this.ownerOf(ref, node);
      if (!owner) dangling.push(ref);
      else if (owner.metadata.deletionTimestamp && hasFinalizer(owner.metadata, FINALIZER_DELETE_DEPENDENTS)) waiting.push(ref);
      else solid.push(ref);
    }
    return { solid, dangling, waiting };
  }

  /** Go's `isDangling`: the owner `ref` names, or undefined when it is absent (cached, 404, or another uid). */
  private async ownerOf(ref: OwnerReference, node: GraphNode): Promise<MetadataObject | undefined> {
    const absent = this.graph.absentOwners;
    const clusterKey = identityOfReference(ref, '');
    const namespacedKey = identityOfReference(ref, node.identity.namespace);
    if (absent.has(clusterKey) || absent.has(namespacedKey)) return undefined;
    const { info, owner } = await this.ops.getOwner(ref, node.identity).catch((err: unknown) => Promise.reject(err instanceof RestMappingError || err instanceof NamespacedOwnerOfClusterScopedObjectError ? err : withVerb(err, 'get')));
    if (!owner || owner.metadata.uid !== ref.uid) {
      absent.add(info.namespaced ? namespacedKey : clusterKey);
      return undefined;
    }
    return owner;
  }

  /** Go's `processDeletingDependentsItem`: finish a foreground deletion when no blocking dependent is left. */
  private async processDeletingDependents(node: GraphNode): Promise<void> {
    const blocking = node.blockingDependents();
    if (blocking.length === 0) {
      await this.ops.removeFinalizer(node, FINALIZER_DELETE_DEPENDENTS).catch((err: unknown) => Promise.reject(withVerb(err, 'patch')));
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.attemptToDelete.add(dep);
  }

  /** Go's `attemptToOrphanWorker`: remove the owner's references from its dependents, then its `orphan` finalizer. */
  private async processAttemptToOrphan(owner: GraphNode): Promise<'retry' | 'forget'> {
    const results = await Promise.allSettled(
      [...owner.dependents].map((dep) =>
        this.ops.removeOwnerReferences(dep, [owner.identity.uid]).catch((err: unknown) => {
          if (isNotFound(err)) return;
          this.logFailure('patch', dep, err);
          throw err;
        }),
      ),
    );
    if (results.some((r) => r.status === 'rejected')) return 'retry';
    try {
      await this.ops.removeFinalizer(owner, FINALIZER_ORPHAN_DEPENDENTS);
      return 'forget';
    } catch (err) {
      this.logFailure('patch', owner, err);
      return 'retry';
    }
  }

  private logFailure(verb: string, node: GraphNode | undefined, err: unknown): void {
    const id = node?.identity;
    const admitted = this.repeats.admit(`${verb}\u0000${id?.uid ?? ''}\u0000${err instanceof Error ? err.message : String(err)}`);
    if (!admitted) return;
    this.log.error(`garbage collector: ${verb} failed; retrying`, {
      verb,
      ...(id ? { kind: id.kind, apiVersion: id.apiVersion, namespace: id.namespace || undefined, name: id.name, uid: id.uid } : {}),
      ...(admitted.repeated > 0 ? { repeated: admitted.repeated } : {}),
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** Tags an error with the verb that failed, for the log line. */
function withVerb(err: unknown, verb: string): unknown {
  if (err instanceof Error && !(err as { verb?: string }).verb) Object.assign(err, { verb });
  return err;
}
