/**
 * Embedded core types: CRDs inline Kubernetes' own structs (a Rollout's `spec.template` is a PodTemplateSpec, a
 * Prometheus has Containers, Volumes, Affinity, Tolerations…). `CoreTypeMatcher` recognises such sub-schemas by
 * structure and names the runtime's model type for them, so that a generated `spec.template` is the same
 * `PodTemplateSpec` the built-in clients use, and `types.ts`/`deepcopy.ts` do not carry a private copy of it.
 *
 * The reference for each core type is the `@kubernetes/client-node` model the runtime's type is built from
 * (`Wire<V1PodTemplateSpec>`), expanded to a schema (`clientNodeSchema`). A sub-schema is core type T when:
 * - it has every one of T's key properties (`keys`, dotted paths), and at least `minCommon` of T's properties;
 * - no property anywhere below has a different JSON kind than T's (string, number, boolean, array, object, map;
 *   int-or-string is compatible with string, since client-node types Quantities as strings; a free-form object
 *   on either side is compatible with anything);
 * - below its own level, at most {@link MAX_DRIFT} properties in all, and at most one in {@link DRIFT_RATIO} of any
 *   one object's, are unknown to T. That is the drift between the Kubernetes version the CRD was generated from and
 *   the runtime's models (client-node tracks the newest release): it is reported, and the data is kept (deep copies
 *   copy every key), but the type does not name it. Properties T has and the CRD lacks (an older Kubernetes, a
 *   trimmed CRD) do not matter.
 * At its own level, a sub-schema with properties T lacks *extends* T when it shares at least
 * {@link MIN_COMMON_TO_EXTEND} of T's and has at most half as many of its own (Argo's script template is a
 * Container plus `source`, Knative's RevisionSpec a PodSpec plus timeouts): the generated interface
 * `extends Container` and declares only its own properties.
 * Required-ness, descriptions, defaults and validation are not compared: the CRD keeps them all (the CRD YAML is
 * written from the schema, not from the type).
 *
 * Candidates are tried in the order of {@link CORE_TYPES} (largest first) at every object node, top-down: a node
 * that matches is not descended into.
 */
import { clientNodeSchema } from '../../model/client-node-schemas.js';
import { CORE_TYPES } from '../../model/core-types.js';
import type { CoreType } from '../../model/core-types.js';
import type { JSONSchemaProps } from '../../model/index.js';

export { CORE_TYPES };
export type { CoreType };

/** Properties below a match's own level that the runtime's model may lack (version drift) before it is refused. */
export const MAX_DRIFT = 4;
/** Within one object below a match, at most one property in this many may be unknown to the model. */
export const DRIFT_RATIO = 20;

/** A sub-schema with properties of its own beside a core type's needs this many of the core type's to extend it. */
export const MIN_COMMON_TO_EXTEND = 5;

/** One recognised sub-schema. */
export interface CoreMatch {
  type: CoreType;
  /** Its own properties beside the core type's (top level only): it extends the core type with these. */
  extras: string[];
  /** Properties of the sub-schema the runtime's model does not have (dotted, relative to the match). */
  drift: string[];
}

type Kind = 'string' | 'number' | 'boolean' | 'ios' | 'array' | 'object' | 'map' | 'any';

/** Matches sub-schemas against {@link CORE_TYPES}. Reference schemas are built once per matcher, on first use. */
export class CoreTypeMatcher {
  private refs: { type: CoreType; schema: JSONSchemaProps }[] | undefined;

  constructor(private readonly types: readonly CoreType[] = CORE_TYPES) {}

