/**
 * What the apiserver does to a custom resource while decoding it, before any validation
 * (`customresource_handler.go`'s `unstructuredSchemaCoercer`): metadata is read as an ObjectMeta (fields ObjectMeta
 * does not have are dropped), fields the schema does not declare are pruned (except under
 * `x-kubernetes-preserve-unknown-fields`), and null values of non-nullable fields without a default are removed.
 * Every dropped field is reported by path, sorted, as strict field validation reports them (`unknown field "spec.x"`).
 */
import type { StructuralSchema } from './types.js';
import { fieldInvalid, type FieldError } from './field-error.js';
import { isObject, type JsonObject } from './json-value.js';
import { schemaFacts } from './schema-index.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Prunes `x` in place; returns the pruned paths, sorted. At a resource root (and an embedded resource) `apiVersion`,
 * `kind` and `metadata` are not the schema's to prune.
 */
export function pruneUnknownFields(x: unknown, root: StructuralSchema | undefined, isResourceRoot = true): string[] {
  const found: string[] = [];
  prune(x, root, '', isResourceRoot || !!root?.['x-kubernetes-embedded-resource'], found);
  return found.sort();
}

const join = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);
const embeddedOf = (s: StructuralSchema | undefined) => !!s?.['x-kubernetes-embedded-resource'];
/** `additionalProperties` as the pruner sees it: a schema, `null` (present without one: a boolean), or undefined. */
const additionalOf = (s: StructuralSchema | undefined): StructuralSchema | null | undefined =>
  s?.additionalProperties === undefined ? undefined : typeof s.additionalProperties === 'object' ? s.additionalProperties : null;

function prune(x: unknown, s: StructuralSchema | undefined, path: string, embedded: boolean, found: string[]): void {
  if (s?.['x-kubernetes-preserve-unknown-fields']) {
    skipPrune(x, s, path, embedded, found);
    return;
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) prune(x[i], s?.items, `${path}[${i}]`, embeddedOf(s?.items), found);
    return;
  }
  if (!isObject(x)) return;
  const additional = additionalOf(s);
  for (const k of Object.keys(x)) {
    if (s && embedded && META_FIELDS.has(k)) continue;
    const prop = s?.properties?.[k];
    if (prop) prune(x[k], prop, join(path, k), embeddedOf(prop), found);
    else if (additional !== undefined) prune(x[k], additional ?? undefined, join(path, k), embeddedOf(additional ?? undefined), found);
    else {
      if (!s || !META_FIELDS.has(k) || path !== '') found.push(join(path, k));
      delete x[k];
    }
  }
}

function skipPrune(x: unknown, s: StructuralSchema, path: string, embedded: boolean, found: string[]): void {
  if (Array.isArray(x)) {
    if (s.items) for (let i = 0; i < x.length; i++) skipPrune(x[i], s.items, `${path}[${i}]`, embeddedOf(s.items), found);
    return;
  }
  if (!isObject(x)) return;
  const additional = additionalOf(s);
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) continue;
    const prop = s.properties?.[k];
    if (prop) prune(x[k], prop, join(path, k), embeddedOf(prop), found);
    else if (additional !== undefined) prune(x[k], additional ?? undefined, join(path, k), embeddedOf(additional ?? undefined), found);
  }
}

/** `PruneNonNullableNullsWithoutDefaults`: a null where the schema allows none and has no default is dropped. */
export function pruneNonNullableNulls(x: unknown, s: StructuralSchema | undefined): void {
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNulls(v, s?.items);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    const child = s?.properties?.[k] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (x[k] === null && child && !child.nullable && child.default === undefined) delete x[k];
    else pruneNonNullableNulls(x[k], child);
  }
}

// ---- ObjectMeta ----------------------------------------------------------------------------------------------------

