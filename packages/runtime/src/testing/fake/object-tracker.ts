/**
 * An in-memory apiserver for controller unit tests (client-go's `testing.ObjectTracker`, with the apiserver's
 * behaviour): server-owned metadata, optimistic concurrency, validation errors, finalizers, the status and scale
 * subresources, selectors, paging, watches with a bounded history, patches and dry runs.
 *
 * Ownership: the tracker stores deep copies of what it is given and hands out deep copies, so callers can never
 * mutate its state. Errors are thrown synchronously as `ApiError`s with real `Status` bodies. Nothing is retried.
 *
 * Approximations (documented, deliberate): objects are stored per group/version/resource (no conversion between
 * versions); no garbage collection (no `orphan`/`foregroundDeletion` finalizers are added and owner references are
 * not followed); server-side apply tracks ownership of applied fields only (create, update and other patches
 * record no `managedFields` entries; see `fake-apply.ts`); strategic merge patches are
 * treated as JSON merge patches; paged lists continue from the current state rather than a snapshot; list
 * `resourceVersion`/`resourceVersionMatch` and watch `timeoutSeconds` are ignored; field selectors accept any dotted
 * path (the apiserver allows only `metadata.name`, `metadata.namespace` and a CRD's selectable fields).
 * Storing a CustomResourceDefinition serves its versions and establishes it (see `fake-crd.ts`).
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ManagedFieldsEntry } from '../../api/meta/v1/types.js';
import type { Scale } from '../../client/interfaces.js';
import { apiVersionOf, resourceKey, type KubeList, type KubeObject, type PatchType, type ResourceInfo, type Watch } from '../../client/types.js';
import type { Clock } from '../../clock.js';
import { ChangeHub } from './fake-watch.js';
import type { ChangeEvent } from './fake-watch.js';
import { conflict, alreadyExists, badRequest, invalid, notFound, resourceNotFound, resourceNotServed, STALE_OBJECT } from './fake-errors.js';
import {
  addedFinalizers,
  checkPreconditions,
  changesGeneration,
  copyStatus,
  decodeBody,
  generateName,
  goStringSlice,
  keepServerOwnedMeta,
  objectKey,
  placeInNamespace,
  rfc3339,
  validateObjectMeta,
} from './fake-object-rules.js';
import { serveCrds } from './fake-crd.js';
import type { FakeResource } from './fake-resource.js';
import { scaleOf, setPath } from './fake-scale.js';
import { paginate, selectionPredicate } from './fake-selection.js';
import type { SelectionOptions } from './fake-selection.js';
import { applyPatchDocument } from './fake-patch.js';
import { keepManagedFields, serverSideApply } from './fake-apply.js';
import type { CommitObserver, TrackerValidation } from './tracker-hooks.js';
import type { ObjectTrackerOptions, TrackerDeleteOptions, TrackerListOptions, TrackerPatchOptions, TrackerWriteOptions } from './tracker-options.js';
import { openTrackerWatch } from './fake-tracker-watch.js';
import type { TrackerWatchOptions } from './fake-tracker-watch.js';

export type { TrackerWatchOptions } from './fake-tracker-watch.js';
export type { ObjectTrackerOptions, TrackerDeleteOptions, TrackerListOptions, TrackerPatchOptions, TrackerWriteOptions } from './tracker-options.js';

type UpdateMode = 'main' | 'status';

/**
 * The in-memory apiserver behind {@link FakeTransport} (client-go's `testing.ObjectTracker`); see the module comment.
 * `register` the resources it serves, seed objects with `add`; it stores and returns deep copies only.
 */
export class ObjectTracker {
  private readonly registered = new Map<string, FakeResource>();
  private readonly stores = new Map<string, Map<string, KubeObject>>();
  private readonly hub: ChangeHub;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly newUID: () => string;
  private rv = 0;
  private readonly observers: CommitObserver[] = [];
  /** Validates writes of the resources it knows as the apiserver would (pruning, defaults, schema, CEL); unset: none. */
  validation: TrackerValidation | undefined;

  constructor(opts: ObjectTrackerOptions = {}) {
    this.validation = opts.validation;
    this.clock = opts.clock ?? { now: () => Date.now() };
    this.newUID = opts.newUID ?? randomUUID;
    this.hub = new ChangeHub(opts.watchHistorySize ?? 1000);
    serveCrds(this);
  }

