/**
 * Field sets for the fake tracker's server-side apply (structured-merge-diff's `fieldpath.Set`, in the `FieldsV1`
 * form the apiserver writes into `metadata.managedFields`). A path is a list of elements, each one of:
 * - `f:<name>`: an object's field or a map's key;
 * - `k:<json>`: a list-map entry, by its keys (`k:{"name":"http","protocol":"TCP"}`, keys in name order);
 * - `v:<json>`: a set's value (`v:"a"`).
 * A set holds leaves (scalars, atomic lists and objects, empty objects) and list entries; `toFieldsV1` marks a member that has
 * members below it with `.`, as the apiserver does.
 */
import type { AssociativeList } from '../../client/types.js';

/** A path as its elements. */
export type FieldPath = readonly string[];

/** A set of paths, keyed by their JSON text. */
export type FieldSet = Map<string, FieldPath>;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Paths of `metadata` a field manager can own (everything else there is the server's or the object's identity). */
const APPLIED_METADATA = new Set(['labels', 'annotations', 'ownerReferences', 'finalizers']);

/** The associative lists every object has in `metadata`. */
const METADATA_LISTS: AssociativeList[] = [
  { path: ['metadata', 'ownerReferences'], keys: ['uid'] },
  { path: ['metadata', 'finalizers'] },
];

/** The atomic objects every object has in `metadata`: an owner reference (`+structType=atomic`). */
const METADATA_ATOMIC: string[][] = [['metadata', 'ownerReferences', '[]']];

/** Whether schema path `pattern` (`{}` matching any map key) names `path`. */
function matches(pattern: readonly string[], path: readonly string[]): boolean {
  return pattern.length === path.length && pattern.every((seg, i) => seg === path[i] || (seg === '{}' && path[i] !== '[]'));
}

/**
 * A resource's list and map types as server-side apply follows them (structured-merge-diff's schema): the associative
 * list at a schema path (`{}` in a pattern matches any key), or undefined for an atomic list; and whether an object
 * there is atomic.
 */
export class ApplyTypes {
  private readonly lists: AssociativeList[];
  private readonly atomic: string[][];

  constructor(lists: readonly AssociativeList[] = [], atomic: readonly string[][] = []) {
    this.lists = [...METADATA_LISTS, ...lists];
    this.atomic = [...METADATA_ATOMIC, ...atomic];
  }

  at(path: readonly string[]): AssociativeList | undefined {
    return this.lists.find((l) => matches(l.path, path));
  }

  /** Whether the object or map at `path` is atomic: replaced whole, owned as one field. */
  isAtomic(path: readonly string[]): boolean {
    return this.atomic.some((a) => matches(a, path));
  }
}

/** The schema path of a field path: field names as they are, list entries and set values as `[]`. */
export function schemaPathOf(p: FieldPath): string[] {
  return p.map((el) => (el.startsWith('f:') ? el.slice(2) : '[]'));
}

/** The element naming a list-map entry: its keys in name order (a missing key is its default, else `null`). */
export function keyElement(item: unknown, keys: readonly string[], defaults: Record<string, unknown> = {}): string {
  const obj = isObject(item) ? item : {};
  const key: Record<string, unknown> = {};
  for (const k of [...keys].sort()) key[k] = obj[k] ?? defaults[k] ?? null;
  return `k:${JSON.stringify(key)}`;
}

/**
 * The field set of an applied configuration: every leaf and list entry it names. Top-level `apiVersion`/`kind`,
 * and in `metadata` all but labels, annotations, owner references and finalizers, are left out; `null` values are
 * left out (they remove a field, they are not owned).
 */
export function fieldSetOf(obj: Record<string, unknown>, types: ApplyTypes): FieldSet {
  const out: FieldSet = new Map();
  for (const [name, v] of Object.entries(obj)) {
    if (name === 'apiVersion' || name === 'kind') continue;
    if (name === 'metadata') {
      if (!isObject(v)) continue;
      for (const [m, mv] of Object.entries(v)) if (APPLIED_METADATA.has(m)) walk(mv, ['metadata', m], ['f:metadata', `f:${m}`], types, out);
      continue;
    }
    walk(v, [name], [`f:${name}`], types, out);
  }
  return out;
}

function add(out: FieldSet, p: FieldPath): void {
  out.set(JSON.stringify(p), p);
}

function walk(v: unknown, schemaPath: string[], p: string[], types: ApplyTypes, out: FieldSet): void {
  if (v === null || v === undefined) return;
  if (isObject(v) && types.isAtomic(schemaPath)) return add(out, p);
  if (isObject(v)) {
    const entries = Object.entries(v).filter(([, x]) => x !== null && x !== undefined);
    if (entries.length === 0) add(out, p);
    for (const [k, x] of entries) walk(x, [...schemaPath, k], [...p, `f:${k}`], types, out);
    return;
  }
  if (Array.isArray(v)) {
    const list = types.at(schemaPath);
    if (!list) return add(out, p);
    for (const item of v) {
      if (!list.keys) {
        add(out, [...p, `v:${JSON.stringify(item)}`]);
        continue;
      }
      const entry = [...p, keyElement(item, list.keys, list.keyDefaults)];
      add(out, entry);
      if (isObject(item) && !types.isAtomic([...schemaPath, '[]'])) for (const [k, x] of Object.entries(item)) walk(x, [...schemaPath, '[]', k], [...entry, `f:${k}`], types, out);
    }
    return;
  }
  add(out, p);
}

