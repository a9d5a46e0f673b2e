/**
 * JSON Merge Patch (RFC 7386): objects merge recursively, `null` deletes a member, anything else (arrays included)
 * replaces. Neither input is mutated; the result shares no structure with them.
 */
import { isDeepStrictEqual } from 'node:util';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Applies a merge patch to `target` and returns the new document. */
export function applyMergePatch<T = unknown>(target: unknown, patch: unknown): T {
  if (!isObject(patch)) return structuredClone(patch) as T;
  const out: Record<string, unknown> = isObject(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out as T;
}

/**
 * The merge patch that turns `original` into `modified` (`jsonpatch.CreateMergePatch`): removed members become
 * `null`, changed members are given in full except nested objects, which are diffed recursively. Returns `{}` when
 * they are equal. Both must be objects: a merge patch cannot express "replace the whole document with a non-object"
 * nor set a member to `null`.
 */
export function createMergePatch(original: Record<string, unknown>, modified: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(original)) {
    if (!Object.prototype.hasOwnProperty.call(modified, k)) patch[k] = null;
  }
  for (const [k, v] of Object.entries(modified)) {
    const before = original[k];
    if (isObject(before) && isObject(v)) {
      const sub = createMergePatch(before, v);
      if (Object.keys(sub).length > 0) patch[k] = sub;
    } else if (!Object.prototype.hasOwnProperty.call(original, k) || !isDeepStrictEqual(before, v)) {
      patch[k] = structuredClone(v);
    }
  }
  return patch;
}
