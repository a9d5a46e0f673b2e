/**
 * Embedded core types: CRDs inline Kubernetes' own structs (a Rollout's `spec.template` is a PodTemplateSpec, a
 * Prometheus has Containers, Volumes, Affinity, Tolerations, HostAliases…). `CoreTypeMatcher` recognises such
 * sub-schemas by structure and names the runtime's model type for them, so that a generated `spec.template` is the
 * same `PodTemplateSpec` the built-in clients use, and `types.ts`/`deepcopy.ts` do not carry a private copy of it.
 *
 * The reference for each core type is the built-in API's schema of it as controller-gen writes it
 * (`builtin-api/schemas.ts`, Kubernetes 1.36). Every candidate must pass the structural comparison: no property
 * anywhere below has a different JSON kind than the reference's (string, number, boolean, array, object, map; a
 * free-form object on either side is compatible with anything), and below its own level at most {@link MAX_DRIFT}
 * properties in all, and at most one in {@link DRIFT_RATIO} of any one object's, are unknown to the reference. That
 * is the drift between the Kubernetes version the CRD was generated from and the runtime's (a newer one): it is
 * reported, and the data is kept (deep copies copy every key), but the type does not name it. Properties the reference has and the CRD lacks (an older Kubernetes, a trimmed CRD) do not matter.
 *
 * Keyed types (the large, common ones: PodTemplateSpec, PodSpec, Container, Volume, …; see `model/core-types.ts`) are
 * tried first, in order: a sub-schema is one when it has every key property and at least `minCommon` of the type's.
 * Every other core/v1 struct reachable from PodTemplateSpec, ServiceSpec and PersistentVolumeClaimSpec is
 * recognised by the generic rule, which asks for evidence beyond shared names, since small structs share shapes
 * (`{name, value}` is an HTTPHeader, a Sysctl and a DNS option; `{key, name, optional}` selects a Secret's or a
 * ConfigMap's key). A generic type T is a candidate when the sub-schema has at least half of T's properties and
 * - it lacks at most one in four of them (none of a type with up to three) and either its field is named as a field
 *   of type T is in core/v1 (`hostAliases`, `secretKeyRef`, `nodeAffinity`, `emptyDir`…) or one of its properties
 *   has T's description (controller-gen copies the Go doc comments into the CRD); or
 * - {@link MIN_EVIDENCE} or more of its property names, counted at every depth, are T's (a NodeSelectorTerm's
 *   `matchExpressions[].key/operator/values`…).
 * A generic type is never taken for a sub-schema that requires a property the type leaves optional (Flux's own
 * LocalObjectReference requires its `name`; core/v1's does not). Of several candidates the one with the matching
 * field name wins, then the one with more matching descriptions,
 * then the one the sub-schema covers more of, then the larger match; a tie between different types is no match.
 *
 * At its own level, a sub-schema with properties T lacks *extends* T ("the fields the base has, whatever the
 * extras") when it shares at least {@link MIN_COMMON_TO_EXTEND} of T's properties and has at least
 * {@link EXTEND_COVERAGE} of them (KServe's predictor: a whole PodSpec plus 28 fields of its own), or when it has at
 * most half as many of its own (Argo's script template is a Container plus `source`, Knative's RevisionSpec a
 * trimmed PodSpec plus timeouts): the generated interface `extends Container` and declares only its own properties.
 * A sub-schema that says something its core type does not, where that would change the generated type or how
 * server-side apply merges it — other required properties, `oneOf`/`anyOf`, an enum, other list keys, a string where
 * the type has int-or-string (see `differencesAt`) — is not typed with it: it keeps its own type, and `--explain`
 * says why (`CoreMiss`). Other validation (patterns, bounds, defaults) is not compared: the CRD keeps it all (the CRD
 * YAML is written from the schema, not from the type).
 *
 * Matching is top-down: a node that matches is not descended into.
 */
import { builtinDefinition, builtinFields, builtinSchema } from '../../builtin-api/schemas.js';
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
/** A sub-schema with this share of a core type's properties extends it however many of its own it has. */
export const EXTEND_COVERAGE = 0.75;
/** Property names (at every depth) a generic core type's match must share with it when nothing else speaks for it. */
export const MIN_EVIDENCE = 6;

