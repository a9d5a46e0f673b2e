/**
 * Validates custom resources against their CRD as the apiserver does on a write, offline: the decoding step (metadata
 * read as ObjectMeta, unknown fields pruned and reported, non-nullable nulls dropped), defaulting, the strategy's
 * preparation (status kept out of main-resource writes when the status subresource is on), then the validation the
 * apiserver runs — type meta, object meta (names), the OpenAPI schema (ratcheted on update), scale paths, embedded
 * resources, list types, and the CEL rules (skipped, as on the server, when a blocking error was found first).
 *
 * The result lists errors exactly as a 422's `details.causes` would ({path, reason, message}), the fields pruned
 * (what strict field validation refuses as `unknown field "…"`), and the object as it would be stored.
 */
import type { CompileRules, StructuralSchema } from './types.js';
import {
  fieldInvalid, fieldNotSupported, type FieldError,
} from './field-error.js';
import { cloneJson, isObject, type JsonObject } from './json-value.js';
import { applyDefaults } from './defaults.js';
import { validateListTypes } from './list-type.js';
import {
  resourceNameRules, validateEmbeddedResources, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta,
} from './object-meta.js';
import { coerceEmbeddedMeta, coerceObjectMeta, pruneNonNullableNulls, pruneUnknownFields } from './prune.js';
import { requireValidationPackages } from './optional-packages.js';
import { hasRules, RuleWalker } from './rule-walk.js';
import { validateScaleSpec, validateScaleStatus, type ScaleSpec } from './scale.js';
import { validateAgainstSchema } from './schema-walk.js';

/** The parts of an apiextensions.k8s.io/v1 CustomResourceDefinition the validator reads. */
export interface ValidatedCrd {
  metadata?: { name?: string };
  spec: {
    group: string;
    names: { kind: string; plural?: string };
    scope?: string;
    preserveUnknownFields?: boolean;
    versions: readonly {
      name: string;
      served?: boolean;
      storage?: boolean;
      schema?: { openAPIV3Schema?: unknown };
      subresources?: { status?: unknown; scale?: ScaleSpec };
    }[];
  };
}

/** The write being validated. */
export type WriteOperation = 'create' | 'update' | 'status';

/** What kind of write `validate` checks, and what it needs besides the object. */
export interface ValidateOptions {
  /** `create` (the default), `update` (a write of the main resource), or `status` (a write of the status subresource). */
  operation?: WriteOperation;
  /** The stored object, for `update` and `status`: transition rules see it as `oldSelf`, unchanged fields ratchet. */
  old?: unknown;
  /** The request's namespace, set on a namespaced object that names none (as a client fills it from its context). */
  namespace?: string;
  /**
   * The object is the result of a server-side apply, not a request body: it is not decoded again, so a null the merge
   * left where the schema is not nullable is refused (as the apiserver refuses it), not dropped.
   */
  merged?: boolean;
}

/** What the apiserver would make of one write. */
export interface ValidationResult {
  /** The field errors of a 422 Invalid (empty when the write would be accepted). */
  errors: FieldError[];
  /** Paths of the fields the server drops (sorted): strict field validation refuses them as `unknown field "<path>"`. */
  unknownFields: string[];
  /** The object after pruning, defaulting and the strategy's preparation: what would be stored. */
  object: JsonObject;
}

/** Builds validators; `compileRules` evaluates `x-kubernetes-validations` (the CEL layer). */
export interface CreateValidatorOptions {
  /** The CEL layer. When absent, `createValidator` loads the runtime's own; `CrdValidator`'s constructor requires it for CRDs with rules. */
  compileRules?: CompileRules;
}

interface VersionEntry {
  name: string;
  schema: StructuralSchema;
  statusSchema: StructuralSchema | undefined;
  status: boolean;
  scale: ScaleSpec | undefined;
  /** Whether this version's schema has `x-kubernetes-validations` (the CEL layer runs only then). */
  rules: boolean;
}

/** The blocking error the apiserver adds instead of running CEL over an object that already failed. */
const BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);
const RULES_NOT_CHECKED = 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/**
 * Validates objects of one CRD (every served version) as the apiserver would. Constructing one throws, naming them,
 * when the optional validation packages are not installed (`optional-packages.ts`).
 */
export class CrdValidator {
  readonly group: string;
  readonly kind: string;
  readonly namespaced: boolean;
  private readonly versions = new Map<string, VersionEntry>();
  private readonly preserveUnknownFields: boolean;
  private readonly rules: RuleWalker | undefined;