/** Where a path's element points in `parent`: the key or index, or undefined when it is not there. */
function locate(parent: unknown, el: string): { key: string | number; value: unknown } | undefined {
  const body = el.slice(2);
  if (el.startsWith('f:')) return isObject(parent) && Object.hasOwn(parent, body) ? { key: body, value: parent[body] } : undefined;
  if (!Array.isArray(parent)) return undefined;
  if (el.startsWith('v:')) {
    const want = body;
    const i = parent.findIndex((x) => JSON.stringify(x) === want);
    return i < 0 ? undefined : { key: i, value: parent[i] };
  }
  const key = JSON.parse(body) as Record<string, unknown>;
  const names = Object.keys(key);
  const i = parent.findIndex((x) => keyElement(x, names) === el);
  return i < 0 ? undefined : { key: i, value: parent[i] };
}

/** The value at `p` in `obj`, or `{ found: false }`. */
export function valueAt(obj: unknown, p: FieldPath): { found: boolean; value?: unknown } {
  let cur = obj;
  for (const el of p) {
    const at = locate(cur, el);
    if (!at) return { found: false };
    cur = at.value;
  }
  return { found: true, value: cur };
}

/** Removes what `p` names from `obj` (a field, a list entry, a set value); nothing if it is not there. Mutates. */
export function removeAt(obj: unknown, p: FieldPath): void {
  let cur = obj;
  for (const el of p.slice(0, -1)) {
    const at = locate(cur, el);
    if (!at) return;
    cur = at.value;
  }
  const at = locate(cur, p[p.length - 1]!);
  if (!at) return;
  if (Array.isArray(cur)) cur.splice(at.key as number, 1);
  else delete (cur as Record<string, unknown>)[at.key as string];
}

/** The `FieldsV1` tree of a set (`{"f:spec":{"f:replicas":{}}}`), keys sorted as the apiserver writes them. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: Record<string, Record<string, unknown>> = {};
  const members: Record<string, unknown>[] = [];
  for (const p of set.values()) {
    let node: Record<string, unknown> = root;
    for (const el of p) node = (node[el] ??= {}) as Record<string, unknown>;
    members.push(node);
  }
  for (const node of members) if (Object.keys(node).some((k) => k !== '.')) node['.'] = {};
  return sortTree(root);
}

function sortTree(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(node).sort()) out[k] = sortTree(node[k] as Record<string, unknown>);
  return out;
}

/** The set a `FieldsV1` tree describes (the inverse of {@link toFieldsV1}). */
export function fromFieldsV1(tree: unknown): FieldSet {
  const out: FieldSet = new Map();
  const walkTree = (node: unknown, p: string[]): void => {
    if (!isObject(node)) return;
    const children = Object.keys(node).filter((k) => k !== '.');
    if (p.length > 0 && (children.length === 0 || Object.hasOwn(node, '.'))) add(out, p);
    for (const k of children) walkTree(node[k], [...p, k]);
  };
  walkTree(tree, []);
  return out;
}

/**
 * Orders paths as structured-merge-diff iterates a set: at each level the paths that end there before those that
 * go deeper, each group by element (fields, then keys, then values).
 */
export function comparePaths(a: FieldPath, b: FieldPath): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const aEnds = a.length === i + 1;
    const bEnds = b.length === i + 1;
    if (aEnds !== bEnds) return aEnds ? -1 : 1;
    const c = elementOrder(a[i]!) - elementOrder(b[i]!) || (a[i]! < b[i]! ? -1 : a[i]! > b[i]! ? 1 : 0);
    if (c !== 0 || aEnds) return c;
  }
  return 0;
}

function elementOrder(el: string): number {
  return el.startsWith('f:') ? 0 : el.startsWith('k:') ? 1 : 2;
}

/** A path as the apiserver prints it in conflicts: `.spec.ports[name="http",protocol="TCP"].port`, `.spec.tags[="a"]`. */
export function pathString(p: FieldPath): string {
  return p
    .map((el) => {
      const body = el.slice(2);
      if (el.startsWith('f:')) return `.${body}`;
      if (el.startsWith('v:')) return `[=${goValue(JSON.parse(body))}]`;
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key).map(([k, v]) => `${k}=${goValue(v)}`).join(',')}]`;
    })
    .join('');
}

/** A value as structured-merge-diff's `value.ToString` prints it (strings quoted). */
function goValue(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v);
}
