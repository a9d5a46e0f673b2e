/**
 * `FakeTransport`: a `Transport` served by an in-memory `ObjectTracker`, the backend of fake clientsets. Every
 * typed client (generated or `ResourceClient`) works against it unchanged.
 *
 * Each request is recorded as a `FakeAction` (in order, before any reactor runs), then offered to the reactors
 * (prepended ones first, then added ones); the first that handles it answers, otherwise the tracker does.
 * Responses are deep copies owned by the caller. Nothing is retried.
 */
import { ApiError } from '../../client/errors.js';
import { failedRequestOf } from '../../client/response-status.js';
import type { DeleteOptions, Preconditions, Scale } from '../../client/interfaces.js';
import type { KubeList, KubeObject, QueryValue, RawRequestInit, RawResponse, ResourceRequest, Transport, Verb, Watch } from '../../client/types.js';
import type { FakeDiscoveryFormat } from './fake-discovery.js';
import { serveFakeRaw } from './fake-raw.js';
import { filterWatch, matchesShardSelector, parseShardSelector, type ParsedShardSelector } from './fake-shard-selector.js';
import { actionFor, actionMatches } from './fake-actions.js';
import type { FakeAction, ReactionFunc, Reactor } from './fake-actions.js';
import { resourceNotFound } from './fake-errors.js';
import type { FakeResource } from './fake-resource.js';
import { ObjectTracker } from './object-tracker.js';
import type { ObjectTrackerOptions } from './object-tracker.js';

/** One `raw()` request the fake answered: method, path (with query) and `Accept`. */
export interface RawRequestRecord {
  method: string;
  path: string;
  accept?: string;
}

/**
 * The fake `Transport` (client-go's `testing.Fake` with its tracker; see the module comment). Give it to any typed
 * client; inspect `actions()`, inject answers or errors with `prependReactor`/`addReactor`, seed through `tracker`.
 */
export class FakeTransport implements Transport {
  readonly tracker: ObjectTracker;
  /** The field manager of applies that name none (unset: `defaultFieldManager()`, the program's name). */
  fieldManager: string | undefined;
  private readonly recorded: FakeAction[] = [];
  private readonly prepended: Reactor[] = [];
  private readonly appended: Reactor[] = [];
  /**
   * Whether informers in `'auto'` mode may sync through WatchList streams from the tracker (which serves them).
   * Default false, as client-go's fake clientset: they list and watch, and `actions()` shows `list` then `watch`.
   */
  watchListSemantics = false;

  /**
   * Whether lists and watches honour KEP-5866's `shardSelector` (a server with `ShardedListAndWatch` on): only the
   * selected objects, and an invalid selector refused. Default false: the parameter is ignored, as by a server
   * without the feature.
   */
  shardSelectors = false;
  /**
   * How discovery is served (see fake-discovery.ts): `aggregated` (default; when the request's `Accept` asks for
   * it, as 1.30+ servers) or `legacy` only (`/api`, `/apis`, then one request per group version, as servers before
   * 1.26).
   */
  discoveryFormat: FakeDiscoveryFormat = 'aggregated';
  /** Group versions (`apps/v1`, `v1`) discovery reports `Stale` (aggregated) or answers 503 for (legacy). */
  readonly staleGroupVersions = new Set<string>();
  private readonly rawLog: RawRequestRecord[] = [];

  constructor(tracker: ObjectTracker = new ObjectTracker()) {
    this.tracker = tracker;
  }

  /** The opposite of `watchListSemantics` (see `Transport.isWatchListSemanticsUnsupported`). */
  isWatchListSemanticsUnsupported(): boolean {
    return !this.watchListSemantics;
  }

  /** Copies of the recorded actions, oldest first. */
  actions(): FakeAction[] {
    return structuredClone(this.recorded);
  }

  clearActions(): void {
    this.recorded.length = 0;
  }

  /** Runs `react` before all reactors registered so far (client-go `PrependReactor`). */
  prependReactor(verb: Verb | '*', resource: string, react: ReactionFunc): void {
    this.prepended.unshift({ verb, resource, react });
  }

  /** Runs `react` after the other reactors but still before the tracker. */
  addReactor(verb: Verb | '*', resource: string, react: ReactionFunc): void {
    this.appended.push({ verb, resource, react });
  }

