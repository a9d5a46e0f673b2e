/**
 * `DynamicRESTMapper`: a discovery-backed, lazy RESTMapper (controller-runtime's `apiutil.NewDynamicRESTMapper`,
 * with kubectl's name forms and without its staleness).
 *
 * - Lazy: nothing is asked until the first lookup. A lookup within one group loads that group (with aggregated
 *   discovery, `/api` and `/apis` bring every group at once); a name without a group (`deploy`) loads everything.
 * - A miss reloads what it looked in and tries once more. Misses are rate-limited per group (and for ungrouped
 *   names): after a reload that did not find the name, the next reload for that group waits `missBackoff.initialMs`,
 *   doubling on every further fruitless one up to `missBackoff.maxMs`; misses in between answer at once without
 *   asking the server. A negative answer is therefore never kept for good, and a flood of misses for a name that
 *   does not exist costs at most one reload per backoff period.
 * - A group version that answers 404 while being loaded is evicted (its group too when it was the last version).
 * - `start(signal)` watches CustomResourceDefinitions (apiextensions.k8s.io/v1) and keeps the mapping current as
 *   CRDs are added, changed (served versions, storage version, kind) and removed: see `crd-expectations.ts`. Without
 *   it the mapper still works, lazily; `invalidateGroup()` and `reset()` drop what it learnt.
 *
 * Name forms, priorities and errors are `MappingTable`'s (client-go rules; short names and categories from
 * discovery only; plurals never guessed). Errors: `NoKindMatchError`, `NoResourceMatchError` (with a suggestion when
 * a known name is close), `AmbiguousResourceError`; a failure to reach the server rejects with that failure.
 */
import { builtinResources } from '../builtin/resources.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '../client/types.js';
import { DeletedFinalStateUnknown } from '../cache/keys.js';
import { SharedIndexInformer } from '../cache/shared-informer.js';
import { realClock, type Clock } from '../clock.js';
import { DiscoveryClient, GroupDiscoveryFailedError, type DiscoveryClientOptions } from '../discovery/discovery-client.js';
import type { APIResourceInfo, GroupKind, GroupVersionKind, GroupVersionResource } from '../discovery/types.js';
import { getLogger, type Logger } from '../log.js';
import { CrdExpectations, crdServingOf } from './crd-expectations.js';
import { DiscoverySnapshot, inScope } from './discovery-snapshot.js';
import { MappingTable } from './mapping-table.js';
import { resolveName } from './resolve-name.js';
import { isNoMatchError, NoResourceMatchError, type PartialResource, type RESTMapper, type RESTMapping } from './types.js';


/** Settings of a {@link DynamicRESTMapper}; all optional. */
export interface DynamicRESTMapperOptions {
  /** Where warnings (ambiguous short names) and discovery failures are logged (default: the runtime's logger). */
  logger?: Logger;
  clock?: Clock;
  /** Waits between reloads after misses (default 1 s, doubling up to 30 s). */
  missBackoff?: { initialMs?: number; maxMs?: number };
  /** How soon a group is asked again while discovery does not yet show what its CRDs say (default 250 ms). */
  lagRetryMs?: number;
  /** Options of the discovery client made from a transport. */
  discovery?: DiscoveryClientOptions;
}

/** Where a lookup looks: one group, or every group (`'*'`, names without a group). */
type Scope = string;
const ALL: Scope = '*';

