/**
 * Samples of built-in kinds (`kubegen sample --kind PodDisruptionBudget`): a minimal object the apiserver accepts,
 * from the built-in API model (Kubernetes 1.36). The schema's minimal object (`minimalSample`: required fields,
 * defaults, enum values) is not enough for the Go validation behind a built-in kind, so a small table of seeds per
 * kind (./builtin-seeds.ts) is merged over it.
 *
 * Kinds are named as kubectl names them: the kind (`Deployment`), its plural, singular or a short name (`deploy`),
 * any of those with the group (`deployments.apps`, `Deployment.apps`) or with version and group
 * (`deployments.v1.apps`); case is ignored. Without a version the most stable version wins (GA before beta before
 * alpha), and between groups the core group, then the first group by name (`Event` is the core `v1` Event).
 */
import { compareVersionPriority } from '@kubegen/runtime/discovery';
import { loadBuiltinApi } from '../../builtin-api/index.js';
import { builtinSchema } from '../../builtin-api/schemas.js';
import type { KindVersion } from '../../model/index.js';
import { editDistance } from '../../model/closest-name.js';
import { seedOf } from './builtin-seeds.js';
import { minimalSample } from './index.js';

/** A kind the built-in API does not have (or not in the asked version): the message names the closest ones. */
export class UnknownKindError extends Error {
  /** The kind as asked for. */
  readonly kind: string;
  /** The closest names there are (kinds, or the kind's versions), best first. */
  readonly suggestions: readonly string[];

  constructor(message: string, kind: string, suggestions: readonly string[]) {
    super(message);
    this.name = 'UnknownKindError';
    this.kind = kind;
    this.suggestions = suggestions;
  }
}

/** Which built-in kind: the name (see the module comment) and, optionally, the API version (`policy/v1`, `v1`). */
export interface BuiltinKindQuery {
  kind: string;
  apiVersion?: string;
}

const apiVersionOf = (kindVersion: KindVersion): string => (kindVersion.resource.group ? `${kindVersion.resource.group}/${kindVersion.version.name}` : kindVersion.version.name);

/** Every built-in kind in every version, each as its own `KindVersion` (schema not expanded). */
function allKindVersions(): KindVersion[] {
  return loadBuiltinApi().model.resources.flatMap((resource) => resource.versions.map((version) => ({ resource, version })));
}

/** The names a kind answers to, lower-cased: kind, plural, singular, short names. */
function namesOf(kindVersion: KindVersion): string[] {
  const n = kindVersion.resource.names;
  return [n.kind, n.plural, n.singular, ...n.shortNames].map((s) => s.toLowerCase());
}

/** Whether `query` (lower-cased) names `kindVersion`: `name`, `name.group` or `name.version.group`. */
function names(kindVersion: KindVersion, query: string): boolean {
  const { group } = kindVersion.resource;
  return namesOf(kindVersion).some((n) => query === n || (group !== '' && (query === `${n}.${group}` || query === `${n}.${kindVersion.version.name}.${group}`)));
}

/** Best first: the most stable version, then the core group, then group name. */
function comparePreferred(a: KindVersion, b: KindVersion): number {
  const core = (kindVersion: KindVersion): number => (kindVersion.resource.group === '' ? 0 : 1);
  return compareVersionPriority(a.version.name, b.version.name) || core(a) - core(b) || (a.resource.group < b.resource.group ? -1 : a.resource.group > b.resource.group ? 1 : 0);
}

/**
 * Every built-in kind version `query` names, best first (the first is what {@link resolveBuiltinKind} picks). Throws
 * an {@link UnknownKindError} when there is none.
 */
