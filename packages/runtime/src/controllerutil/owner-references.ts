/**
 * Owner references (controller-runtime `controllerutil`): who owns an object, and which owner is its controller.
 *
 * The setters mutate `object.metadata.ownerReferences` in place (the caller owns `object`, typically a copy about to
 * be written); the owner is only read. Two references point at the same owner when their API group (not version),
 * kind and name match, as in controller-runtime; `isControlledBy` compares UIDs, as `metav1.IsControlledBy` does.
 */
import type { KubeObject, OwnerReference } from '../client/types.js';

/** The object already has a controller that is not the one being set (`controllerutil.AlreadyOwnedError`). */
export class AlreadyOwnedError extends Error {
  readonly object: KubeObject;
  readonly owner: OwnerReference;
  constructor(object: KubeObject, owner: OwnerReference) {
    const m = object.metadata ?? {};
    super(`Object ${m.namespace ? `${m.namespace}/` : ''}${m.name ?? ''} is already owned by another ${owner.kind} controller ${owner.name}`);
    this.name = 'AlreadyOwnedError';
    this.object = object;
    this.owner = owner;
  }
}

/** Options of `setControllerReference` and `setOwnerReference` (controller-runtime's `OwnerReferenceOption`). */
export interface OwnerReferenceOptions {
  /** Set `blockOwnerDeletion` (default true for controller references, unset for plain owner references). */
  blockOwnerDeletion?: boolean;
}

/**
 * Makes `owner` the controller of `object`: adds (or replaces the same-owner entry with) an ownerReference with
 * `controller: true` and `blockOwnerDeletion: true`. Throws {@link AlreadyOwnedError} when another owner is the
 * controller, and an Error when the owner lacks apiVersion/kind/name/uid or the scopes don't allow the reference
 * (a namespaced owner can only own objects in its own namespace, never cluster-scoped ones).
 */
export function setControllerReference(owner: KubeObject, object: KubeObject, opts: OwnerReferenceOptions = {}): void {
  const ref: OwnerReference = { ...referenceTo(owner), blockOwnerDeletion: opts.blockOwnerDeletion ?? true, controller: true };
  const existing = getControllerOf(object);
  if (existing !== undefined && !referSameObject(existing, ref)) throw new AlreadyOwnedError(object, existing);
  validateOwner(owner, object);
  upsertOwnerReference(object, ref);
}

/** Adds `owner` as a (non-controller) owner of `object`, replacing an entry for the same owner. */
export function setOwnerReference(owner: KubeObject, object: KubeObject, opts: OwnerReferenceOptions = {}): void {
  const ref: OwnerReference = referenceTo(owner);
  if (opts.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = opts.blockOwnerDeletion;
  validateOwner(owner, object);
  upsertOwnerReference(object, ref);
}

/** Removes the reference to `owner`; returns whether one was removed. */
export function removeOwnerReference(owner: KubeObject, object: KubeObject): boolean {
  const refs = object.metadata?.ownerReferences ?? [];
  const target = referenceTo(owner, false);
  const kept = refs.filter((r) => !referSameObject(r, target));
  if (kept.length === refs.length) return false;
  object.metadata!.ownerReferences = kept;
  return true;
}

/** The ownerReference with `controller: true`, if any (`metav1.GetControllerOf`). */
export function getControllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** Whether `owner` (by UID) is the controller of `object` (`metav1.IsControlledBy`). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const ref = getControllerOf(object);
  return ref !== undefined && ref.uid !== '' && ref.uid === owner.metadata?.uid;
}

/** Whether `object` has any controller reference. */
export function hasControllerReference(object: KubeObject): boolean {
  return getControllerOf(object) !== undefined;
}

/** Whether `object` lists `owner` (same group, kind and name) among its owners. */
export function hasOwnerReference(owner: KubeObject, object: KubeObject): boolean {
  const target = referenceTo(owner, false);
  return (object.metadata?.ownerReferences ?? []).some((r) => referSameObject(r, target));
}

function referenceTo(owner: KubeObject, requireUid = true): OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind) throw new Error('the owner needs apiVersion and kind to be referenced');
  if (!name) throw new Error('the owner needs metadata.name to be referenced');
  if (requireUid && !uid) throw new Error(`the owner ${kind} ${name} has no metadata.uid (read it from the API first)`);
  return { apiVersion, kind, name, uid: uid ?? '' };
}

function validateOwner(owner: KubeObject, object: KubeObject): void {
  const ownerNs = owner.metadata?.namespace ?? '';
  if (ownerNs === '') return;
  const objNs = object.metadata?.namespace ?? '';
  if (objNs === '') {
    throw new Error(`cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`);
  }
  if (objNs !== ownerNs) {
    throw new Error(`cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`);
  }
}

function upsertOwnerReference(object: KubeObject, ref: OwnerReference): void {
  object.metadata ??= {};
  const refs = [...(object.metadata.ownerReferences ?? [])];
  const i = refs.findIndex((r) => referSameObject(r, ref));
  if (i < 0) refs.push(ref);
  else refs[i] = ref;
  object.metadata.ownerReferences = refs;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function referSameObject(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}