  /** The core type `s` is (or extends), or undefined. Only objects with properties can match. */
  match(s: JSONSchemaProps): CoreMatch | undefined {
    if (kindOf(s) !== 'object') return undefined;
    const names = Object.keys(s.properties!);
    for (const ref of this.references()) {
      if (!ref.type.keys.every((k) => hasPath(s, k))) continue;
      const own = ref.schema.properties ?? {};
      const extras = names.filter((p) => !Object.hasOwn(own, p));
      const common = names.length - extras.length;
      const minCommon = Math.max(1, ref.type.minCommon ?? new Set(ref.type.keys.map((k) => k.split('.')[0])).size);
      if (common < minCommon) continue;
      // A few properties of its own on top of the core type's: the CRD's type embeds it (`extends`).
      if (extras.length > 0 && (common < Math.max(minCommon, MIN_COMMON_TO_EXTEND) || extras.length * 2 > common)) continue;
      const acc: Diff = { drift: [], conflict: false };
      compare(s, ref.schema, '', acc, 0);
      if (!acc.conflict && acc.drift.length <= MAX_DRIFT) return { type: ref.type, drift: acc.drift, extras };
    }
    return undefined;
  }

  private references(): { type: CoreType; schema: JSONSchemaProps }[] {
    this.refs ??= this.types.map((type) => {
      const schema = clientNodeSchema(type.model);
      if (!schema) throw new Error(`@kubernetes/client-node has no model ${type.model} (core type ${type.name})`);
      return { type, schema };
    });
    return this.refs;
  }
}

interface Diff {
  drift: string[];
  conflict: boolean;
}

function kindOf(s: JSONSchemaProps): Kind {
  if (s['x-kubernetes-int-or-string']) return 'ios';
  switch (s.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
  }
  if (s.type !== undefined && s.type !== 'object') return 'any';
  if (s.properties && Object.keys(s.properties).length > 0) return 'object';
  if (typeof s.additionalProperties === 'object') return 'map';
  return 'any';
}

function compatible(a: Kind, b: Kind): boolean {
  return a === b || a === 'any' || b === 'any' || (a === 'ios' && b === 'string') || (a === 'string' && b === 'ios');
}

/** Walks `s` against reference `r`, recording properties `r` lacks and whether any JSON kinds disagree. */
function compare(s: JSONSchemaProps, r: JSONSchemaProps, path: string, acc: Diff, depth: number): void {
  if (acc.conflict || depth > 64) return;
  const sk = kindOf(s);
  const rk = kindOf(r);
  if (!compatible(sk, rk)) {
    acc.conflict = true;
    return;
  }
  if (sk === 'array' && rk === 'array') {
    if (s.items && r.items) compare(s.items, r.items, `${path}[]`, acc, depth + 1);
  } else if (sk === 'map' && rk === 'map') {
    compare(s.additionalProperties as JSONSchemaProps, r.additionalProperties as JSONSchemaProps, `${path}{}`, acc, depth + 1);
  } else if (sk === 'object' && rk === 'object') {
    const own = r.properties!;
    const entries = Object.entries(s.properties!);
    let unknown = 0;
    for (const [name, sub] of entries) {
      const p = path === '' ? name : `${path}.${name}`;
      if (Object.hasOwn(own, name)) compare(sub, own[name]!, p, acc, depth + 1);
      else if (depth > 0) {
        acc.drift.push(p);
        unknown++;
      }
    }
    // Drift is a field or two that a newer Kubernetes added to a large struct; an object whose unknown properties
    // are more than 1 in DRIFT_RATIO of its own is a different type that happens to share names (Argo's `args`
    // have a `valueFrom` with `podTemplateHashValue`: not an EnvVar).
    if (unknown * DRIFT_RATIO > entries.length) acc.conflict = true;
  }
}

function hasPath(s: JSONSchemaProps, dotted: string): boolean {
  let cur: JSONSchemaProps | undefined = s;
  for (const seg of dotted.split('.')) {
    while (cur?.type === 'array' && cur.items) cur = cur.items;
    const props: Record<string, JSONSchemaProps> | undefined = cur?.properties;
    if (!props || !Object.hasOwn(props, seg)) return false;
    cur = props[seg];
  }
  return true;
}
