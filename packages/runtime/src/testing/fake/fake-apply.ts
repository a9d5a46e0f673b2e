/**
 * Server-side apply for the fake tracker: merge, field ownership in `metadata.managedFields` (`FieldsV1`, operation
 * `Apply`), conflicts, `force`, and removal of fields a manager stopped applying — the apiserver's rules
 * (structured-merge-diff) for the part of them a unit test meets.
 *
 * Modelled:
 * - Objects and maps merge field by field unless the resource's descriptor lists them as atomic (`atomicObjects`,
 *   from `x-kubernetes-map-type: atomic`: a label selector, an object reference), which are replaced whole and owned
 *   as one field. Lists are atomic unless the descriptor lists them as associative (`associativeLists`, from
 *   `x-kubernetes-list-type`): list-map entries merge by their keys, sets by value. `metadata.ownerReferences` (by
 *   uid, each reference atomic) and `metadata.finalizers` (a set) are associative too. The generated descriptors of
 *   built-in kinds carry structured-merge-diff's schema of client-go (containers and env by `name`, ports by
 *   `containerPort` and `protocol`, conditions by `type` …).
 * - The applier owns every leaf and list entry of its configuration (in `metadata`: labels, annotations, owner
 *   references, finalizers). Applying a value equal to the live one shares ownership with the other owners.
 * - A field another manager owns whose value the apply would change is a conflict: 409 `ApplyConflictError`, with
 *   one `FieldManagerConflict` cause per field and the apiserver's messages. With `force` the fields move to the
 *   applier instead.
 * - A field the manager applied before and leaves out now is released, and removed from the object when nobody
 *   else owns it (or anything below it), with the objects that removal leaves empty; a list-map entry's key fields
 *   stay while the entry does. An object the configuration gives as `{}` that the removal leaves empty becomes
 *   `null` (structured-merge-diff's result: the apiserver then refuses it where the schema is not nullable).
 * - `managedFields` is sorted as the apiserver sorts it; the applier's `time` moves only when the object changes.
 * - With a status subresource, an apply to the main resource ignores (and owns nothing of) `status`, and one to the
 *   `status` subresource takes only `status`; its entry carries `subresource: status`.
 *
 * Not modelled: ownership by create, update and non-apply patches (they record no `Update` entries, so they never
 * conflict with an applier and never take fields from one; a write whose body has no `managedFields` keeps the
 * stored ones); schema defaults other than of list-map keys (those come from `associativeLists`); a map key whose
 * value is an object is not owned as such (the tracker cannot tell a map from a struct); `null` in a configuration
 * removes the field without owning it. New list entries are appended, as the apiserver does.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApplyConflictError, newStatus } from '../../client/errors.js';
import type { KubeObject } from '../../client/types.js';
import { ApplyTypes, comparePaths, fieldSetOf, fromFieldsV1, keyElement, pathString, removeAt, schemaPathOf, toFieldsV1, valueAt } from './fake-fieldset.js';
import type { FieldPath, FieldSet } from './fake-fieldset.js';
import type { FakeResource } from './fake-resource.js';
import { builtinMergeSchema } from '../../api/merge-schemas.js';

/** meta/v1 `ManagedFieldsEntry` as the tracker writes it. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** One server-side apply: the stored object (absent: the apply creates it), the configuration, who and how. */
export interface ApplyRequest {
  res: FakeResource;
  live: KubeObject | undefined;
  config: KubeObject;
  manager: string;
  force: boolean;
  /** `status` for an apply to the status subresource. */
  subresource: '' | 'status';
  /** RFC 3339 time for the manager's entry. */
  now: string;
  apiVersion: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The object after the apply (a new object; the live one is not mutated), its `metadata.managedFields` updated.
 * Throws an `ApplyConflictError` on conflicts unless `force`. Server-owned metadata, validation and storage are
 * the tracker's business.
 */
export function serverSideApply(req: ApplyRequest): KubeObject {
  // A built-in kind's descriptor carries no merge schema: the built-in API keeps it apart for the fake.
  const own = req.res.associativeLists !== undefined || req.res.atomicObjects !== undefined;
  const schema = own ? req.res : (builtinMergeSchema(req.res.group ? `${req.res.group}/${req.res.version}` : req.res.version, req.res.kind) ?? req.res);
  const types = new ApplyTypes(schema.associativeLists, schema.atomicObjects);
  const config = scoped(req);
  const applied = fieldSetOf(config as Record<string, unknown>, types);
  const live = req.live ?? {};
  const entries = ((live.metadata?.managedFields ?? []) as ManagedFieldsEntry[]).map((e) => ({ entry: e, set: fromFieldsV1(e.fieldsV1) }));
  const mine = entries.find((e) => isManager(e.entry, req.manager, req.subresource));
  const others = entries.filter((e) => e !== mine);
  const merged = mergeValue(live, config, [], types) as KubeObject;

  const conflicts: { path: FieldPath; entry: ManagedFieldsEntry }[] = [];
  for (const o of others) {
    for (const [k, p] of applied) if (o.set.has(k) && changed(live, merged, p, types)) conflicts.push({ path: p, entry: o.entry });
  }
  if (conflicts.length > 0 && !req.force) throw conflictError(conflicts);
  for (const c of conflicts) for (const o of others) if (o.entry === c.entry) o.set.delete(JSON.stringify(c.path));

  const released = [...(mine?.set ?? new Map<string, FieldPath>()).entries()].filter(([k]) => !applied.has(k)).map(([, p]) => p);
  released.sort((a, b) => b.length - a.length);
  // A released object stays while anyone owns it or anything below it, this apply included (`spec` applied as `{}`,
  // then as `{value: 1}`: `spec` itself is released, `spec.value` applied).
  const owned = (p: FieldPath): boolean => others.some((o) => ownsAtOrBelow(o.set, p)) || ownsAtOrBelow(applied, p);
  for (const p of released) {
    if (owned(p) || isRetainedKeyField(merged, p)) continue;
    removeAt(merged, p);
    // An object left empty by the removal goes too, unless someone owns it as such. One this configuration gives as
    // `{}` becomes null, as structured-merge-diff leaves it (the 1.36 apiserver then refuses a non-nullable one).
    for (let up = p.slice(0, -1); up.length > 0 && up[up.length - 1]!.startsWith('f:') && up[0] !== 'f:metadata'; up = up.slice(0, -1)) {
      const at = valueAt(merged, up);
      if (!at.found || !isObject(at.value) || Object.keys(at.value).length > 0) break;
      if (applied.has(JSON.stringify(up))) (valueAt(merged, up.slice(0, -1)).value as Record<string, unknown>)[up[up.length - 1]!.slice(2)] = null;
      if (owned(up)) break;
      removeAt(merged, up);
    }
  }

  // As the apiserver: the applier's time moves only when the object changes; a new entry of a no-op has none.
  const objectChanged = !req.live || !isDeepStrictEqual(withoutManagedFields(req.live), withoutManagedFields(merged));
  const entry: ManagedFieldsEntry = { manager: req.manager, operation: 'Apply', apiVersion: req.apiVersion, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(applied) };
  const time = objectChanged ? req.now : mine?.entry.time;
  if (time) entry.time = time;
  if (req.subresource) entry.subresource = req.subresource;
  const next = others.filter((o) => o.set.size > 0).map((o) => ({ ...o.entry, fieldsV1: toFieldsV1(o.set) }));
  if (applied.size > 0) next.push(entry);
  next.sort(compareEntries);
  const meta = (merged.metadata ??= {});
  if (next.length > 0) meta.managedFields = next;
  else delete meta.managedFields;
  return merged;
}

function withoutManagedFields(o: KubeObject): KubeObject {
  const { managedFields: _m, ...meta } = o.metadata ?? {};
  return { ...o, metadata: meta };
}

/** The apiserver's order of `managedFields` (`sortEncodedManagedFields`): operation, time, manager, apiVersion, subresource. */
function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  const seconds = (e: ManagedFieldsEntry): number => (e.time ? Date.parse(e.time) / 1000 : 0);
  const str = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return (
    str(p.operation, q.operation) ||
    seconds(p) - seconds(q) ||
    str(p.manager, q.manager) ||
    str(p.apiVersion, q.apiVersion) ||
    str(p.subresource ?? '', q.subresource ?? '')
  );
}