  constructor(crd: ValidatedCrd, options: CreateValidatorOptions = {}) {
    requireValidationPackages();
    const spec = crd?.spec;
    const where = `CustomResourceDefinition ${crd?.metadata?.name ?? '(unnamed)'}`;
    if (!spec?.group || !spec.names?.kind || !Array.isArray(spec.versions)) throw new Error(`${where}: spec.group, spec.names.kind and spec.versions are required`);
    this.group = spec.group;
    this.kind = spec.names.kind;
    this.namespaced = spec.scope !== 'Cluster';
    this.preserveUnknownFields = spec.preserveUnknownFields === true;
    let anyRules = false;
    for (const v of spec.versions) {
      if (v.served === false) continue;
      const schema = (isObject(v.schema?.openAPIV3Schema) ? v.schema!.openAPIV3Schema : {}) as StructuralSchema;
      const rules = hasRules(schema);
      anyRules ||= rules;
      this.versions.set(v.name, {
        name: v.name, schema, statusSchema: schema.properties?.status, status: v.subresources?.status !== undefined && v.subresources.status !== null, scale: v.subresources?.scale, rules,
      });
    }
    if (anyRules && !options.compileRules) throw new Error(`${where}: its schema has x-kubernetes-validations; pass compileRules (or use createValidator, which loads the CEL layer)`);
    this.rules = anyRules && options.compileRules ? new RuleWalker(options.compileRules) : undefined;
  }

  /** The `apiVersion`s this validator accepts. */
  get apiVersions(): string[] {
    return [...this.versions.keys()].map((v) => `${this.group}/${v}`);
  }

  /** Validates one write of `obj` (its apiVersion selects the CRD version). Never throws for bad input. */
  validate(obj: unknown, options: ValidateOptions = {}): ValidationResult {
    const operation = options.operation ?? 'create';
    const object = (isObject(obj) ? cloneJson(obj) : {}) as JsonObject;
    const fail = (e: FieldError): ValidationResult => ({ errors: [e], unknownFields: [], object });
    if (!isObject(obj)) return fail(fieldInvalid('', obj ?? null, 'must be an object'));
    const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
    const version = apiVersion.startsWith(`${this.group}/`) ? this.versions.get(apiVersion.slice(this.group.length + 1)) : undefined;
    if (!version) return fail(fieldNotSupported('apiVersion', apiVersion, this.apiVersions));
    const old = operation !== 'create' && isObject(options.old) ? this.decode(cloneJson(options.old), version).object : undefined;
    object.metadata ??= {};
    if (isObject(object.metadata)) {
      // The REST layer's EnsureObjectNamespaceMatchesRequestNamespace: a cluster-scoped object's namespace is
      // cleared; a namespaced one without a namespace gets the request's.
      if (!this.namespaced) delete object.metadata.namespace;
      else if (options.namespace && !object.metadata.namespace) object.metadata.namespace = options.namespace;
    }

    if (operation === 'create') generateNameIfAsked(object);
    const decoded = this.decode(object, version, options.merged === true);
    if (decoded.error) return { errors: [decoded.error], unknownFields: decoded.unknownFields, object };
    prepare(object, old, operation, version.status);
    const errors = operation === 'status' ? this.validateStatusWrite(object, old ?? {}, version) : this.validateWrite(object, old, version);
    return { errors, unknownFields: decoded.unknownFields, object };
  }

  /** The decoding step: metadata coercion, pruning, non-nullable nulls (unless `keepNulls`), embedded metadata, defaults. */
  private decode(object: JsonObject, version: VersionEntry, keepNulls = false): { object: JsonObject; unknownFields: string[]; error?: FieldError } {
    const meta = coerceObjectMeta(object, '');
    const unknownFields = [...meta.unknown];
    if (meta.error) return { object, unknownFields, error: meta.error };
    if (!this.preserveUnknownFields) {
      unknownFields.push(...pruneUnknownFields(object, version.schema));
      if (!keepNulls) pruneNonNullableNulls(object, version.schema);
    }
    const embedded = { unknown: [] as string[], errors: [] as FieldError[] };
    coerceEmbeddedMeta(object, { ...version.schema, 'x-kubernetes-embedded-resource': false }, '', embedded);
    unknownFields.push(...embedded.unknown.sort());
    if (embedded.errors.length) return { object, unknownFields, error: embedded.errors[0] };
    applyDefaults(object, version.schema);
    return { object, unknownFields };
  }

  private validateWrite(object: JsonObject, old: JsonObject | undefined, version: VersionEntry): FieldError[] {
    const typeErrors = validateTypeMeta(object, this.kind, `${this.group}/${version.name}`);
    if (typeErrors.length) return typeErrors;
    const errors: FieldError[] = [];
    const meta = isObject(object.metadata) ? object.metadata : {};
    if (old) errors.push(...validateObjectMetaUpdate(meta, isObject(old.metadata) ? old.metadata : {}, 'metadata'));
    else errors.push(...validateObjectMeta(meta, this.namespaced, resourceNameRules, 'metadata'));
    validateAgainstSchema(object, version.schema, { errors, base: undefined }, old ? { value: old } : undefined);
    errors.push(...validateScaleSpec(object, version.scale), ...validateScaleStatus(object, version.scale));
    validateEmbeddedResources(object, version.schema, '', errors);
    const listErrors: FieldError[] = [];
    if (old) validateListTypes(old, version.schema, '', listErrors);
    if (listErrors.length === 0) validateListTypes(object, version.schema, '', errors);
    this.runRules(object, old, version, errors);
    return errors;
  }