  async request<T = unknown>(req: ResourceRequest): Promise<T> {
    req.signal?.throwIfAborted();
    const action = this.record(req);
    const reaction = await this.react(action);
    if (reaction) return reaction as T;
    let result: unknown;
    try {
      result = this.dispatch(req);
    } catch (err) {
      throw withRequest(err, req);
    }
    return (req.as === 'metadata' ? asPartialObjectMetadata(result, req.verb) : result) as T;
  }

  /**
   * Paths outside the resource API: `/version` and, for the resources the tracker serves, discovery (see
   * fake-raw.ts); `404 page not found` for anything else. Not recorded as actions: see `rawRequests()`.
   */
  async raw(method: string, path: string, init: RawRequestInit = {}): Promise<RawResponse> {
    init.signal?.throwIfAborted();
    this.rawLog.push({ method, path, ...(init.accept !== undefined ? { accept: init.accept } : {}) });
    return serveFakeRaw(this.tracker, method, path, init, { format: this.discoveryFormat, stale: this.staleGroupVersions });
  }

  /** The `raw()` requests so far (discovery, `/version`), oldest first. */
  rawRequests(): RawRequestRecord[] {
    return this.rawLog.map((r) => ({ ...r }));
  }

  clearRawRequests(): void {
    this.rawLog.length = 0;
  }

  async watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>> {
    req.signal?.throwIfAborted();
    const action = this.record({ ...req, verb: 'watch' });
    const reaction = await this.react(action);
    if (reaction) return reaction as Watch<T>;
    const q = req.query ?? {};
    const shard = this.shardSelectorOf(req);
    const tracked = this.trackerWatch(req, q);
    const watch = shard ? filterWatch(tracked, shard) : tracked;
    return (req.as === 'metadata' ? metadataWatch(watch) : watch) as unknown as Watch<T>;
  }

  /** The request's shard selector, parsed, when this fake honours them (see `shardSelectors`). */
  private shardSelectorOf(req: ResourceRequest): ParsedShardSelector | undefined {
    const expr = str(req.query?.['shardSelector']);
    if (!this.shardSelectors || !expr) return undefined;
    try {
      return parseShardSelector(expr);
    } catch (err) {
      throw withRequest(err, req);
    }
  }

  private trackerWatch(req: ResourceRequest, q: NonNullable<ResourceRequest['query']>): ReturnType<ObjectTracker['watch']> {
    try {
      this.checkScope(req);
      return this.tracker.watch(req.resource, req.namespace, {
      labelSelector: str(q['labelSelector']),
      fieldSelector: str(q['fieldSelector']),
      resourceVersion: str(q['resourceVersion']),
      allowWatchBookmarks: bool(q['allowWatchBookmarks']),
      sendInitialEvents: bool(q['sendInitialEvents']),
      signal: req.signal,
      });
    } catch (err) {
      throw withRequest(err, req);
    }
  }

  private record(req: ResourceRequest): FakeAction {
    const action = actionFor(req);
    this.recorded.push(action);
    return action;
  }

  /** The first handling reactor's result (`{ value }`), or undefined to fall through to the tracker. */
  private async react(action: FakeAction): Promise<unknown> {
    for (const r of [...this.prepended, ...this.appended]) {
      if (!actionMatches(action, r.verb, r.resource)) continue;
      const reaction = await r.react(structuredClone(action));
      if (!reaction?.handled) continue;
      if (reaction.error !== undefined) throw reaction.error;
      return reaction.result ?? {};
    }
    return undefined;
  }

  /**
   * As the apiserver: a cluster-scoped resource has no path under a namespace (a dynamic client given a namespace
   * for it asks for one), so such a request gets the 404 of an unknown path.
   */
  private checkScope(req: ResourceRequest): void {
    if (req.namespace && this.tracker.registration(req.resource)?.namespaced === false) throw resourceNotFound();
  }

