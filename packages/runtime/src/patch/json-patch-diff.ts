/**
 * `createJsonPatch(original, modified)`: an RFC 6902 JSON Patch that turns `original` into `modified` — what a
 * mutating admission webhook answers with (gomodules.xyz/jsonpatch's `CreatePatch`, which controller-runtime's
 * `admission.PatchResponseFromRaw` uses). Objects are compared key by key (`add`, `remove`, `replace` per member,
 * recursing into nested objects); an array that differs in any way is replaced whole, which is always correct and
 * keeps patches simple. Neither input is mutated.
 */
import type { JsonPatchOperation } from '../client/interfaces.js';
import { jsonEqual } from './json-patch.js';
import { escapePointerToken } from './json-pointer.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The operations turning `original` into `modified` (empty when they are equal as JSON). */
export function createJsonPatch(original: unknown, modified: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diff(original, modified, '', ops);
  return ops;
}

function diff(a: unknown, b: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (jsonEqual(a, b)) return;
  if (!isObject(a) || !isObject(b)) {
    ops.push({ op: 'replace', path, value: b });
    return;
  }
  for (const key of Object.keys(a)) {
    if (!Object.hasOwn(b, key) || b[key] === undefined) {
      if (a[key] !== undefined) ops.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
    }
  }
  for (const key of Object.keys(b)) {
    const p = `${path}/${escapePointerToken(key)}`;
    if (b[key] === undefined) continue;
    if (!Object.hasOwn(a, key) || a[key] === undefined) ops.push({ op: 'add', path: p, value: b[key] });
    else diff(a[key], b[key], p, ops);
  }
}
