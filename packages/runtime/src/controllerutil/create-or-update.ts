/**
 * `createOrUpdate` / `createOrPatch` (controller-runtime `controllerutil.CreateOrUpdate` / `CreateOrPatch`).
 *
 * Both read the object named by `obj` (name, and namespace if the client is not bound to one). If it does not exist,
 * `mutate(obj)` fills in the desired state and the object is created. Otherwise `obj` is overwritten with the live
 * object, `mutate(obj)` applies the desired state to it, and the object is written only if that changed anything.
 * Either way `obj` ends up holding what the apiserver returned, as the Go versions leave it. `mutate` must not change
 * the name or namespace (an Error is thrown before anything is written). API errors (including a Conflict from an
 * update racing another writer) are thrown to the caller, whose reconcile is retried: nothing is retried here.
 */
import { isDeepStrictEqual } from 'node:util';
import { isNotFound } from '../client/errors.js';
import type { ResourceInterface, StatusInterface } from '../client/interfaces.js';
import type { KubeObject } from '../client/types.js';
import { createMergePatch } from '../patch/merge-patch.js';

/** What a createOrUpdate/createOrPatch call did (controller-runtime `OperationResult`). */
export type OperationResult = 'created' | 'updated' | 'updatedStatus' | 'updatedStatusOnly' | 'unchanged';

/** Brings `obj` (the live object, or the new one before creation) to the desired state, in place. */
export type MutateFn<T> = (obj: T) => void | Promise<void>;

/** The verbs {@link createOrUpdate} needs (`get`, `create`, `update`): a typed client fits as is. */
export type CreateOrUpdateClient<T extends KubeObject> = Pick<ResourceInterface<T>, 'get' | 'create' | 'update'>;
/** The verbs {@link createOrPatch} needs: `get`, `create`, `patch`, optionally `patchStatus` for status changes. */
export type CreateOrPatchClient<T extends KubeObject> = Pick<ResourceInterface<T>, 'get' | 'create' | 'patch'> &
  Partial<Pick<StatusInterface<T>, 'patchStatus'>>;

/** Get; create if missing; otherwise update (full PUT at the read resourceVersion) only when `mutate` changed it. */
export async function createOrUpdate<T extends KubeObject>(client: CreateOrUpdateClient<T>, obj: T, mutate: MutateFn<T>): Promise<OperationResult> {
  const current = await getOrCreate(client, obj, mutate);
  if (current === 'created') return 'created';
  const before = jsonCopy(obj);
  await mutateKeepingKey(obj, mutate);
  if (isDeepStrictEqual(before, jsonCopy(obj))) return 'unchanged';
  replaceContents(obj, await client.update(obj));
  return 'updated';
}

/**
 * Get; create if missing; otherwise send JSON merge patches of what `mutate` changed: one to the object for
 * everything but `status`, and one to the status subresource when `status` changed (or, for a client without
 * `patchStatus`, the status diff goes into the object patch). Returns `updatedStatus` / `updatedStatusOnly` when the
 * status was patched, as controller-runtime does.
 */
export async function createOrPatch<T extends KubeObject>(client: CreateOrPatchClient<T>, obj: T, mutate: MutateFn<T>): Promise<OperationResult> {
  const current = await getOrCreate(client, obj, mutate);
  if (current === 'created') return 'created';
  const name = obj.metadata!.name!;
  const { status: beforeStatus, ...before } = jsonCopy(obj) as Record<string, unknown>;
  await mutateKeepingKey(obj, mutate);
  const { status: afterStatus, ...after } = jsonCopy(obj) as Record<string, unknown>;
  const mainPatch = createMergePatch(before, after);
  const statusChanged = !isDeepStrictEqual(beforeStatus, afterStatus);
  const statusPatch = statusChanged ? statusMergePatch(beforeStatus, afterStatus) : undefined;
  const separateStatus = statusPatch !== undefined && client.patchStatus !== undefined;
  if (statusPatch !== undefined && !separateStatus) Object.assign(mainPatch, statusPatch);

  let result: OperationResult = 'unchanged';
  if (Object.keys(mainPatch).length > 0) {
    replaceContents(obj, await client.patch(name, { type: 'merge', patch: mainPatch }));
    result = 'updated';
  }
  if (separateStatus) {
    replaceContents(obj, await client.patchStatus!(name, { type: 'merge', patch: statusPatch }));
    result = result === 'updated' ? 'updatedStatus' : 'updatedStatusOnly';
  }
  return result;
}

/** Reads the live object into `obj`, or creates it (after `mutate`) and returns 'created'. */
async function getOrCreate<T extends KubeObject>(client: Pick<ResourceInterface<T>, 'get' | 'create'>, obj: T, mutate: MutateFn<T>): Promise<'created' | 'exists'> {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError('createOrUpdate/createOrPatch need metadata.name');
  let live: T;
  try {
    live = await client.get(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await mutateKeepingKey(obj, mutate);
    replaceContents(obj, await client.create(obj));
    return 'created';
  }
  const namespace = obj.metadata?.namespace;
  replaceContents(obj, live);
  // Keep the caller's namespace if the live object somehow lacks one (e.g. a fake without defaulting).
  if (namespace && !obj.metadata?.namespace) obj.metadata = { ...obj.metadata, namespace };
  return 'exists';
}

async function mutateKeepingKey<T extends KubeObject>(obj: T, mutate: MutateFn<T>): Promise<void> {
  const name = obj.metadata?.name;
  const namespace = obj.metadata?.namespace;
  await mutate(obj);
  if (obj.metadata?.name !== name || obj.metadata?.namespace !== namespace) {
    throw new Error('MutateFn cannot mutate object name and/or object namespace');
  }
}

function statusMergePatch(before: unknown, after: unknown): Record<string, unknown> {
  if (isPlainObject(before) && isPlainObject(after)) return { status: createMergePatch(before, after) };
  return { status: after === undefined ? null : after };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON round trip: what would be sent, so `undefined` members and missing members compare equal. */
function jsonCopy<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Makes `target` hold exactly `source`'s members (so the caller's reference sees the server's answer). */
function replaceContents(target: object, source: object): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, source);
}