export function builtinKindCandidates(query: BuiltinKindQuery): KindVersion[] {
  const all = allKindVersions();
  const q = query.kind.trim().toLowerCase();
  const named = all.filter((kindVersion) => names(kindVersion, q));
  const { kubernetesVersion } = loadBuiltinApi();
  if (named.length === 0) {
    const kinds = [...new Set(all.map((kindVersion) => kindVersion.resource.names.kind))];
    const scored = kinds
      .map((k) => ({ k, d: Math.min(...all.filter((kindVersion) => kindVersion.resource.names.kind === k).flatMap((kindVersion) => namesOf(kindVersion).map((n) => editDistance(q.split('.')[0]!, n)))) }))
      .sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : 1))
      .slice(0, 3)
      .map((s) => s.k);
    throw new UnknownKindError(`no built-in kind ${JSON.stringify(query.kind)} in Kubernetes ${kubernetesVersion} (closest: ${scored.join(', ')})`, query.kind, scored);
  }
  const candidates = query.apiVersion === undefined ? named : named.filter((kindVersion) => apiVersionOf(kindVersion) === query.apiVersion || kindVersion.version.name === query.apiVersion);
  if (candidates.length === 0) {
    const versions = [...named].sort(comparePreferred).map(apiVersionOf);
    throw new UnknownKindError(
      `built-in kind ${named[0]!.resource.names.kind} has no version ${query.apiVersion} in Kubernetes ${kubernetesVersion} (it has ${versions.join(', ')})`,
      query.kind,
      versions,
    );
  }
  return [...candidates].sort(comparePreferred);
}

/**
 * The built-in kind version `query` names (see the module comment), with its schema written out (`$ref`s expanded),
 * ready for the sample generator. Throws an {@link UnknownKindError} naming the closest kinds or versions.
 */
export function resolveBuiltinKind(query: BuiltinKindQuery): KindVersion {
  return expanded(builtinKindCandidates(query)[0]!);
}

/** `kindVersion` with its schema written out (`$ref`s expanded) and only its own version. */
function expanded(kindVersion: KindVersion): KindVersion {
  if (kindVersion.version.schema.$ref === undefined) return kindVersion;
  const schema = builtinSchema(kindVersion.version.builtin!.definition)!;
  return { resource: { ...kindVersion.resource, versions: [kindVersion.version] }, version: { ...kindVersion.version, schema } };
}

/** Options of {@link builtinSample}. */
export interface BuiltinSampleOptions {
  /** The API version (`policy/v1`; default: the most stable one). */
  apiVersion?: string;
  /** `metadata.name` (default `<kind>-sample`, lower-cased). */
  name?: string;
  /**
   * The namespace the object is for (namespaced kinds only; default `default`). Set as `metadata.namespace` when
   * given; a few kinds also name it inside (an Event's involved object, a LocalSubjectAccessReview).
   */
  namespace?: string;
}

/**
 * A minimal object of a built-in kind that kube-apiserver accepts: `apiVersion`, `kind`, `metadata.name`, the
 * schema's required fields, and the kind's seed (./builtin-seeds.ts). Throws an {@link UnknownKindError} for a kind
 * (or version) the built-in API does not have.
 *
 * ```ts
 * const pdb = builtinSample('PodDisruptionBudget', { apiVersion: 'policy/v1', namespace: 'ns' });
 * ```
 */
export function builtinSample(kind: string, opts: BuiltinSampleOptions = {}): Record<string, unknown> {
  const kindVersion = resolveBuiltinKind({ kind, ...(opts.apiVersion !== undefined ? { apiVersion: opts.apiVersion } : {}) });
  return sampleOfBuiltin(kindVersion, opts);
}

/**
 * The sample of a built-in kind version of the model (see {@link builtinSample}). A review (a kind that is only
 * created: TokenReview, SubjectAccessReview …) has no name: the apiserver refuses any metadata but a namespace.
 */
export function sampleOfBuiltin(kindVersion: KindVersion, opts: Omit<BuiltinSampleOptions, 'apiVersion'> = {}): Record<string, unknown> {
  const namespaced = kindVersion.resource.scope === 'Namespaced';
  const object = minimalSample(expanded(kindVersion), opts.name !== undefined ? { name: opts.name } : {});
  const name = (object['metadata'] as { name: string }).name;
  const review = kindVersion.version.builtin?.verbs.length === 1 && kindVersion.version.builtin.verbs[0] === 'create';
  if (review) object['metadata'] = {};
  if (namespaced && opts.namespace !== undefined) object['metadata'] = { ...(object['metadata'] as object), namespace: opts.namespace };
  const seed = seedOf(kindVersion.resource.group, kindVersion.version.name, kindVersion.resource.names.kind, { name, namespace: opts.namespace ?? 'default' });
  return seed ? (mergeSeed(object, seed) as Record<string, unknown>) : object;
}

/** `seed` over `base`: objects merge field by field, anything else in the seed replaces what `base` has. */
function mergeSeed(base: unknown, seed: unknown): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(base) || !isObject(seed)) return structuredClone(seed);
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(seed)) out[k] = k in base ? mergeSeed(base[k], v) : structuredClone(v);
  return out;
}
