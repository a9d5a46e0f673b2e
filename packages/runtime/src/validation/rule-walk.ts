/**
 * Evaluates `x-kubernetes-validations` over an object as the apiserver's CEL validator walks it
 * (`schema/cel/validation.go`): every non-null node whose schema carries rules is handed to the CEL layer (an injected
 * `CompileRules`) with its value and, on update, its correlated old value (object fields, map keys, list-map keys);
 * `allOf` branches' rules run on the same value. Violations become field errors at the node's path plus the rule's
 * `fieldPath`, with the reason the rule names. A rule that does not use `oldSelf` is ratcheted: when the node equals
 * its old value, its failure is dropped (the server turns it into a warning).
 */
import type { CompileRules, CompiledRules, RuleViolation, StructuralSchema } from './types.js';
import {
  fieldDuplicate, fieldForbidden, fieldInvalid, fieldRequired, OMIT_VALUE, type FieldError,
} from './field-error.js';
import { deepEqual, isObject } from './json-value.js';
import { schemaFacts } from './schema-index.js';
import { itemCorrelator, type OldRef } from './schema-walk.js';

/** Whether any node of the schema carries `x-kubernetes-validations` (so the CEL layer is needed at all). */
export const hasRules = (s: StructuralSchema | undefined): boolean => (s ? schemaFacts(s).hasRules : false);

/** The schema CEL sees at a resource root: `apiVersion`, `kind` and `metadata.name`/`generateName` typed (`WithTypeAndObjectMeta`). */
export function withTypeAndObjectMeta(s: StructuralSchema): StructuralSchema {
  return {
    ...s,
    type: 'object',
    properties: {
      ...s.properties,
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

/** Compiles each rule-carrying node once and walks objects against the schema. */
export class RuleWalker {
  private readonly compiled = new WeakMap<StructuralSchema, CompiledRules>();

  constructor(private readonly compileRules: CompileRules) {}

  /** Evaluates every rule under `value` (the resource root when `resourceRoot`); errors are appended to `errors`. */
  walk(value: unknown, schema: StructuralSchema, base: string, old: OldRef | undefined, errors: FieldError[], resourceRoot: boolean): void {
    this.node(value, schema, base, old, errors, resourceRoot);
  }

  private rulesOf(s: StructuralSchema, resourceRoot: boolean): CompiledRules {
    let c = this.compiled.get(s);
    if (!c) {
      c = this.compileRules(resourceRoot ? withTypeAndObjectMeta(s) : s);
      this.compiled.set(s, c);
    }
    return c;
  }

  private node(v: unknown, s: StructuralSchema, path: string, old: OldRef | undefined, errors: FieldError[], resourceRoot = false): void {
    if (v === null || v === undefined || !schemaFacts(s).hasRules) return;
    if (s['x-kubernetes-validations']?.length) this.evaluate(v, s, path, old, errors, resourceRoot);
    for (const branch of s.allOf ?? []) this.node(v, branch, path, old, errors);
    if (Array.isArray(v)) {
      if (!s.items) return;
      const correlate = old && Array.isArray(old.value) ? itemCorrelator(s, old.value) : undefined;
      for (let i = 0; i < v.length; i++) this.node(v[i], s.items, `${path}[${i}]`, correlate?.(v[i]), errors);
    } else if (isObject(v)) {
      const oldObj = old && isObject(old.value) ? old.value : undefined;
      const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      for (const k of Object.keys(v)) {
        const prop = s.properties?.[k];
        const oldChild = oldObj && k in oldObj ? { value: oldObj[k] } : undefined;
        if (prop) this.node(v[k], prop, path ? `${path}.${k}` : k, oldChild, errors);
        else if (additional) this.node(v[k], additional, `${path}[${k}]`, oldChild, errors);
      }
    }
  }

  private evaluate(v: unknown, s: StructuralSchema, path: string, old: OldRef | undefined, errors: FieldError[], resourceRoot: boolean): void {
    const rules = this.rulesOf(s, resourceRoot);
    const type = s.type ?? '';
    for (const e of rules.compileErrors) errors.push(fieldInvalid(path, type, `rule compile error: ${e.message}`));
    const violations = rules.evaluate(v, old ? { value: old.value } : undefined);
    if (violations.length === 0) return;
    const unchanged = old !== undefined && deepEqual(old.value, v);
    const shown = type === 'object' || type === 'array' ? OMIT_VALUE : v;
    for (const violation of violations) {
      if (unchanged && !/\boldSelf\b/.test(violation.rule)) continue;
      const at = violation.fieldPath ? joinRulePath(path, normalizeRuleFieldPath(violation.fieldPath, s)) : path;
      errors.push(errorForReason(at, shown, violation));
    }
  }
}

function errorForReason(path: string, value: unknown, v: RuleViolation): FieldError {
  switch (v.reason) {
    case 'FieldValueForbidden': return fieldForbidden(path, v.message);
    case 'FieldValueRequired': return fieldRequired(path, v.message);
    case 'FieldValueDuplicate': return fieldDuplicate(path, value);
    default: return fieldInvalid(path, value, v.message);
  }
}

/** Go's `fldPath.Child(normalized)`: always a dot, even before a subscript (`spec.[key]`). */
const joinRulePath = (path: string, rel: string) => (path ? `${path}.${rel}` : rel);

/**
 * A rule's `fieldPath` (`.spec.x`, `.labels['a.b']`) in the apiserver's path spelling (`spec.x`, `labels[a.b]`): a
 * field of a node with properties is a child, a key of a map is a subscript. Unparseable paths are kept as written
 * (the apiserver refuses such a CRD).
 */
export function normalizeRuleFieldPath(fieldPath: string, schema: StructuralSchema): string {
  const tokens = fieldPath.match(/\['(?:[^'\\]|\\.)*'\]|\.[^.[]+/g);
  if (!tokens || tokens.join('') !== fieldPath) return fieldPath.replace(/^\./, '');
  let s: StructuralSchema | undefined = schema;
  let out = '';
  for (const t of tokens) {
    const name = t.startsWith('[') ? t.slice(2, -2).replace(/\\(.)/g, '$1') : t.slice(1);
    if (s?.properties) {
      out = out ? `${out}.${name}` : name;
      s = s.properties[name];
    } else {
      out = `${out}[${name}]`;
      s = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
    }
  }
  return out;
}
