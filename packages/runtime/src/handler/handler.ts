/**
 * Event handlers (controller-runtime `pkg/handler`): turn a watched object's create/update/delete/generic event into
 * zero or more reconcile requests added to the controller's queue. Handlers only read the objects they are given.
 * Delete events may carry a `DeletedFinalStateUnknown` tombstone; every handler here unwraps it.
 */
import { objectFromDeleted, type DeletedFinalStateUnknown } from '../cache/keys.js';
import type { KubeObject } from '../client/types.js';
import type { Request } from '../reconcile/index.js';
import { LOW_PRIORITY, type AddOptions } from '../workqueue/priority-queue.js';

/** Where handlers put requests (the controller's queue; duplicates are collapsed there). */
export interface RequestSink {
  add(request: Request): void;
  /**
   * Adds `requests` with a delay, rate limiting or a priority (the controller's priority queue: see `AddOptions`).
   * Optional: a sink without it takes `add` (the options are then lost).
   */
  addWithOpts?(opts: AddOptions, ...requests: Request[]): void;
}

/** What a create event tells besides the object (controller-runtime's `CreateEvent.IsInInitialList`). */
export interface CreateEventInfo {
  /** The object came with the informer's initial list (or, for a handler added later, was already cached). */
  isInInitialList: boolean;
}

/**
 * Turns a watched object's events into reconcile requests (controller-runtime's `handler.EventHandler`). Every
 * method is optional (a missing one drops that event). They only read the objects; a throw is logged and skipped.
 * A controller's sources give every handler {@link withLowPriorityWhenUnchanged}.
 */
export interface EventHandler<T extends KubeObject = KubeObject> {
  create?(obj: T, sink: RequestSink, event?: CreateEventInfo): void;
  update?(oldObj: T, newObj: T, sink: RequestSink): void;
  delete?(obj: T | DeletedFinalStateUnknown<T>, sink: RequestSink): void;
  generic?(obj: T, sink: RequestSink): void;
}

/** Adds through `sink.addWithOpts` when it has it, else through `add` (dropping `opts`). */
export function addWithOpts(sink: RequestSink, opts: AddOptions, ...requests: Request[]): void {
  if (sink.addWithOpts) sink.addWithOpts(opts, ...requests);
  else for (const r of requests) sink.add(r);
}

/** A sink that gives requests added without a priority `priority`, and otherwise passes them to `sink`. */
export function sinkWithDefaultPriority(sink: RequestSink, priority: number): RequestSink {
  return {
    add: (r) => addWithOpts(sink, { priority }, r),
    addWithOpts: (opts, ...rs) => addWithOpts(sink, opts.priority === undefined ? { ...opts, priority } : opts, ...rs),
  };
}

/**
 * controller-runtime's `handler.WithLowPriorityWhenUnchanged`: requests a create event of the initial list adds, and
 * those of an update whose resourceVersion did not change (a resync), get {@link LOW_PRIORITY} (-100) unless the
 * handler gives a priority itself; so on a priority queue a new or changed object is reconciled before the backlog
 * of a (re)start. Other events, and FIFO queues, are unaffected. A controller's sources apply it to every handler.
 */
export function withLowPriorityWhenUnchanged<T extends KubeObject>(handler: EventHandler<T>): EventHandler<T> {
  // Methods are read and called on `handler` (it may be a class instance), never copied off it.
  const wrapped: EventHandler<T> = {};
  if (handler.create) {
    wrapped.create = (obj, sink, event) =>
      handler.create!(obj, event?.isInInitialList ? sinkWithDefaultPriority(sink, LOW_PRIORITY) : sink, event);
  }
  if (handler.update) {
    wrapped.update = (oldObj, newObj, sink) => {
      const rv = oldObj?.metadata?.resourceVersion;
      const unchanged = rv !== undefined && rv === newObj?.metadata?.resourceVersion;
      handler.update!(oldObj, newObj, unchanged ? sinkWithDefaultPriority(sink, LOW_PRIORITY) : sink);
    };
  }
  if (handler.delete) wrapped.delete = (obj, sink) => handler.delete!(obj, sink);
  if (handler.generic) wrapped.generic = (obj, sink) => handler.generic!(obj, sink);
  return wrapped;
}

/** Builds a handler that maps every event's object(s) through `map` (update: old and new). */
function fromMap<T extends KubeObject>(map: (obj: T) => Request[]): EventHandler<T> {
  const put = (obj: T, sink: RequestSink): void => {
    for (const r of map(obj)) sink.add(r);
  };
  return {
    create: put,
    update: (o, n, sink) => {
      put(o, sink);
      put(n, sink);
    },
    delete: (o, sink) => put(objectFromDeleted(o), sink),
    generic: put,
  };
}

/** `EnqueueRequestForObject`: the object's own namespace/name. Objects without a name are skipped. */
export function enqueueForObject<T extends KubeObject = KubeObject>(): EventHandler<T> {
  const own = (obj: T): Request[] => {
    const name = obj.metadata?.name;
    return name ? [{ namespace: obj.metadata?.namespace ?? '', name }] : [];
  };
  return {
    create: (o, sink) => own(o).forEach((r) => sink.add(r)),
    // Old and new share the key; enqueue it once.
    update: (_o, n, sink) => own(n).forEach((r) => sink.add(r)),
    delete: (o, sink) => own(objectFromDeleted(o)).forEach((r) => sink.add(r)),
    generic: (o, sink) => own(o).forEach((r) => sink.add(r)),
  };
}

/** The owner kind to follow: a `ResourceInfo` fits (`group`, `kind`, `namespaced`), or give `apiVersion` + `kind`. */
export interface OwnerType {
  kind: string;
  /** API group ('' = core). Used when `apiVersion` is not given. */
  group?: string;
  /** `group/version` or `v1`; only its group is compared (owners of any version match, as in controller-runtime). */
  apiVersion?: string;
  /** Whether the owner kind is namespaced (default true): its request takes the dependent's namespace, else ''. */
  namespaced?: boolean;
}

/** Options of {@link enqueueForOwner} (controller-runtime's `handler.EnqueueRequestForOwner` options). */
export interface EnqueueForOwnerOptions {
  /** Only follow the owner reference marked `controller: true` (`OnlyControllerOwner()`). Default false. */
  onlyControllers?: boolean;
}

/** `EnqueueRequestForOwner`: for each owner reference of `owner`'s group and kind, a request for the owner. */
export function enqueueForOwner<T extends KubeObject = KubeObject>(owner: OwnerType, opts: EnqueueForOwnerOptions = {}): EventHandler<T> {
  const group = owner.apiVersion !== undefined ? groupOf(owner.apiVersion) : (owner.group ?? '');
  return fromMap((obj) => {
    // Read at each event: an owner kind resolved through the RESTMapper learns its scope when its source starts.
    const namespaced = owner.namespaced ?? true;
    const out: Request[] = [];
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (ref.kind !== owner.kind || groupOf(ref.apiVersion) !== group) continue;
      if (opts.onlyControllers && ref.controller !== true) continue;
      out.push({ namespace: namespaced ? (obj.metadata?.namespace ?? '') : '', name: ref.name });
    }
    return out;
  });
}

/** `EnqueueRequestsFromMapFunc`: whatever `fn` returns for the object (old and new on update). `fn` must not throw. */
export function enqueueMapped<T extends KubeObject = KubeObject>(fn: (obj: T) => Request[]): EventHandler<T> {
  return fromMap(fn);
}

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}
