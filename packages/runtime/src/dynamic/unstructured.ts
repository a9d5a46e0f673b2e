/**
 * Objects of kinds known only at run time (apimachinery's `unstructured.Unstructured`, kube-rs's `DynamicObject`):
 * plain JSON with the fields every Kubernetes object has typed (`apiVersion`, `kind`, `metadata`) and any others as
 * `unknown`. Read and write their other fields with the nested helpers (nested.ts); turn one into a typed object
 * with {@link fromUnstructured} when the caller has a type for it.
 */
import { deepCopyJSON } from '../deepcopy.js';
import type { KubeList, KubeObject, ListMeta } from '../client/types.js';
import { groupVersionString, parseGroupVersion, type GroupVersionKind } from '../discovery/types.js';

/** An object of any kind: `apiVersion`, `kind`, `metadata`, and any other fields as JSON values. */
export interface Unstructured extends KubeObject {
  [field: string]: unknown;
}

/** A list of objects of any kind (`FooList`): `items`, list metadata, and any other fields. */
export interface UnstructuredList extends KubeList<Unstructured> {
  metadata?: ListMeta;
  [field: string]: unknown;
}

/** The kind of `obj` from its `apiVersion` and `kind` (empty strings for what it lacks). */
export function groupVersionKindOf(obj: KubeObject): GroupVersionKind {
  const { group, version } = parseGroupVersion(obj.apiVersion ?? '');
  return { group, version, kind: obj.kind ?? '' };
}

/** `Foo.samplecontroller.k8s.io/v1alpha1`, `ConfigMap/v1`: how messages name a kind. */
function describeKind(gvk: GroupVersionKind): string {
  return `${gvk.kind}${gvk.group ? `.${gvk.group}` : ''}/${gvk.version}`;
}

/** True when `obj` has `gvk`'s `apiVersion` and `kind` (a type guard: the caller vouches that `T` is that kind's type). */
export function isObjectOfKind<T extends KubeObject>(obj: KubeObject, gvk: GroupVersionKind): obj is T {
  return obj.apiVersion === groupVersionString(gvk) && obj.kind === gvk.kind;
}

/**
 * A deep copy of `obj` typed as `T`, after checking that it is of kind `gvk` (its `apiVersion` and `kind`): throws a
 * `TypeError` naming both kinds when it is not. Only the kind is checked, not the fields: `T` is the caller's
 * promise about the rest (kube-rs `DynamicObject::try_parse` checks the fields through serde; TypeScript types do not
 * exist at run time).
 */
export function fromUnstructured<T extends KubeObject>(obj: Unstructured, gvk: GroupVersionKind): T {
  if (!isObjectOfKind<T>(obj, gvk)) {
    const name = obj.metadata?.name ? ` ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}` : '';
    throw new TypeError(`expected an object of kind ${describeKind(gvk)}, found ${obj.kind || '(no kind)'}${name} of apiVersion ${obj.apiVersion || '(none)'}`);
  }
  return deepCopyJSON(obj as KubeObject) as T;
}

/**
 * A deep copy of a typed object as an `Unstructured`. With `gvk`, a missing `apiVersion`/`kind` is filled in (typed
 * objects often leave them out; the server and the dynamic client need them) and a different one is a `TypeError`.
 */
export function toUnstructured(obj: KubeObject, gvk?: GroupVersionKind): Unstructured {
  const out = deepCopyJSON(obj) as Unstructured;
  if (!gvk) return out;
  out.apiVersion ??= groupVersionString(gvk);
  out.kind ??= gvk.kind;
  if (out.apiVersion !== groupVersionString(gvk) || out.kind !== gvk.kind) {
    throw new TypeError(`expected an object of kind ${describeKind(gvk)}, found ${out.kind} of apiVersion ${out.apiVersion}`);
  }
  return out;
}

/**
 * Sets `apiVersion` and `kind` on items that have neither, from the list's (`ConfigMapList` → `ConfigMap`), as
 * apimachinery's unstructured list decoder does: the apiserver leaves them out of built-in kinds' list items.
 * Mutates and returns `list`. A list whose kind does not end in `List` (or is just `List`) is left as it is.
 */
export function setListItemKinds(list: UnstructuredList): UnstructuredList {
  const listKind = list.kind ?? '';
  if (!listKind.endsWith('List') || listKind === 'List') return list;
  const kind = listKind.slice(0, -'List'.length);
  for (const item of list.items ?? []) {
    if (item === null || typeof item !== 'object') continue;
    if (item.apiVersion || item.kind) continue;
    if (list.apiVersion) item.apiVersion = list.apiVersion;
    item.kind = kind;
  }
  return list;
}