  private validateStatusWrite(object: JsonObject, old: JsonObject, version: VersionEntry): FieldError[] {
    const typeErrors = validateTypeMeta(object, this.kind, `${this.group}/${version.name}`);
    if (typeErrors.length) return typeErrors;
    const errors = validateObjectMetaUpdate(isObject(object.metadata) ? object.metadata : {}, isObject(old.metadata) ? old.metadata : {}, 'metadata');
    if ('status' in object && version.statusSchema) {
      validateAgainstSchema(object.status, version.statusSchema, { errors, base: 'status' }, 'status' in old ? { value: old.status } : undefined);
    }
    errors.push(...validateScaleStatus(object, version.scale));
    const listErrors: FieldError[] = [];
    validateListTypes(object, version.schema, '', listErrors);
    if (listErrors.length) {
      const oldListErrors: FieldError[] = [];
      validateListTypes(old, version.schema, '', oldListErrors);
      if (oldListErrors.length === 0) errors.push(...listErrors);
    }
    this.runRules(object, old, version, errors);
    return errors;
  }

  private runRules(object: JsonObject, old: JsonObject | undefined, version: VersionEntry, errors: FieldError[]): void {
    // A version without rules has nothing left unchecked (the apiserver says so only where rules were skipped).
    if (!this.rules || !version.rules) return;
    if (errors.some((e) => BLOCKING.has(e.reason))) {
      errors.push(fieldInvalid('', null, RULES_NOT_CHECKED));
      return;
    }
    this.rules.walk(object, version.schema, '', old ? { value: old } : undefined, errors, true);
  }
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** `rest.BeforeCreate`: an object with `generateName` and no name gets one (the prefix, cut to 58, and 5 characters). */
function generateNameIfAsked(object: JsonObject): void {
  const meta = object.metadata;
  if (!isObject(meta) || meta.name || typeof meta.generateName !== 'string' || !meta.generateName) return;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  meta.name = meta.generateName.slice(0, 58) + suffix;
}

/** The strategy's PrepareForCreate/PrepareForUpdate and the status strategy's: what of the write is kept. */
function prepare(object: JsonObject, old: JsonObject | undefined, operation: WriteOperation, statusSubresource: boolean): void {
  if (operation === 'status') {
    const hasStatus = 'status' in object;
    const status = object.status;
    const managedFields = isObject(object.metadata) ? object.metadata.managedFields : undefined;
    for (const k of Object.keys(object)) delete object[k];
    Object.assign(object, cloneJson(old ?? {}));
    if (managedFields !== undefined && isObject(object.metadata)) object.metadata.managedFields = managedFields;
    if (hasStatus) object.status = status;
    else delete object.status;
    return;
  }
  if (!statusSubresource) return;
  if (operation === 'create' || !old) delete object.status;
  else if ('status' in old) object.status = cloneJson(old.status);
  else delete object.status;
}

/**
 * Builds the validator of a CRD. Its CEL rules are evaluated by `options.compileRules`, or by the runtime's own CEL
 * layer, loaded on first need (only for CRDs that have `x-kubernetes-validations`). Throws, naming them and the
 * `npm install` line, when the optional validation packages are not installed.
 */
export async function createValidator(crd: ValidatedCrd, options: CreateValidatorOptions = {}): Promise<CrdValidator> {
  requireValidationPackages();
  if (options.compileRules) return new CrdValidator(crd, options);
  const needsRules = (crd?.spec?.versions ?? []).some((v) => v.served !== false && hasRules(v.schema?.openAPIV3Schema as StructuralSchema | undefined));
  if (!needsRules) return new CrdValidator(crd, options);
  return new CrdValidator(crd, { compileRules: await loadCelLayer() });
}

let celLayer: Promise<CompileRules> | undefined;
/** The runtime's CEL layer (`validation/cel`, and with it @bufbuild/cel), imported once, when a CRD has rules. */
export function loadCelLayer(): Promise<CompileRules> {
  celLayer ??= import('./cel/index.js').then(
    (m) => m.compileRules,
    (e: unknown) => {
      celLayer = undefined;
      throw new Error(`x-kubernetes-validations need the CEL layer (validation/cel), which did not load: ${e instanceof Error ? e.message : String(e)}`);
    },
  );
  return celLayer;
}