/** One recognised sub-schema. */
export interface CoreMatch {
  type: CoreType;
  /** Its own properties beside the core type's (top level only): it extends the core type with these. */
  extras: string[];
  /** Properties of the sub-schema the runtime's model does not have (dotted, relative to the match). */
  drift: string[];
}

/**
 * A sub-schema shaped like a core type that keeps a type of its own because it says something the core type does not
 * (`differences`: "status.conditions[]: requires type, status; Condition requires message too"), so the core type
 * would type it wrongly. `--explain` lists these.
 */
export interface CoreMiss {
  type: CoreType;
  differences: string[];
}

type Kind = 'string' | 'number' | 'boolean' | 'ios' | 'array' | 'object' | 'map' | 'any';

/** The field a JSON path from a kind's root ends in (`spec.hostAliases[]` → `hostAliases`), if any. */
export function fieldName(where: string): string | undefined {
  return /([^.[\]{}]+)(?:\[\]|\{\})*$/.exec(where)?.[1];
}

/**
 * Whether a `metadata` field's schema is an object's metadata left free-form (`type: object`, maybe
 * `x-kubernetes-preserve-unknown-fields`: what controller-gen writes for an embedded `metav1.ObjectMeta` unless
 * asked for its fields, e.g. KubeVirt's VM template): it is typed `ObjectMeta`, so `template.metadata?.labels` is
 * typed. A `metadata` with properties of its own (Strimzi's `{labels, annotations}`) or a typed map is left alone.
 */
export function isEmbeddedObjectMeta(s: JSONSchemaProps): boolean {
  if (s.type !== 'object' && !(s.type === undefined && s['x-kubernetes-preserve-unknown-fields'])) return false;
  return Object.keys(s.properties ?? {}).length === 0 && typeof s.additionalProperties !== 'object' && !s.oneOf && !s.anyOf && !s.allOf;
}

interface Reference {
  type: CoreType;
  schema: JSONSchemaProps;
  props: readonly string[];
}

/** A generic candidate and what speaks for it. */
interface Candidate extends CoreMatch {
  differences: string[];
  hinted: boolean;
  docs: number;
  coverage: number;
  evidence: number;
}

/** Matches sub-schemas against {@link CORE_TYPES}. Reference schemas are built once per matcher, on first use. */
export class CoreTypeMatcher {
  private refs: { keyed: Reference[]; generic: Reference[]; byProp: Map<string, Reference[]>; hints: Map<string, Set<string>> } | undefined;

  constructor(private readonly types: readonly CoreType[] = CORE_TYPES) {}

  /**
   * The core type `s` is (or extends), or undefined. Only objects with properties can match. `field` is the name of
   * the property `s` is the schema of (for an array's items, the array's), when it has one.
   */
  match(s: JSONSchemaProps, field?: string): CoreMatch | undefined {
    return this.matchOrMiss(s, field).match;
  }

  /** Like {@link match}, and when no core type matches, the core type `s` is shaped like but differs from, if any. */
  matchOrMiss(s: JSONSchemaProps, field?: string): { match?: CoreMatch; miss?: CoreMiss } {
    if (kindOf(s) !== 'object') return {};
    const names = Object.keys(s.properties!);
    const refs = this.references();
    let miss: CoreMiss | undefined;
    for (const ref of refs.keyed) {
      const keys = ref.type.keys!;
      if (!keys.every((k) => hasPath(s, k))) continue;
      const extras = names.filter((p) => !Object.hasOwn(ref.schema.properties!, p));
      const common = names.length - extras.length;
      const minCommon = Math.max(1, ref.type.minCommon ?? new Set(keys.map((k) => k.split('.')[0])).size);
      if (common < minCommon) continue;
      if (extras.length > 0 && !extendable(common, extras.length, ref.props.length, minCommon)) continue;
      const acc: Diff = { drift: [], conflict: false, evidence: 0, differences: [] };
      compare(s, ref.schema, '', acc, 0);
      if (acc.conflict || acc.drift.length > MAX_DRIFT) continue;
      if (acc.differences.length === 0) return { match: { type: ref.type, drift: acc.drift, extras } };
      miss ??= { type: ref.type, differences: acc.differences };
    }
    const generic = this.generic(s, names, field);
    return generic.match || generic.miss ? generic : miss ? { miss } : {};
  }

