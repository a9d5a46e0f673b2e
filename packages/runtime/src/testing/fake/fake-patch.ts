/**
 * Applies a patch document for the tracker and turns patch failures into the apiserver's errors: a malformed patch
 * is 400 BadRequest, a JSON patch that does not apply (failed `test`, missing path) is 422 Invalid.
 */
import { ApiError, newStatus } from '../../client/errors.js';
import type { JsonPatchOperation } from '../../client/interfaces.js';
import type { PatchType, ResourceInfo } from '../../client/types.js';
import { applyJsonPatch, validateJsonPatch } from '../../patch/json-patch.js';
import { PatchError } from '../../patch/json-pointer.js';
import { applyMergePatch } from '../../patch/merge-patch.js';
import { badRequest } from './fake-errors.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Returns the patched copy of `doc` (which is not mutated). `strategic` and `apply` merge like a merge patch. */
export function applyPatchDocument(_r: ResourceInfo, _name: string, type: PatchType, doc: unknown, patch: unknown): unknown {
  if (type === 'json') {
    try {
      validateJsonPatch(patch);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    try {
      return applyJsonPatch(doc, patch as JsonPatchOperation[]);
    } catch (e) {
      if (e instanceof PatchError) throw new ApiError(newStatus(422, 'Invalid', e.message));
      throw e;
    }
  }
  if (!isObject(patch)) throw badRequest(`a ${type} patch must be a JSON object`);
  const merged = applyMergePatch<Record<string, unknown>>(doc, patch);
  if (!isObject(merged)) throw badRequest('the patched object is not a JSON object');
  return merged;
}
