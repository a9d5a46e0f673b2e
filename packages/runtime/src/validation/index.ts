/**
 * `@kubegen/runtime/validation`: validates custom resources against their CRDs offline, as the apiserver does on a
 * write — schema types and formats, enums, bounds, lengths, RE2 patterns, required and nullable fields,
 * int-or-string, preserved unknown fields, embedded resources, list sets and maps, metadata names, defaulting and
 * pruning (with the pruned paths strict field validation refuses), and the CEL rules of `x-kubernetes-validations`
 * including transition rules on update. Errors are the apiserver's: field path, reason and message text.
 *
 * Loaded only when imported; the CEL layer is loaded only for CRDs that have rules. Needs `@bufbuild/cel`,
 * `@bufbuild/cel-spec`, `@bufbuild/protobuf` and `re2js`, which the runtime does not depend on (the `kubegen` CLI
 * brings them): without them importing this entry works, and building a validator throws naming them.
 */
export { CrdValidator, createValidator, loadCelLayer } from './validator.js';
export type {
  CreateValidatorOptions, ValidateOptions, ValidatedCrd, ValidationResult, WriteOperation,
} from './validator.js';
export { fieldErrorText, NIL_PATH } from './field-error.js';
export type { FieldError, FieldErrorReason } from './field-error.js';
export type {
  CompileRules, CompiledRules, OldValue, RuleCompileError, RuleViolation, StructuralSchema, ValidationRule,
} from './types.js';