/** A write whose body has no `managedFields` keeps the stored ones, as the apiserver does. Mutates `next`. */
export function keepManagedFields(next: KubeObject, stored: KubeObject): void {
  const kept = stored.metadata?.managedFields;
  if (kept && next.metadata && next.metadata.managedFields === undefined) next.metadata.managedFields = structuredClone(kept);
}

function isManager(e: ManagedFieldsEntry, manager: string, subresource: string): boolean {
  return e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === subresource;
}

/** The part of the configuration this apply may set: `status` only for the status subresource, no `status` on the main resource when it has one. */
function scoped(req: ApplyRequest): KubeObject {
  const { status, ...rest } = structuredClone(req.config) as Record<string, unknown>;
  if (req.subresource === 'status') {
    const meta = isObject(rest['metadata']) ? rest['metadata'] : {};
    const identity: Record<string, unknown> = {};
    for (const k of ['name', 'namespace', 'resourceVersion', 'uid']) if (meta[k] !== undefined) identity[k] = meta[k];
    return { metadata: identity, ...(status !== undefined ? { status } : {}) } as KubeObject;
  }
  if (req.res.statusSubresource || status === undefined) return rest as KubeObject;
  return { ...rest, status } as KubeObject;
}

/** Merges an applied value into a live one: objects by field, associative lists by key or value, the rest (atomic objects too) replaced. */
function mergeValue(live: unknown, applied: unknown, schemaPath: string[], types: ApplyTypes): unknown {
  if (isObject(applied) && !types.isAtomic(schemaPath)) {
    const out: Record<string, unknown> = isObject(live) ? structuredClone(live) : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === undefined) continue;
      if (v === null) delete out[k];
      else out[k] = mergeValue(out[k], v, [...schemaPath, k], types);
    }
    return out;
  }
  if (Array.isArray(applied)) {
    const list = types.at(schemaPath);
    if (!list) return structuredClone(applied);
    const out: unknown[] = Array.isArray(live) ? structuredClone(live) : [];
    for (const item of applied) {
      if (!list.keys) {
        if (!out.some((x) => isDeepStrictEqual(x, item))) out.push(structuredClone(item));
        continue;
      }
      const el = keyElement(item, list.keys, list.keyDefaults);
      const i = out.findIndex((x) => keyElement(x, list.keys!, list.keyDefaults) === el);
      const value = mergeValue(i < 0 ? undefined : out[i], item, [...schemaPath, '[]'], types);
      if (i >= 0) out[i] = value;
      else out.push(isObject(value) ? { ...defaultedKeys(value, list.keys, list.keyDefaults), ...value } : value);
    }
    return out;
  }
  return applied;
}

