/**
 * ObjectMeta validation as the apiserver makes it for custom resources: the resource's own metadata
 * (`ValidateObjectMetaAccessor` with DNS-subdomain names), its kind and apiVersion (`ValidateTypeMeta`), and the
 * metadata of embedded resources (`schema/objectmeta/validation.go`: path-segment names, apiVersion and kind present).
 */
import type { StructuralSchema } from './types.js';
import {
  fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, type FieldError,
} from './field-error.js';
import { isObject, type JsonObject } from './json-value.js';
import { schemaFacts } from './schema-index.js';
import {
  isDns1035Label, isQualifiedName, isValidLabelValue, nameIsDnsLabel, nameIsDnsSubdomain, pathSegmentName,
} from './name-rules.js';

type NameFn = (name: string, prefix: boolean) => string[];

const TOTAL_ANNOTATION_SIZE = 256 * 1024;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `ValidateTypeMeta`: the object's kind and apiVersion are the CRD's. */
export function validateTypeMeta(obj: JsonObject, kind: string, apiVersion: string): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.kind !== kind) errs.push(fieldInvalid('kind', str(obj.kind), `must be ${kind}`));
  if (obj.apiVersion !== apiVersion) errs.push(fieldInvalid('apiVersion', str(obj.apiVersion), `must be ${apiVersion}`));
  return errs;
}

/** `ValidateObjectMetaAccessor`: name (or generateName), namespace, generation, labels, annotations, owners, finalizers. */
export function validateObjectMeta(meta: JsonObject, namespaced: boolean, nameFn: NameFn, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  const name = str(meta.name);
  if (generateName) for (const m of nameFn(generateName, true)) errs.push(fieldInvalid(`${path}.generateName`, generateName, m));
  if (!name) errs.push(fieldRequired(`${path}.name`, 'name or generateName is required'));
  else for (const m of nameFn(name, false)) errs.push(fieldInvalid(`${path}.name`, name, m));
  const namespace = str(meta.namespace);
  if (namespaced) {
    if (!namespace) errs.push(fieldRequired(`${path}.namespace`));
    else for (const m of nameIsDnsLabel(namespace, false)) errs.push(fieldInvalid(`${path}.namespace`, namespace, m));
  } else if (namespace) {
    errs.push(fieldForbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) errs.push(fieldInvalid(`${path}.generation`, meta.generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  return errs;
}

/** The parts of metadata validation an update repeats (`ValidateObjectMetaAccessorUpdate`, less what the store checks). */
export function validateObjectMetaUpdate(meta: JsonObject, oldMeta: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(meta.resourceVersion)) errs.push(fieldInvalid(`${path}.resourceVersion`, str(meta.resourceVersion), 'must be specified for an update'));
  for (const field of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds']) {
    if ((meta[field] ?? '') !== (oldMeta[field] ?? '')) errs.push(fieldInvalid(`${path}.${field}`, meta[field] ?? null, 'field is immutable'));
  }
  if (typeof meta.generation === 'number' && typeof oldMeta.generation === 'number' && meta.generation < oldMeta.generation) {
    errs.push(fieldInvalid(`${path}.generation`, meta.generation, 'must not be decremented'));
  }
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  return errs;
}

function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(labels)) return errs;
  for (const [k, v] of Object.entries(labels)) {
    for (const m of isQualifiedName(k)) errs.push(fieldInvalid(path, k, m));
    for (const m of isValidLabelValue(str(v))) errs.push(fieldInvalid(path, str(v), m));
  }
  return errs;
}

function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(annotations)) return errs;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(path, k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(str(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE) errs.push(fieldTooLong(path, TOTAL_ANNOTATION_SIZE));
  return errs;
}

function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(refs)) return errs;
  let firstController = '';
  for (const ref of refs) {
    if (!isObject(ref)) continue;
    const apiVersion = str(ref.apiVersion);
    const slash = apiVersion.indexOf('/');
    const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
    if (!version) errs.push(fieldInvalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!str(ref.kind)) errs.push(fieldInvalid(`${path}.kind`, str(ref.kind), 'must not be empty'));
    if (!str(ref.name)) errs.push(fieldInvalid(`${path}.name`, str(ref.name), 'must not be empty'));
    if (!str(ref.uid)) errs.push(fieldInvalid(`${path}.uid`, str(ref.uid), 'must not be empty'));
    if (apiVersion === 'v1' && ref.kind === 'Event') errs.push(fieldInvalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) {
      const current = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController) {
        errs.push(fieldInvalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
      } else firstController = current;
    }
  }
  return errs;
}

function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errs;
  for (const f of finalizers) for (const m of isQualifiedName(str(f))) errs.push(fieldInvalid(path, str(f), m));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(fieldInvalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** The resource's own metadata and type (what `customResourceValidator.Validate` checks before the schema). */
export const resourceNameRules: NameFn = nameIsDnsSubdomain;

/** `schema/objectmeta.Validate`: apiVersion, kind and metadata of every embedded resource below the root. */
export function validateEmbeddedResources(x: unknown, s: StructuralSchema | undefined, path: string, errors: FieldError[], root = true): void {
  if (!s || !schemaFacts(s).hasEmbedded) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => validateEmbeddedResources(v, s.items, `${path}[${i}]`, errors, false));
    return;
  }
  if (!isObject(x)) return;
  if (!root && s['x-kubernetes-embedded-resource']) errors.push(...validateEmbedded(x, path));
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const k of Object.keys(x)) {
    const prop = s.properties?.[k];
    if (prop) validateEmbeddedResources(x[k], prop, path ? `${path}.${k}` : k, errors, false);
    else if (additional) validateEmbeddedResources(x[k], additional, `${path}[${k}]`, errors, false);
  }
}

const child = (path: string, k: string) => (path ? `${path}.${k}` : k);

function validateEmbedded(x: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!('apiVersion' in x)) errs.push(fieldRequired(child(path, 'apiVersion')));
  if (!('kind' in x)) errs.push(fieldRequired(child(path, 'kind')));
  if ('apiVersion' in x) {
    const v = x.apiVersion;
    if (typeof v !== 'string') errs.push(fieldInvalid(child(path, 'apiVersion'), v, 'must be a string'));
    else if (!v) errs.push(fieldInvalid(child(path, 'apiVersion'), v, 'must not be empty'));
    else if (v.split('/').length > 2) errs.push(fieldInvalid(child(path, 'apiVersion'), v, `unexpected GroupVersion string: ${v}`));
  }
  if ('kind' in x) {
    const v = x.kind;
    if (typeof v !== 'string') errs.push(fieldInvalid(child(path, 'kind'), v, 'must be a string'));
    else if (!v) errs.push(fieldInvalid(child(path, 'kind'), v, 'must not be empty'));
    else {
      const m = isDns1035Label(v.toLowerCase());
      if (m.length) errs.push(fieldInvalid(child(path, 'kind'), v, `may have mixed case, but should otherwise match: ${m.join(',')}`));
    }
  }
  if (isObject(x.metadata)) {
    const meta = { ...x.metadata };
    if (!str(meta.name)) meta.name = 'fakename';
    errs.push(...validateObjectMeta(meta, !!str(meta.namespace), pathSegmentName, child(path, 'metadata')));
  }
  return errs;
}
