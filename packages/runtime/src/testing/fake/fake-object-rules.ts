/**
 * The apiserver's object rules the tracker applies on writes: name and metadata validation, `generateName`,
 * generation bumps, status-subresource handling and finalizer checks. Pure functions over plain objects.
 */
import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Preconditions } from '../../client/interfaces.js';
import type { KubeObject, ObjectMeta, ResourceInfo } from '../../client/types.js';
import {
  validateDNS1123Label,
  validateDNS1123Subdomain,
  validateLabelValue,
  validateQualifiedName,
} from '../../labels/validation.js';
import { badRequest, conflict } from './fake-errors.js';
import type { FakeResource } from './fake-resource.js';
import type { FieldCause } from './fake-errors.js';

/** Characters `names.SimpleNameGenerator` draws from (no vowels, no confusable digits). */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_NAME_PREFIX = 63 - 5;

/** `generateName` + 5 random characters, the prefix cut so the result fits 63 characters. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return prefix.slice(0, MAX_GENERATE_NAME_PREFIX) + suffix;
}

/** Whether the resource is the core `namespaces` resource, whose names are DNS labels. */
function isNamespaceResource(r: ResourceInfo): boolean {
  return r.group === '' && r.resource === 'namespaces';
}

const invalidValue = (field: string, value: unknown, msg: string): FieldCause => ({
  type: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${msg}`,
});

/** ObjectMeta validation (`ValidateObjectMeta`): name, namespace, labels, annotation keys. */
export function validateObjectMeta(r: ResourceInfo, meta: ObjectMeta): FieldCause[] {
  const causes: FieldCause[] = [];
  const name = meta.name ?? '';
  if (!name) {
    causes.push({ type: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' });
  } else {
    const errs = isNamespaceResource(r) ? validateDNS1123Label(name) : validateDNS1123Subdomain(name);
    if (errs.length > 0) causes.push(invalidValue('metadata.name', name, errs.join(', ')));
  }
  if (r.namespaced) {
    const ns = meta.namespace ?? '';
    if (!ns) causes.push({ type: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' });
    else {
      const errs = validateDNS1123Label(ns);
      if (errs.length > 0) causes.push(invalidValue('metadata.namespace', ns, errs.join(', ')));
    }
  }
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    const keyErrs = validateQualifiedName(k);
    if (keyErrs.length > 0) causes.push(invalidValue('metadata.labels', k, keyErrs.join(', ')));
    const valErrs = typeof v === 'string' ? validateLabelValue(v) : ['must be a string'];
    if (valErrs.length > 0) causes.push(invalidValue(`metadata.labels`, v, valErrs.join(', ')));
  }
  for (const k of Object.keys(meta.annotations ?? {})) {
    const keyErrs = validateQualifiedName(k.toLowerCase());
    if (keyErrs.length > 0) causes.push(invalidValue('metadata.annotations', k, keyErrs.join(', ')));
  }
  return causes;
}

/** The object without what does not count for `generation`: metadata, the type fields, and status if requested. */
function generationContent(obj: KubeObject, ignoreStatus: boolean): Record<string, unknown> {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj as Record<string, unknown>;
  if (ignoreStatus) delete rest['status'];
  return rest;
}

/**
 * Whether an update from `before` to `after` bumps `generation`: any change outside metadata, except that with a
 * status subresource status changes never count (the CRD strategies' rule).
 */
export function changesGeneration(before: KubeObject, after: KubeObject, statusSubresource: boolean): boolean {
  return !isDeepStrictEqual(generationContent(before, statusSubresource), generationContent(after, statusSubresource));
}

/** Replaces `target.status` with `source.status`, or removes it when `source` has none. Mutates `target`. */
export function copyStatus(target: KubeObject, source: KubeObject): void {
  const s = (source as Record<string, unknown>)['status'];
  if (s === undefined) delete (target as Record<string, unknown>)['status'];
  else (target as Record<string, unknown>)['status'] = structuredClone(s);
}

/** Metadata the server owns: copied from the stored object onto every update. */
const SERVER_OWNED_META = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const;

/** Copies the server-owned metadata fields of `stored` onto `next.metadata` (or removes them if unset). Mutates `next`. */
export function keepServerOwnedMeta(next: KubeObject, stored: KubeObject): void {
  const meta = (next.metadata ??= {}) as Record<string, unknown>;
  for (const f of SERVER_OWNED_META) {
    const v = stored.metadata?.[f];
    if (v === undefined) delete meta[f];
    else meta[f] = v;
  }
}

/** Finalizers present in `after` but not in `before`. */
export function addedFinalizers(before: KubeObject, after: KubeObject): string[] {
  const old = new Set(before.metadata?.finalizers ?? []);
  return (after.metadata?.finalizers ?? []).filter((f) => !old.has(f));
}

/** The Go rendering of a string slice, as the apiserver prints it in the finalizer error. */
export function goStringSlice(values: string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** RFC 3339 with seconds precision, as `metav1.Time` serializes. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `ns/name` or `name`: the key objects are stored and sorted under (etcd key order). */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Delete preconditions: a uid or resourceVersion that does not match the stored object is a 409 Conflict. */
export function checkPreconditions(r: ResourceInfo, name: string, pre: Preconditions | undefined, meta: ObjectMeta): void {
  if (pre?.uid && pre.uid !== meta.uid) {
    throw conflict(r, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(
      r,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
}

/** A request body as an object to store (a copy); 400 when it is not a JSON object. */
export function decodeBody(input: unknown): KubeObject {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw badRequest('the request body must be an object');
  return structuredClone(input as KubeObject);
}

/** The request namespace wins; a different one in the body is a 400, as `rest.BeforeCreate`/`BeforeUpdate`. */
export function placeInNamespace(res: FakeResource, meta: NonNullable<KubeObject['metadata']>, namespace: string | undefined): void {
  if (!res.namespaced) {
    delete meta.namespace;
    return;
  }
  if (namespace && meta.namespace && meta.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (namespace) meta.namespace = namespace;
}