  /**
   * Tells `observer` of every object stored or deleted from now on: after the watchers, in the order observers were
   * added. An observer may write to the tracker (its writes are commits of their own). The tracker serves the CRDs
   * stored in it this way.
   */
  onCommit(observer: CommitObserver): void {
    this.observers.push(observer);
  }

  /** Serves these resources from now on (re-registering replaces the subresource config, keeps the objects). */
  register(...resources: FakeResource[]): void {
    for (const r of resources) {
      const key = resourceKey(r);
      this.registered.set(key, { ...r });
      if (!this.stores.has(key)) this.stores.set(key, new Map());
    }
  }

  /** Stops serving these resources and drops their objects (as the apiserver does for a CRD version it no longer serves). */
  unregister(...resources: ResourceInfo[]): void {
    for (const r of resources) {
      this.registered.delete(resourceKey(r));
      this.stores.delete(resourceKey(r));
    }
  }

  resources(): FakeResource[] {
    return [...this.registered.values()].map((r) => ({ ...r }));
  }

  /** The registration of the resource `r` names (by group, version and resource), if it is registered. */
  registration(r: Pick<ResourceInfo, 'group' | 'version' | 'resource'>): FakeResource | undefined {
    const res = this.registered.get(resourceKey(r));
    return res ? { ...res } : undefined;
  }

  /** The registered resource serving objects of this `apiVersion`/`kind`, if any. */
  resourceFor(apiVersion: string, kind: string): FakeResource | undefined {
    for (const r of this.registered.values()) if (apiVersionOf(r) === apiVersion && r.kind === kind) return { ...r };
    return undefined;
  }

  /** The newest resourceVersion handed out (`'0'` before any write). */
  get resourceVersion(): string {
    return String(this.rv);
  }

  /**
   * Seeds objects as they are (status included, no validation), filling in a missing uid, resourceVersion,
   * creationTimestamp and generation. The resource is picked by `apiVersion`/`kind`. Watchers see ADDED events.
   */
  add(...objs: KubeObject[]): void {
    for (const input of objs) {
      const r = this.resourceFor(input.apiVersion ?? '', input.kind ?? '');
      if (!r) throw new Error(`no resource registered for apiVersion "${input.apiVersion}" kind "${input.kind}"`);
      const obj = structuredClone(input);
      const meta = (obj.metadata ??= {});
      if (!meta.name) throw new Error(`cannot seed a ${r.kind} without metadata.name`);
      if (!r.namespaced) delete meta.namespace;
      else if (!meta.namespace) throw new Error(`cannot seed ${r.kind} "${meta.name}" without metadata.namespace`);
      meta.uid ??= this.newUID();
      meta.creationTimestamp ??= rfc3339(this.clock.now());
      meta.generation ??= 1;
      const existing = this.store(r).get(objectKey(meta.namespace, meta.name));
      this.commit(r, obj, existing, existing ? 'MODIFIED' : 'ADDED');
    }
  }

  /** GET of the object; `subresource: 'status'` is the same object, and 404 for a resource without that subresource. */
  get(r: ResourceInfo, namespace: string | undefined, name: string, subresource?: string): KubeObject {
    const res = this.served(r);
    if (subresource && (subresource !== 'status' || !res.statusSubresource)) throw resourceNotFound();
    return structuredClone(this.mustGet(res, namespace, name));
  }

  list(r: ResourceInfo, namespace: string | undefined, opts: TrackerListOptions = {}): KubeList<KubeObject> {
    const res = this.served(r);
    const pred = selectionPredicate(this.ns(res, namespace), opts);
    const store = this.store(res);
    const entries = [...store.keys()].sort().map((k): [string, KubeObject] => [k, store.get(k)!]);
    const { items, metadata } = paginate(entries, pred, opts, this.resourceVersion);
    return { apiVersion: apiVersionOf(res), kind: res.listKind, metadata, items: items.map((o) => structuredClone(o)) };
  }