/** The lazy, self-refreshing RESTMapper (see the module comment). */
export class DynamicRESTMapper implements RESTMapper {
  readonly discovery: DiscoveryClient;
  /** As a manager runnable: the CRD watch runs on every replica. */
  readonly needLeaderElection = false;
  readonly name = 'restmapper';
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly backoffInitialMs: number;
  private readonly backoffMaxMs: number;
  private readonly lagRetryMs: number;
  private readonly snapshot: DiscoverySnapshot;
  private readonly crds = new CrdExpectations();
  private readonly backoff = new Map<Scope, { next: number; delayMs: number }>();
  private table: MappingTable | undefined;
  private readonly listeners = new Set<(group: string) => void>();
  /** Loads run one at a time: this is the tail of the queue. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(source: Transport | DiscoveryClient, opts: DynamicRESTMapperOptions = {}) {
    this.discovery = source instanceof DiscoveryClient ? source : new DiscoveryClient(source, opts.discovery);
    this.log = (opts.logger ?? getLogger()).child({ component: 'restmapper' });
    this.clock = opts.clock ?? realClock;
    this.backoffInitialMs = opts.missBackoff?.initialMs ?? 1000;
    this.backoffMaxMs = Math.max(this.backoffInitialMs, opts.missBackoff?.maxMs ?? 30_000);
    this.lagRetryMs = opts.lagRetryMs ?? 250;
    this.snapshot = new DiscoverySnapshot(this.discovery, () => (this.table = undefined));
  }

  kindFor(resource: PartialResource): Promise<GroupVersionKind> {
    return this.lookup(scopeOf(resource.group), (t) => {
      const r = t.resourceFor(t.expandShortcut(resource, this.warn));
      return { group: r.group, version: r.version, kind: r.kind };
    });
  }

  resourceFor(resource: PartialResource): Promise<GroupVersionResource> {
    return this.lookup(scopeOf(resource.group), (t) => {
      const r = t.resourceFor(t.expandShortcut(resource, this.warn));
      return { group: r.group, version: r.version, resource: r.resource };
    });
  }

  restMapping(gk: GroupKind, ...versions: string[]): Promise<RESTMapping> {
    return this.lookup(gk.group, (t) => t.restMapping(gk, versions));
  }

  restMappings(gk: GroupKind, ...versions: string[]): Promise<RESTMapping[]> {
    return this.lookup(gk.group, (t) => t.restMappings(gk, versions));
  }

  resolve(name: string): Promise<RESTMapping> {
    return this.lookup(ALL, (t) => resolveName(t, name, this.warn));
  }

  resolveCategory(category: string): Promise<RESTMapping[]> {
    return this.lookup(ALL, (t) => {
      const names = t.categoryNames(category);
      if (names.length === 0) throw new NoResourceMatchError(category);
      const seen = new Set<string>();
      const out: RESTMapping[] = [];
      for (const n of names) {
        const m = resolveName(t, n, this.warn);
        const key = `${m.groupVersionKind.group}/${m.groupVersionKind.version}/${m.groupVersionKind.kind}`;
        if (!seen.has(key)) out.push(m);
        seen.add(key);
      }
      return out;
    });
  }

  /** Every served resource (plural, kind, scope, verbs, short names…) in discovery's order, loading everything. */
  resources(): Promise<readonly APIResourceInfo[]> {
    return this.lookup(ALL, (t) => t.resources);
  }

  /** The mapping of an object's `apiVersion`/`kind` (what the dynamic client and unstructured informers need). */
  mappingForObject(obj: KubeObject): Promise<RESTMapping> {
    const apiVersion = obj.apiVersion ?? '';
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    return this.restMapping({ group, kind: obj.kind ?? '' }, slash < 0 ? apiVersion : apiVersion.slice(slash + 1));
  }

  /** Forgets what was learnt about `group`: the next lookup in it asks the server again (e.g. after a 404). */
  invalidateGroup(group: string): void {
    this.snapshot.dropGroup(group);
    this.backoff.delete(group);
    this.backoff.delete(ALL);
  }

  reset(): void {
    this.warned.clear();
    this.snapshot.clear();
    this.crds.clear();
    this.backoff.clear();
  }