type MetaType = 'string' | 'int' | 'time' | 'stringMap' | 'stringList' | 'ownerRefs' | 'managedFields';
const OBJECT_META: Record<string, MetaType> = {
  name: 'string', generateName: 'string', namespace: 'string', selfLink: 'string', uid: 'string', resourceVersion: 'string',
  generation: 'int', creationTimestamp: 'time', deletionTimestamp: 'time', deletionGracePeriodSeconds: 'int',
  labels: 'stringMap', annotations: 'stringMap', ownerReferences: 'ownerRefs', finalizers: 'stringList', managedFields: 'managedFields',
};
const OWNER_REF = new Set(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']);
const MANAGED_FIELDS = new Set(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);
const GO_TYPE: Record<MetaType, string> = {
  string: 'string', int: 'int64', time: 'v1.Time', stringMap: 'map[string]string', stringList: '[]string',
  ownerRefs: '[]v1.OwnerReference', managedFields: '[]v1.ManagedFieldsEntry',
};

const jsonKind = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

function metaTypeOk(t: MetaType, v: unknown): boolean {
  if (v === null) return true;
  switch (t) {
    case 'string': case 'time': return typeof v === 'string';
    case 'int': return typeof v === 'number' && Number.isInteger(v);
    case 'stringMap': return isObject(v) && Object.values(v).every((x) => typeof x === 'string' || x === null);
    case 'stringList': return Array.isArray(v) && v.every((x) => typeof x === 'string');
    default: return Array.isArray(v) && v.every(isObject);
  }
}

/**
 * Reads `obj.metadata` as the apiserver's ObjectMeta decoding does: unknown fields are dropped and reported
 * (`metadata.foo`, `metadata.ownerReferences[0].foo`); a field of the wrong type is an error (Go's unmarshal text).
 * `parent` is the path of the object holding the metadata ('' at the resource root).
 */
export function coerceObjectMeta(obj: JsonObject, parent: string): { unknown: string[]; error?: FieldError } {
  const meta = obj.metadata;
  const unknown: string[] = [];
  const metaPath = join(parent, 'metadata');
  if (meta === undefined) return { unknown };
  if (!isObject(meta)) {
    return { unknown, error: fieldInvalid(metaPath, meta, `json: cannot unmarshal ${jsonKind(meta)} into Go value of type v1.ObjectMeta`) };
  }
  for (const k of Object.keys(meta)) {
    const t = OBJECT_META[k];
    if (!t) {
      unknown.push(`${metaPath}.${k}`);
      delete meta[k];
      continue;
    }
    if (!metaTypeOk(t, meta[k])) {
      return { unknown, error: fieldInvalid(metaPath, meta, `json: cannot unmarshal ${jsonKind(meta[k])} into Go struct field ObjectMeta.metadata.${k} of type ${GO_TYPE[t]}`) };
    }
    const known = t === 'ownerRefs' ? OWNER_REF : t === 'managedFields' ? MANAGED_FIELDS : undefined;
    if (known) {
      (meta[k] as JsonObject[]).forEach((entry, i) => {
        for (const f of Object.keys(entry)) {
          if (!known.has(f)) {
            unknown.push(`${metaPath}.${k}[${i}].${f}`);
            delete entry[f];
          }
        }
      });
    }
    if (meta[k] === null || meta[k] === '' || (t === 'stringMap' && Object.keys(meta[k] as object).length === 0)) delete meta[k];
  }
  return { unknown };
}

/** Coerces the metadata of every embedded resource under `x` (`x-kubernetes-embedded-resource` nodes). */
export function coerceEmbeddedMeta(x: unknown, s: StructuralSchema | undefined, path: string, out: { unknown: string[]; errors: FieldError[] }): void {
  if (!s || !schemaFacts(s).hasEmbedded) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => coerceEmbeddedMeta(v, s.items, `${path}[${i}]`, out));
    return;
  }
  if (!isObject(x)) return;
  if (s['x-kubernetes-embedded-resource']) {
    for (const k of ['apiVersion', 'kind']) {
      if (k in x && typeof x[k] !== 'string') out.errors.push(fieldInvalid(join(path, k), x[k], 'must be a string'));
    }
    const r = coerceObjectMeta(x, path);
    out.unknown.push(...r.unknown);
    if (r.error) out.errors.push(r.error);
  }
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const k of Object.keys(x)) {
    const prop = s.properties?.[k];
    if (prop) coerceEmbeddedMeta(x[k], prop, join(path, k), out);
    else if (additional) coerceEmbeddedMeta(x[k], additional, `${path}[${k}]`, out);
  }
}