  private dispatch(req: ResourceRequest): unknown {
    this.checkScope(req);
    const t = this.tracker;
    const r = req.resource;
    const ns = req.namespace;
    const name = req.name ?? '';
    const sub = req.subresource ?? '';
    const q = req.query ?? {};
    const dryRun = isDryRun(q['dryRun']) || isDryRun((req.body as DeleteOptions | undefined)?.dryRun);
    switch (req.verb) {
      case 'get':
        return sub === 'scale' ? t.getScale(r, ns, name) : t.get(r, ns, name, sub || undefined);
      case 'list': {
        const shard = this.shardSelectorOf(req);
        const list = t.list(r, ns, {
          labelSelector: str(q['labelSelector']),
          fieldSelector: str(q['fieldSelector']),
          limit: num(q['limit']),
          continue: str(q['continue']),
        });
        return shard ? { ...list, items: list.items.filter((o) => matchesShardSelector(o, shard)) } : list;
      }
      case 'create':
        if (sub) throw resourceNotFound();
        return t.create(r, ns, req.body as KubeObject, { dryRun });
      case 'update':
        if (sub === 'status') return t.updateStatus(r, ns, req.body as KubeObject, { dryRun });
        if (sub === 'scale') return t.updateScale(r, ns, name, req.body as Scale, { dryRun });
        if (sub) throw resourceNotFound();
        return t.update(r, ns, req.body as KubeObject, { dryRun });
      case 'patch':
        return t.patch(r, ns, name, req.patchType ?? 'merge', req.body, {
          dryRun,
          subresource: sub || undefined,
          fieldManager: str(q['fieldManager']),
          force: bool(q['force']) === true,
        });
      case 'delete': {
        const preconditions = (req.body as { preconditions?: Preconditions } | undefined)?.preconditions;
        return t.delete(r, ns, name, { dryRun, preconditions });
      }
      case 'deletecollection':
        return t.deleteCollection(r, ns, { dryRun, labelSelector: str(q['labelSelector']), fieldSelector: str(q['fieldSelector']) });
      case 'watch':
        throw new TypeError('watch requests go through FakeTransport.watch()');
    }
  }
}

/**
 * A fake transport serving `resources`, seeded with `initialObjects` (each object's `apiVersion`/`kind` picks its
 * resource; seeding records no actions and keeps `status`).
 */
export function newFakeTransport(
  resources: FakeResource[],
  ...initialObjects: KubeObject[]
): FakeTransport {
  return newFakeTransportWithOptions({}, resources, ...initialObjects);
}

/** `newFakeTransport` with tracker options (fake clock, UID generator, watch history size). */
export function newFakeTransportWithOptions(
  opts: ObjectTrackerOptions,
  resources: FakeResource[],
  ...initialObjects: KubeObject[]
): FakeTransport {
  const tracker = new ObjectTracker(opts);
  tracker.register(...resources);
  tracker.add(...initialObjects);
  return new FakeTransport(tracker);
}

/** A get's or list's result as the apiserver answers a metadata-only read (`meta.k8s.io/v1` PartialObjectMetadata[List]). */
function asPartialObjectMetadata(result: unknown, verb: Verb): unknown {
  const partial = (o: KubeObject): KubeObject => ({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: o.metadata ?? {} });
  if (verb === 'get') return partial(result as KubeObject);
  if (verb !== 'list') return result;
  const list = result as KubeList<KubeObject>;
  return { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList', metadata: list.metadata ?? {}, items: (list.items ?? []).map(partial) };
}

/** `watch` with each event's object as the apiserver sends it to a metadata-only watch. */
function metadataWatch(watch: Watch<KubeObject>): Watch<KubeObject> {
  return {
    stop: (reason?: unknown) => watch.stop(reason),
    async *[Symbol.asyncIterator]() {
      for await (const e of watch) {
        yield e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED' ? { ...e, object: asPartialObjectMetadata(e.object, 'get') as KubeObject } : e;
      }
    },
  };
}

function str(v: QueryValue): string | undefined {
  return v === undefined || v === '' ? undefined : String(v);
}

function num(v: QueryValue): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function bool(v: QueryValue): boolean | undefined {
  return v === undefined ? undefined : v === true || v === 'true';
}

function isDryRun(v: unknown): boolean {
  return v === true || v === 'All' || (Array.isArray(v) && v.includes('All'));
}

/** As the real transport does: an API error records the request it answered (`ApiError.request`). */
function withRequest(err: unknown, req: ResourceRequest): unknown {
  if (err instanceof ApiError && err.request === undefined) err.request = failedRequestOf(req);
  return err;
}
