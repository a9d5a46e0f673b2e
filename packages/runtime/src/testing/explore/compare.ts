/**
 * Comparing two end states. What differs between any two runs of the same scenario is normalised away first:
 * `uid`, `resourceVersion`, `creationTimestamp`, `deletionTimestamp`, `managedFields`, `generation`, the random
 * suffix of a generated name (`metadata.generateName` set: the name becomes `<generateName>*`, and so does any
 * string equal to it elsewhere, as a name recorded in a status), any RFC 3339
 * timestamp (condition transition times), any string that is the uid of an object in the same state (an owner
 * reference's uid becomes `uid-of:<kind> <namespace>/<name>`), and any empty mapping (`status: {}` equals no
 * status: both decode to the same Go value, and a controller that clears its status leaves `{}`). Objects are then keyed by kind, namespace and
 * (normalised) name; several objects under one key (two children generated from one prefix) are compared as a
 * list, so a leaked duplicate shows as an extra object.
 */
import type { KubeObject } from '../../client/types.js';

/** One difference: which object, which field (a dotted path; `(object)` for a missing or extra object), both values. */
export interface FieldDiff {
  object: string;
  field: string;
  reference: unknown;
  perturbed: unknown;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const DROPPED = ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'managedFields', 'generation', 'selfLink'];

/** The identity of `o` after normalisation: `Kind namespace/name` (a generated name as `prefix*`). */
export function identityOf(o: KubeObject): string {
  const m = o.metadata ?? {};
  const name = m.generateName ? `${m.generateName}*` : (m.name ?? '');
  return `${o.kind ?? ''} ${m.namespace ? `${m.namespace}/` : ''}${name}`;
}

/** Normalises a state (see the module comment): identity → the objects with that identity, in a stable order. */
export function normalizeState(objects: readonly KubeObject[]): Map<string, unknown[]> {
  const uids = new Map<string, string>();
  for (const o of objects) {
    if (o.metadata?.uid) uids.set(o.metadata.uid, `uid-of:${identityOf(o)}`);
    // A generated name wherever it is recorded (status, a reference) reads as its prefix, as the name itself does.
    if (o.metadata?.generateName && o.metadata.name) uids.set(o.metadata.name, `${o.metadata.generateName}*`);
  }
  const out = new Map<string, unknown[]>();
  for (const o of objects) {
    const copy = scrub(structuredClone(o), uids) as KubeObject;
    const meta = (copy.metadata ?? {}) as Record<string, unknown>;
    for (const k of DROPPED) delete meta[k];
    if (meta['generateName']) meta['name'] = `${String(meta['generateName'])}*`;
    const id = identityOf(o);
    const list = out.get(id) ?? [];
    list.push(copy);
    out.set(id, list);
  }
  for (const list of out.values()) list.sort((a, b) => stable(a).localeCompare(stable(b)));
  return out;
}

function scrub(v: unknown, uids: Map<string, string>): unknown {
  if (typeof v === 'string') return uids.get(v) ?? (TIMESTAMP.test(v) ? '<time>' : v);
  if (Array.isArray(v)) return v.map((x) => scrub(x, uids));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      o[k] = scrub(o[k], uids);
      // An empty mapping reads as no mapping (`status: {}` and no status decode to the same Go value).
      if (isEmptyMapping(o[k])) delete o[k];
    }
    return o;
  }
  return v;
}

function isEmptyMapping(v: unknown): boolean {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** JSON with sorted keys: equal values give equal strings. */
export function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

/** The differences between two states (empty: they agree up to normalisation), in identity order. */
export function compareStates(reference: readonly KubeObject[], perturbed: readonly KubeObject[]): FieldDiff[] {
  const ref = normalizeState(reference);
  const got = normalizeState(perturbed);
  const diffs: FieldDiff[] = [];
  const ids = [...new Set([...ref.keys(), ...got.keys()])].sort();
  for (const id of ids) {
    const a = ref.get(id) ?? [];
    const b = got.get(id) ?? [];
    if (a.length !== b.length) {
      diffs.push({ object: id, field: '(object)', reference: a.length === 1 ? 'present' : a.length === 0 ? 'absent' : `${a.length} objects`, perturbed: b.length === 1 ? 'present' : b.length === 0 ? 'absent' : `${b.length} objects` });
      continue;
    }
    for (let i = 0; i < a.length; i++) diffValues(id, '', a[i], b[i], diffs);
  }
  return diffs;
}

function diffValues(object: string, path: string, a: unknown, b: unknown, out: FieldDiff[]): void {
  if (stable(a) === stable(b)) return;
  const plain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (plain(a) && plain(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) diffValues(object, path ? `${path}.${k}` : k, a[k], b[k], out);
    return;
  }
  out.push({ object, field: path || '(object)', reference: a, perturbed: b });
}