  private generic(s: JSONSchemaProps, names: string[], field: string | undefined): { match?: CoreMatch; miss?: CoreMiss } {
    const refs = this.references();
    const shared = new Map<Reference, number>();
    for (const n of names) for (const ref of refs.byProp.get(n) ?? []) shared.set(ref, (shared.get(ref) ?? 0) + 1);
    const candidates: Candidate[] = [];
    for (const [ref, common] of shared) {
      const total = ref.props.length;
      const coverage = common / total;
      if (coverage < 0.5) continue;
      const extras = names.filter((p) => !Object.hasOwn(ref.schema.properties!, p));
      if (extras.length > 0 && !extendable(common, extras.length, total, MIN_COMMON_TO_EXTEND)) continue;
      const acc: Diff = { drift: [], conflict: false, evidence: 0, differences: [] };
      compare(s, ref.schema, '', acc, 0);
      if (acc.conflict || acc.drift.length > MAX_DRIFT) continue;
      const hinted = field !== undefined && (refs.hints.get(field)?.has(ref.type.name) ?? false);
      const complete = total - common <= Math.floor(total / 4);
      const docs = complete && !hinted && acc.evidence < MIN_EVIDENCE ? sameDescriptions(s, ref) : 0;
      if (!((complete && (hinted || docs > 0)) || acc.evidence >= MIN_EVIDENCE)) continue;
      candidates.push({ type: ref.type, drift: acc.drift, extras, hinted, docs: hinted ? 0 : docs, coverage, evidence: acc.evidence, differences: acc.differences });
    }
    // Only a core type that says what the sub-schema says types it; the best of the others is what it looks like.
    const clean = candidates.filter((c) => c.differences.length === 0).sort(byStrength);
    const [best, next] = clean;
    if (best && !(next && byStrength(best, next) === 0 && next.type.name !== best.type.name)) return { match: { type: best.type, drift: best.drift, extras: best.extras } };
    const like = candidates.filter((c) => c.differences.length > 0).sort(byStrength)[0];
    return !best && like ? { miss: { type: like.type, differences: like.differences } } : {};
  }

  private references(): NonNullable<CoreTypeMatcher['refs']> {
    if (this.refs) return this.refs;
    const keyed: Reference[] = [];
    const generic: Reference[] = [];
    const byProp = new Map<string, Reference[]>();
    const models = new Map<string, string>();
    for (const type of this.types) {
      const schema = builtinSchema(type.definition);
      if (!schema) throw new Error(`the built-in API has no definition ${type.definition} (core type ${type.name})`);
      const ref = { type, schema, props: Object.keys(schema.properties ?? {}) };
      models.set(type.definition, type.name);
      if (type.keys) keyed.push(ref);
      else {
        generic.push(ref);
        for (const p of ref.props) byProp.set(p, [...(byProp.get(p) ?? []), ref]);
      }
    }
    this.refs = { keyed, generic, byProp, hints: fieldHints(models) };
    return this.refs;
  }
}

/** Whether a sub-schema sharing `common` of a type's `total` properties, with `extras` of its own, extends it. */
function extendable(common: number, extras: number, total: number, minCommon: number): boolean {
  if (common < Math.max(minCommon, MIN_COMMON_TO_EXTEND)) return false;
  return common / total >= EXTEND_COVERAGE || extras * 2 <= common;
}

/** Stronger first: the field's name, descriptions, coverage, then the size of the match. */
function byStrength(a: Candidate, b: Candidate): number {
  return Number(b.hinted) - Number(a.hinted) || b.docs - a.docs || b.coverage - a.coverage || b.evidence - a.evidence;
}

/**
 * Field name → the core types a field of that name has in core/v1 (`hostAliases` → HostAlias, `secretKeyRef` →
 * SecretKeySelector), from the models of the core types (`models`: model → runtime name) and their fields.
 */
function fieldHints(models: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const hints = new Map<string, Set<string>>();
  for (const model of models.keys()) {
    for (const f of builtinFields(model)) {
      const target = f.ref === undefined ? undefined : models.get(f.ref);
      if (target === undefined) continue;
      const set = hints.get(f.name) ?? new Set<string>();
      set.add(target);
      hints.set(f.name, set);
    }
  }
  return hints;
}

