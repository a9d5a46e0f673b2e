/**
 * JSON Patch (RFC 6902). `applyJsonPatch` never mutates its inputs: it works on a deep copy and returns the result,
 * or throws a `PatchError` (and nothing is applied) if any operation fails, as the apiserver does.
 */
import { isDeepStrictEqual } from 'node:util';
import { PatchError, parsePointer } from './json-pointer.js';
import type { JsonPatchOperation } from '../client/interfaces.js';

export { PatchError } from './json-pointer.js';

type Container = Record<string, unknown> | unknown[];

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

function isContainer(v: unknown): v is Container {
  return v !== null && typeof v === 'object';
}

function arrayIndex(arr: unknown[], token: string, path: string, allowEnd: boolean): number {
  if (token === '-' && allowEnd) return arr.length;
  if (!ARRAY_INDEX.test(token)) throw new PatchError(`invalid array index "${token}" in path "${path}"`);
  const i = Number(token);
  if (i > arr.length || (!allowEnd && i === arr.length)) throw new PatchError(`array index ${i} out of bounds in path "${path}"`);
  return i;
}

/** The container holding the last token of `path`, and that token. */
function locate(doc: unknown, path: string): { parent: Container; key: string } {
  const tokens = parsePointer(path);
  const key = tokens.pop()!;
  let cur: unknown = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, path, false)];
    else if (isContainer(cur) && Object.prototype.hasOwnProperty.call(cur, t)) cur = (cur as Record<string, unknown>)[t];
    else throw new PatchError(`path "${path}" does not exist`);
  }
  if (!isContainer(cur)) throw new PatchError(`path "${path}" does not exist`);
  return { parent: cur, key };
}

function getValue(doc: unknown, path: string): unknown {
  if (path === '') return doc;
  const { parent, key } = locate(doc, path);
  if (Array.isArray(parent)) return parent[arrayIndex(parent, key, path, false)];
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new PatchError(`path "${path}" does not exist`);
  return parent[key];
}

function add(doc: unknown, path: string, value: unknown): unknown {
  if (path === '') return value;
  const { parent, key } = locate(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, path, true), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc: unknown, path: string): { doc: unknown; removed: unknown } {
  if (path === '') throw new PatchError('cannot remove the whole document');
  const { parent, key } = locate(doc, path);
  if (Array.isArray(parent)) {
    const [removed] = parent.splice(arrayIndex(parent, key, path, false), 1);
    return { doc, removed };
  }
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new PatchError(`path "${path}" does not exist`);
  const removed = parent[key];
  delete parent[key];
  return { doc, removed };
}

function requireField(op: JsonPatchOperation, field: 'value' | 'from', index: number): void {
  if (!(field in op) || (field === 'from' && typeof op.from !== 'string')) {
    throw new PatchError(`operation ${index} (${op.op}) is missing "${field}"`);
  }
}

/** Checks the shape of a patch document (an array of operations) before anything is applied. */
export function validateJsonPatch(ops: unknown): asserts ops is JsonPatchOperation[] {
  if (!Array.isArray(ops)) throw new PatchError('a JSON patch must be an array of operations');
  ops.forEach((op: unknown, i) => {
    if (!isContainer(op) || Array.isArray(op)) throw new PatchError(`operation ${i} is not an object`);
    const o = op as Partial<JsonPatchOperation>;
    if (typeof o.path !== 'string') throw new PatchError(`operation ${i} is missing "path"`);
    parsePointer(o.path);
    switch (o.op) {
      case 'add':
      case 'replace':
      case 'test':
        requireField(o as JsonPatchOperation, 'value', i);
        break;
      case 'move':
      case 'copy':
        requireField(o as JsonPatchOperation, 'from', i);
        parsePointer(o.from!);
        break;
      case 'remove':
        break;
      default:
        throw new PatchError(`operation ${i} has unknown op "${String(o.op)}"`);
    }
  });
}

/** Applies `ops` in order to a copy of `doc` and returns it. Throws `PatchError` on malformed or failing operations. */
export function applyJsonPatch<T = unknown>(doc: unknown, ops: readonly JsonPatchOperation[]): T {
  validateJsonPatch(ops);
  let out: unknown = structuredClone(doc);
  for (const op of ops) {
    switch (op.op) {
      case 'add':
        out = add(out, op.path, structuredClone(op.value));
        break;
      case 'remove':
        out = remove(out, op.path).doc;
        break;
      case 'replace':
        if (op.path === '') out = structuredClone(op.value);
        else out = add(remove(out, op.path).doc, op.path, structuredClone(op.value));
        break;
      case 'move': {
        const from = op.from!;
        if (op.path !== from && op.path.startsWith(`${from}/`)) {
          throw new PatchError(`cannot move "${from}" into its own child "${op.path}"`);
        }
        const { doc: rest, removed } = remove(out, from);
        out = add(rest, op.path, removed);
        break;
      }
      case 'copy':
        out = add(out, op.path, structuredClone(getValue(out, op.from!)));
        break;
      case 'test':
        if (!jsonEqual(getValue(out, op.path), op.value)) {
          throw new PatchError(`test operation failed: value at "${op.path}" is not ${JSON.stringify(op.value)}`);
        }
        break;
    }
  }
  return out as T;
}

/** JSON value equality: object member order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}