/** The defaults of the keys `entry` lacks (the apiserver defaults them; nobody owns them). */
function defaultedKeys(entry: Record<string, unknown>, keys: readonly string[], defaults: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => entry[k] === undefined && defaults[k] !== undefined).map((k) => [k, structuredClone(defaults[k])]));
}

/**
 * Whether the apply changes what `p` names: a leaf's value (scalars, atomic lists, atomic objects and list entries),
 * or for a list entry, a set value or an object, whether it is there at all (what is inside an object counts at its
 * own leaves).
 */
function changed(live: unknown, merged: unknown, p: FieldPath, types: ApplyTypes): boolean {
  const a = valueAt(live, p);
  const b = valueAt(merged, p);
  if (a.found !== b.found) return true;
  if (!a.found) return false;
  if (types.isAtomic(schemaPathOf(p))) return !isDeepStrictEqual(a.value, b.value);
  if (!p[p.length - 1]!.startsWith('f:') || isObject(a.value) || isObject(b.value)) return false;
  return !isDeepStrictEqual(a.value, b.value);
}

function ownsAtOrBelow(set: FieldSet, p: FieldPath): boolean {
  for (const q of set.values()) if (q.length >= p.length && p.every((el, i) => q[i] === el)) return true;
  return false;
}

/** A key field of a list-map entry that is still in the object: it goes only with its entry. */
function isRetainedKeyField(obj: unknown, p: FieldPath): boolean {
  const last = p[p.length - 1]!;
  const parent = p[p.length - 2];
  if (!parent?.startsWith('k:') || !last.startsWith('f:')) return false;
  const keys = Object.keys(JSON.parse(parent.slice(2)) as Record<string, unknown>);
  return keys.includes(last.slice(2)) && valueAt(obj, p.slice(0, -1)).found;
}

/** How the apiserver names a manager in a conflict (`printManager`): quoted, with its subresource, an updater with its apiVersion. */
function printManager(e: ManagedFieldsEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/**
 * The apiserver's apply conflict (`internal.NewConflictError`): one cause per field (its type under `reason`, as
 * on the wire), managers in name order, each one's fields in structured-merge-diff's set order.
 */
function conflictError(conflicts: { path: FieldPath; entry: ManagedFieldsEntry }[]): ApplyConflictError {
  const rows = conflicts
    .map((c) => ({ manager: printManager(c.entry), path: c.path, field: pathString(c.path) }))
    .sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : comparePaths(a.path, b.path)));
  const causes = rows.map((r) => ({ reason: 'FieldManagerConflict', message: `conflict with ${r.manager}`, field: r.field }));
  let message: string;
  if (rows.length === 1) message = `Apply failed with 1 conflict: conflict with ${rows[0]!.manager}: ${rows[0]!.field}`;
  else {
    const lines: string[] = [];
    for (const m of [...new Set(rows.map((r) => r.manager))]) {
      lines.push(`conflicts with ${m}:`, ...rows.filter((r) => r.manager === m).map((r) => `- ${r.field}`));
    }
    message = `Apply failed with ${rows.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApplyConflictError(newStatus(409, 'Conflict', message, { causes }));
}