/** How many of `s`'s own properties carry the description the reference type's field has (first sentence). */
function sameDescriptions(s: JSONSchemaProps, ref: Reference): number {
  const docs = new Map(builtinFields(ref.type.definition).flatMap((f) => (f.description === undefined ? [] : [[f.name, f.description] as const])));
  let n = 0;
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    const theirs = docs.get(name);
    if (theirs !== undefined && sub.description !== undefined && firstSentence(sub.description) === firstSentence(theirs)) n++;
  }
  return n;
}

function firstSentence(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const end = t.search(/\.(\s|$)/);
  return end < 0 ? t : t.slice(0, end);
}

interface Diff {
  drift: string[];
  conflict: boolean;
  /** Where the sub-schema says something the core type does not (see `CoreMiss`). */
  differences: string[];
  /** Properties of the sub-schema the reference has, at every depth. */
  evidence: number;
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

/**
 * What a sub-schema says that its core type's schema does not, where it would change the generated type or how
 * server-side apply merges: which properties are required (of those both have), `oneOf`/`anyOf`/`allOf`/`not`,
 * keeping unknown fields in a structured object (a free-form node is compatible with anything), an enum, a list's
 * type and keys, int-or-string against a plain string. Other validation
 * (patterns, bounds, defaults) stays in the CRD and does not matter here.
 */
function differencesAt(s: JSONSchemaProps, r: JSONSchemaProps, path: string): string[] {
  const at = path === '' ? '' : `${path}: `;
  const out: string[] = [];
  const sk = kindOf(s);
  const rk = kindOf(r);
  if ((sk === 'ios') !== (rk === 'ios') && sk !== 'any' && rk !== 'any') out.push(`${at}${sk === 'ios' ? 'int-or-string' : 'a string'}, the core type's is ${rk === 'ios' ? 'int-or-string' : 'a string'}`);
  for (const k of ['oneOf', 'anyOf', 'allOf', 'not'] as const) if (s[k] !== undefined && r[k] === undefined) out.push(`${at}has ${k}`);
  // Keeping unknown fields matters for a structured object (its type gets an index signature); a free-form node (no
  // properties) is compatible with anything, as with JSON kinds.
  if (Boolean(s['x-kubernetes-preserve-unknown-fields']) !== Boolean(r['x-kubernetes-preserve-unknown-fields']) && sk === 'object' && rk === 'object') {
    out.push(`${at}${s['x-kubernetes-preserve-unknown-fields'] ? 'keeps unknown fields, the core type does not' : 'drops unknown fields, the core type keeps them'}`);
  }
  if (s.enum !== undefined && r.enum === undefined) out.push(`${at}is an enum (${s.enum.map((v) => JSON.stringify(v)).join(', ')})`);
  if (sk === 'array' && rk === 'array') {
    const st = s['x-kubernetes-list-type'] ?? 'atomic';
    const rt = r['x-kubernetes-list-type'] ?? 'atomic';
    const keys = (x: JSONSchemaProps): string => (x['x-kubernetes-list-map-keys'] ?? []).join(', ');
    if (st !== rt || keys(s) !== keys(r)) out.push(`${at}list type ${st}${keys(s) ? ` (${keys(s)})` : ''}, the core type's is ${rt}${keys(r) ? ` (${keys(r)})` : ''}`);
  }
  if (sk === 'object' && rk === 'object') {
    const both = (x: JSONSchemaProps, other: JSONSchemaProps): string[] => (x.required ?? []).filter((p) => Object.hasOwn(other.properties ?? {}, p)).sort();
    const sr = both(s, r);
    const rr = both(r, s);
    if (sr.join() !== rr.join()) out.push(`${at}requires ${sr.join(', ') || 'nothing'}, the core type requires ${rr.join(', ') || 'nothing'}`);
  }
  return out;
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
  acc.differences.push(...differencesAt(s, r, path));
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
      if (Object.hasOwn(own, name)) {
        acc.evidence++;
        compare(sub, own[name]!, p, acc, depth + 1);
      } else if (depth > 0) {
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

/** The description of core type `name` (its built-in definition's), which a sub-schema typed with it inherits. */
export function coreTypeDescription(name: string): string | undefined {
  const type = CORE_TYPES.find((c) => c.name === name);
  return type ? builtinDefinition(type.definition)?.schema.description?.trim() : undefined;
}