  /**
   * Watches CustomResourceDefinitions until `signal` aborts, keeping the mapping current (see the module comment).
   * Resolves once the watch has stopped. Where CRDs cannot be listed (RBAC) the watch keeps retrying and logging,
   * and the mapper stays lazy.
   */
  async start(signal: AbortSignal): Promise<void> {
    const informer = new SharedIndexInformer<KubeObject>(new ResourceClient<KubeObject>(this.discovery.transport, builtinResources.customResourceDefinitions), {
      name: 'restmapper-crds',
      logger: this.log,
    });
    informer.addEventHandler({
      onAdd: (obj, initial) => {
        // The first list only says what discovery already shows (or will show when first loaded).
        if (!initial) this.crdChanged(undefined, obj);
      },
      onUpdate: (old, obj) => this.crdChanged(old, obj),
      onDelete: (obj) => this.crdChanged(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj, undefined),
    });
    const stop = (): void => void informer.stop();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await informer.run(signal);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  /**
   * Calls `listener` (with the group) after each CRD change the watch of `start` sees, once the mapping has been
   * told to ask again; returns the function that removes it. How a source waiting for a kind wakes up at once.
   */
  onCrdChange(listener: (group: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies one CRD change (see `crd-expectations.ts`). */
  private crdChanged(prev: unknown, next: unknown): void {
    const group = this.crds.observe(prev === undefined ? undefined : crdServingOf(prev), next === undefined ? undefined : crdServingOf(next));
    if (group === undefined) return;
    this.log.debug('CustomResourceDefinition changed; its group will be asked again', { group });
    this.backoff.delete(group);
    this.backoff.delete(ALL);
    this.table = undefined;
    for (const listener of this.listeners) {
      try {
        listener(group);
      } catch (err) {
        this.log.error('CRD change listener threw', { error: err });
      }
    }
  }

  /** Warnings already logged (an ambiguous short name is said once, not on every lookup). */
  private readonly warned = new Set<string>();
  private readonly warn = (message: string): void => {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.log.warn(message);
  };

  /**
   * Loads what `scope` needs, answers with `answer`, and on a miss reloads (rate-limited) and answers once more.
   * Loads are serialised; answers are computed on the table of the moment.
   */
  private async lookup<T>(scope: Scope, answer: (t: MappingTable) => T): Promise<T> {
    await this.exclusive(() => this.ensure(scope));
    try {
      return answer(this.currentTable());
    } catch (err) {
      if (!isNoMatchError(err)) throw err;
      const reloaded = await this.exclusive(() => this.reloadAfterMiss(scope));
      if (!reloaded) throw this.failureOr(scope, err);
      try {
        const found = answer(this.currentTable());
        this.backoff.delete(scope);
        return found;
      } catch (again) {
        throw isNoMatchError(again) ? this.failureOr(scope, again) : again;
      }
    }
  }

  /** Loads the group list and the group versions `scope` needs that were never tried; refetches due dirty groups. */
  private async ensure(scope: Scope): Promise<void> {
    if (!this.snapshot.listed) await this.snapshot.loadGroupList();
    const now = this.clock.now();
    const dirty = this.crds.dueGroups(now).filter((g) => scope === ALL || inScope(g, scope));
    if (dirty.length > 0) await this.refetch(dirty);
    await this.snapshot.loadUntried(scope === ALL ? undefined : scope);
  }

  /** Refetches dirty groups and settles their CRD expectations. */
  private async refetch(groups: string[]): Promise<void> {
    await this.snapshot.refresh(groups);
    const now = this.clock.now();
    for (const g of groups) this.crds.settle(g, (v) => this.snapshot.resourcesOf(g, v), now, this.lagRetryMs);
    this.table = undefined;
  }

  /** Reloads `scope` after a miss unless its backoff says not yet; true when it did. */
  private async reloadAfterMiss(scope: Scope): Promise<boolean> {
    const now = this.clock.now();
    const b = this.backoff.get(scope);
    if (b && now < b.next) return false;
    const delayMs = b ? Math.min(b.delayMs * 2, this.backoffMaxMs) : this.backoffInitialMs;
    this.backoff.set(scope, { next: now + delayMs, delayMs });
    await this.snapshot.refresh(scope === ALL ? undefined : [scope]);
    for (const g of this.crds.dueGroups(Infinity)) if (scope === ALL || inScope(g, scope)) this.crds.settle(g, (v) => this.snapshot.resourcesOf(g, v), now, this.lagRetryMs);
    this.table = undefined;
    return true;
  }

  /** A group-scoped miss where that group failed to load says why, instead of "no match". */
  private failureOr(scope: Scope, err: unknown): unknown {
    if (scope === ALL) return err;
    const failed = this.snapshot.failuresOf(scope);
    return failed.size > 0 ? new GroupDiscoveryFailedError(failed) : err;
  }

  private currentTable(): MappingTable {
    this.table ??= new MappingTable(this.snapshot.groupResources((g, v, r) => this.crds.hidden(g, v, r)));
    return this.table;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function scopeOf(group: string | undefined): Scope {
  return group ? group : ALL;
}