  /**
   * Opens a watch (see `openTrackerWatch` for the resourceVersion rules). A resourceVersion older than the kept
   * history yields a watch whose only event is an ERROR with a 410 `Expired` Status, as the apiserver streams it.
   */
  watch(r: ResourceInfo, namespace: string | undefined, opts: TrackerWatchOptions = {}): Watch<KubeObject> {
    const res = this.served(r);
    const ns = this.ns(res, namespace);
    const pred = selectionPredicate(ns, opts);
    const key = resourceKey(res);
    const current = [...this.store(res).entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, o]) => o)
      .filter(pred);
    return openTrackerWatch({ hub: this.hub, resourceKey: key, predicate: pred, current, currentRv: this.rv, res, opts });
  }

  create(r: ResourceInfo, namespace: string | undefined, input: KubeObject, opts: TrackerWriteOptions = {}): KubeObject {
    const res = this.served(r);
    let obj = decodeBody(input);
    let meta = (obj.metadata ??= {});
    placeInNamespace(res, meta, namespace);
    if (meta.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    const store = this.store(res);
    if (!meta.name && meta.generateName) {
      meta.name = generateName(meta.generateName);
      for (let i = 0; i < 8 && store.has(objectKey(meta.namespace, meta.name)); i++) meta.name = generateName(meta.generateName);
    }
    obj.apiVersion = apiVersionOf(res);
    obj.kind = res.kind;
    const checked = this.validation?.validate(res, 'create', obj, undefined);
    if (checked) obj = checked.object;
    const causes = checked ? checked.causes : validateObjectMeta(res, meta);
    if (causes.length > 0) throw invalid(res, meta.name ?? '', causes);
    if (store.has(objectKey(meta.namespace, meta.name!))) throw alreadyExists(res, meta.name!);
    meta = (obj.metadata ??= {});
    meta.uid = this.newUID();
    meta.creationTimestamp = rfc3339(this.clock.now());
    meta.generation = 1;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (res.statusSubresource) delete (obj as Record<string, unknown>)['status'];
    if (opts.dryRun) return obj;
    return this.commit(res, obj, undefined, 'ADDED');
  }

  /** PUT of the main resource. With a status subresource, `status` changes are ignored. */
  update(r: ResourceInfo, namespace: string | undefined, input: KubeObject, opts: TrackerWriteOptions = {}): KubeObject {
    return this.updateAs(this.served(r), namespace, input, 'main', opts);
  }

  /** PUT of the status subresource: only `status` is taken from `input`. */
  updateStatus(r: ResourceInfo, namespace: string | undefined, input: KubeObject, opts: TrackerWriteOptions = {}): KubeObject {
    const res = this.served(r);
    if (!res.statusSubresource) throw resourceNotFound();
    return this.updateAs(res, namespace, input, 'status', opts);
  }

  /**
   * PATCH. `merge` (RFC 7386), `json` (RFC 6902), `strategic` (treated as a merge patch) and `apply`: server-side
   * apply with field ownership in `metadata.managedFields`, conflicts, `force` and removal of released fields
   * (`fake-apply.ts` says what is modelled and what is not); it creates the object when absent.
   * The patched object then goes through the same rules as an update (conflict on a stale `resourceVersion` in the
   * patch, generation, status subresource, finalizers).
   */
  patch(
    r: ResourceInfo,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: TrackerPatchOptions = {},
  ): KubeObject | Scale {
    const res = this.served(r);
    const sub = opts.subresource ?? '';
    if (sub !== '' && sub !== 'status' && sub !== 'scale') throw resourceNotFound();
    if (sub === 'status' && !res.statusSubresource) throw resourceNotFound();
    if (type === 'apply' && !opts.fieldManager) {
      throw invalid(res, name, [{ type: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' }]);
    }
    const ns = this.ns(res, namespace);
    if (sub === 'scale') {
      const scale = this.getScale(res, ns, name);
      return this.updateScale(res, ns, name, applyPatchDocument(res, name, type, scale, patch) as Scale, opts);
    }
    const existing = this.store(res).get(objectKey(ns, name));
    if (type === 'apply') return this.apply(res, ns, name, patch, existing, opts);
    if (!existing) throw notFound(res, name);
    const patched = applyPatchDocument(res, name, type, existing, patch) as KubeObject;
    return this.updateAs(res, ns, patched, sub === 'status' ? 'status' : 'main', opts, name);
  }

  /**
   * DELETE. An object with finalizers is only marked (`deletionTimestamp`, `deletionGracePeriodSeconds: 0`) and
   * stays until an update removes its last finalizer. Preconditions that do not hold give 409 Conflict.
   * Returns the object as deleted (or as marked).
   */
  delete(r: ResourceInfo, namespace: string | undefined, name: string, opts: TrackerDeleteOptions = {}): KubeObject {
    const res = this.served(r);
    const existing = this.mustGet(res, namespace, name);
    const meta = existing.metadata ?? {};
    checkPreconditions(res, name, opts.preconditions, meta);
    if ((meta.finalizers ?? []).length > 0) {
      if (meta.deletionTimestamp) return structuredClone(existing);
      const marked = structuredClone(existing);
      marked.metadata!.deletionTimestamp = rfc3339(this.clock.now());
      marked.metadata!.deletionGracePeriodSeconds = 0;
      return opts.dryRun ? marked : this.commit(res, marked, existing, 'MODIFIED');
    }
    return opts.dryRun ? structuredClone(existing) : this.remove(res, existing);
  }

  /** DELETE of every object matching the selectors (each as `delete` would). Returns what was deleted or marked. */
  deleteCollection(
    r: ResourceInfo,
    namespace: string | undefined,
    opts: TrackerWriteOptions & SelectionOptions = {},
  ): KubeList<KubeObject> {
    const res = this.served(r);
    const { items } = this.list(res, namespace, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
    const deleted = items.map((o) => this.delete(res, o.metadata?.namespace, o.metadata!.name!, { dryRun: opts.dryRun }));
    return { apiVersion: apiVersionOf(res), kind: res.listKind, metadata: { resourceVersion: this.resourceVersion }, items: deleted };
  }

  getScale(r: ResourceInfo, namespace: string | undefined, name: string): Scale {
    const res = this.served(r);
    if (!res.scale) throw resourceNotFound();
    return scaleOf(this.mustGet(res, namespace, name), res.scale);
  }

  /** Sets the spec replicas path from `scale.spec.replicas`; a `metadata.resourceVersion` on the Scale is a precondition. */
  updateScale(r: ResourceInfo, namespace: string | undefined, name: string, scale: Scale, opts: TrackerWriteOptions = {}): Scale {
    const res = this.served(r);
    if (!res.scale) throw resourceNotFound();
    const existing = this.mustGet(res, namespace, name);
    const replicas = scale.spec?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw invalid({ ...res, group: 'autoscaling', kind: 'Scale' }, name, [
        { type: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` },
      ]);
    }
    const next = structuredClone(existing);
    setPath(next as Record<string, unknown>, res.scale.specReplicasPath, replicas);
    next.metadata!.resourceVersion = scale.metadata?.resourceVersion || existing.metadata?.resourceVersion;
    return scaleOf(this.updateAs(res, namespace, next, 'main', opts, name), res.scale);
  }

  /** Number of open watches (for tests of code that must stop its watches). */
  get openWatches(): number {
    return this.hub.subscriberCount;
  }

  // ---- internals ----

  /** Server-side apply (see `fake-apply.ts`): creates the object when absent (not through `status`), else updates it. */
  private apply(res: FakeResource, ns: string | undefined, name: string, body: unknown, existing: KubeObject | undefined, opts: TrackerPatchOptions): KubeObject {
    const sub = opts.subresource === 'status' ? 'status' : '';
    if (!existing && sub) throw notFound(res, name);
    const config = decodeBody(body);
    if (!existing) config.metadata = { ...config.metadata, name };
    const obj = serverSideApply({
      res,
      live: existing,
      config,
      manager: opts.fieldManager!,
      force: opts.force === true,
      subresource: sub,
      now: rfc3339(this.clock.now()),
      apiVersion: apiVersionOf(res),
    });
    if (!existing) return this.create(res, ns, obj, opts);
    // The apply decides managedFields: none left (a manager that applied nothing, alone) is none, not the stored ones.
    return this.updateAs(res, ns, obj, sub === 'status' ? 'status' : 'main', opts, name, obj.metadata?.managedFields ?? []);
  }

  private updateAs(
    res: FakeResource,
    namespace: string | undefined,
    input: KubeObject,
    mode: UpdateMode,
    opts: TrackerWriteOptions,
    urlName?: string,
    managedFields?: ManagedFieldsEntry[],
  ): KubeObject {
    const candidate = decodeBody(input);
    const meta = (candidate.metadata ??= {});
    const name = urlName ?? meta.name ?? '';
    if (meta.name !== name) {
      throw badRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`);
    }
    placeInNamespace(res, meta, namespace);
    const existing = this.mustGet(res, meta.namespace, name);
    const stored = existing.metadata ?? {};
    if (meta.resourceVersion && meta.resourceVersion !== stored.resourceVersion) throw conflict(res, name, STALE_OBJECT);
    if (meta.uid && meta.uid !== stored.uid) {
      throw conflict(res, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${stored.uid ?? ''}`);
    }
    let next: KubeObject;
    if (mode === 'status') {
      next = structuredClone(existing);
      copyStatus(next, candidate);
    } else {
      next = candidate;
      if (res.statusSubresource) copyStatus(next, existing);
      keepServerOwnedMeta(next, existing);
      keepManagedFields(next, existing);
      next.apiVersion = apiVersionOf(res);
      next.kind = res.kind;
    }
    if (managedFields && managedFields.length > 0) next.metadata!.managedFields = managedFields;
    else if (managedFields) delete next.metadata!.managedFields;
    next.metadata!.resourceVersion = stored.resourceVersion;
    const checked = this.validation?.validate(res, mode === 'status' ? 'status' : 'update', next, existing, managedFields !== undefined);
    if (checked) next = checked.object;
    const causes = checked ? checked.causes : validateObjectMeta(res, next.metadata!);
    if (stored.deletionTimestamp) {
      const added = addedFinalizers(existing, next);
      if (added.length > 0) {
        causes.push({
          type: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`,
        });
      }
    }
    if (causes.length > 0) throw invalid(res, name, causes);
    if (changesGeneration(existing, next, !!res.statusSubresource)) next.metadata!.generation = (stored.generation ?? 0) + 1;
    if (stored.deletionTimestamp && (next.metadata!.finalizers ?? []).length === 0) {
      if (opts.dryRun) return next;
      this.remove(res, existing);
      next.metadata!.resourceVersion = this.resourceVersion;
      return next;
    }
    // A no-op write is not persisted: no new resourceVersion, no watch event (as etcd3's GuaranteedUpdate).
    if (isDeepStrictEqual(next, existing) || opts.dryRun) return structuredClone(next);
    return this.commit(res, next, existing, 'MODIFIED');
  }

  /** Stores `obj` under a new resourceVersion and notifies watchers. Returns a copy of what was stored. */
  private commit(res: FakeResource, obj: KubeObject, prev: KubeObject | undefined, type: 'ADDED' | 'MODIFIED'): KubeObject {
    const stored = structuredClone(obj);
    stored.metadata!.resourceVersion = String(++this.rv);
    this.store(res).set(objectKey(stored.metadata!.namespace, stored.metadata!.name!), stored);
    this.publish(res, type, stored, prev);
    for (const observer of this.observers) observer({ res, obj: stored, prev });
    return structuredClone(stored);
  }

  /** Removes a stored object; the DELETED event carries its last state under the deletion's resourceVersion. */
  private remove(res: FakeResource, existing: KubeObject): KubeObject {
    const gone = structuredClone(existing);
    gone.metadata!.resourceVersion = String(++this.rv);
    this.store(res).delete(objectKey(gone.metadata!.namespace, gone.metadata!.name!));
    this.publish(res, 'DELETED', gone, existing);
    for (const observer of this.observers) observer({ res, obj: undefined, prev: existing });
    return structuredClone(gone);
  }

  private publish(res: FakeResource, type: ChangeEvent['type'], object: KubeObject, prev: KubeObject | undefined): void {
    const ev: ChangeEvent = { rv: this.rv, resourceKey: resourceKey(res), namespace: object.metadata?.namespace ?? '', type, object };
    if (prev) ev.prev = prev;
    this.hub.publish(ev);
  }

  private served(r: ResourceInfo): FakeResource {
    const res = this.registered.get(resourceKey(r));
    if (!res) throw resourceNotServed(r, [...this.registered.values()]);
    return res;
  }

  private store(res: FakeResource): Map<string, KubeObject> {
    return this.stores.get(resourceKey(res))!;
  }

  private ns(res: FakeResource, namespace: string | undefined): string | undefined {
    return res.namespaced && namespace ? namespace : undefined;
  }

  private mustGet(res: FakeResource, namespace: string | undefined, name: string): KubeObject {
    const obj = this.store(res).get(objectKey(this.ns(res, namespace), name));
    if (!obj) throw notFound(res, name);
    return obj;
  }

}
