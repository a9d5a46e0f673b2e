/**
 * The contract between the structural-schema validator (`validation/`) and the CEL layer (`validation/cel/`):
 * the schema validator walks an object against a CRD version's schema, and at every node that carries
 * `x-kubernetes-validations` it asks the CEL layer to evaluate that node's rules against the node's value (after
 * defaulting and pruning) and, on update, the correlated old value. The CEL layer knows nothing of walking; the
 * walker knows nothing of CEL.
 */

/** A CRD schema node (OpenAPI v3 `JSONSchemaProps`) as the apiserver reads it: only what validation uses is typed. */
export interface StructuralSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, StructuralSchema>;
  items?: StructuralSchema;
  additionalProperties?: StructuralSchema | boolean;
  required?: string[];
  nullable?: boolean;
  default?: unknown;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: StructuralSchema[];
  anyOf?: StructuralSchema[];
  oneOf?: StructuralSchema[];
  not?: StructuralSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** One entry of `x-kubernetes-validations`. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** The apiserver's default is `FieldValueInvalid`. */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** A JSONPath-like path relative to the node: fields and map keys only (`.spec.x`, `['a.b']`, `.labels['k']`). */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** One rule's failure, as the apiserver reports it for the node. */
export interface RuleViolation {
  /**
   * The rule's `fieldPath` normalized as the server does, with a leading dot (`.x.y`, `.m[key]` for
   * `.m['key']`; '' when it has none): the walker appends it to the node's path.
   */
  fieldPath: string;
  reason: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /**
   * The server's detail text: `message`, or `messageExpression`'s result, or `failed rule: <rule>`; '' for
   * `FieldValueDuplicate` (the server's Duplicate error carries no detail: `Duplicate value: <value>`).
   */
  message: string;
  /** The rule text, for reports. */
  rule: string;
  /**
   * True when the rule failed to evaluate (`no such key: x evaluating rule: ...`) rather than yielding false: the
   * server then reports the schema's type as the value (`Invalid value: "object": ...`) and ignores `fieldPath`
   * and `reason`. Absent otherwise.
   */
  runtimeError?: boolean;
}

/** A rule that does not compile (the apiserver refuses such a CRD at install time). */
export interface RuleCompileError {
  /** Index of the rule in the node's `x-kubernetes-validations`. */
  index: number;
  rule: string;
  message: string;
  /**
   * The rule's field the server names (`x-kubernetes-validations[i].<field>`): `rule` when absent. Compile errors
   * of `messageExpression`, and the server's checks of `message`, `reason` and `fieldPath`, name those.
   */
  field?: 'rule' | 'message' | 'messageExpression' | 'reason' | 'fieldPath';
}

/** The old value of a node on update; absent on create, or when the node does not correlate with an old value. */
export interface OldValue {
  value: unknown;
}

/** A node's rules, compiled once per schema and evaluated for many objects. */
export interface CompiledRules {
  readonly compileErrors: readonly RuleCompileError[];
  /**
   * Evaluates every rule of the node against `self` (the node's value after defaulting and pruning). Transition
   * rules (those that use `oldSelf`) run only when `old` is given, unless `optionalOldSelf` is set, as the apiserver
   * does. Never throws for a rule's runtime error: that is a violation, as on the server.
   */
  evaluate(self: unknown, old: OldValue | undefined): RuleViolation[];
}

/** Options of {@link CompileRules}. */
export interface CompileRulesOptions {
  /**
   * The node is the root of a custom resource's schema: `apiVersion`, `kind`, `metadata.name` and
   * `metadata.generateName` are then visible to its rules even when the schema does not declare them (as at every
   * `x-kubernetes-embedded-resource` node, which the CEL layer recognizes itself).
   */
  resourceRoot?: boolean;
}

/** Compiles the `x-kubernetes-validations` of one schema node (`node` gives CEL the type of `self`). */
export type CompileRules = (node: StructuralSchema, options?: CompileRulesOptions) => CompiledRules;
