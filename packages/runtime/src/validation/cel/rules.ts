/**
 * Compiles a schema node's `x-kubernetes-validations` and evaluates them as the apiserver's CEL validator does
 * (apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go): transition rules (those using `oldSelf`) only with
 * a correlated old value unless `optionalOldSelf`; a false result reports `message`, else `messageExpression`'s
 * result, else `failed rule: <rule>`; a runtime error reports `<error> evaluating rule: <rule or message>`.
 */
import { plan, isCelError, type CelResult } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type {
  CompiledRules, OldValue, RuleCompileError, RuleViolation, StructuralSchema, ValidationRule,
} from '../types.js';
import { Checker } from './checker.js';
import { type CelT, schemaDeclType, optionalOf, DYN } from './decl.js';
import { ruleEnv } from './env.js';
import { celGoErrorText, formatIssues } from './errors.js';
import { normalizeFieldPath } from './field-path.js';
import { parseCel } from './macros.js';
import { maxId } from './ast.js';
import { rewriteSemanticOps } from './semantic-lists.js';
import { noneValue, optionalValue } from './optional.js';
import { toCel } from './values.js';

type Program = (ctx: Record<string, unknown>) => CelResult;

interface CompiledRule {
  rule: ValidationRule;
  /** The normalized fieldPath with a leading dot, or ''. */
  fieldPath: string;
  program: Program;
  usesOldSelf: boolean;
  /** Whether the rule or its messageExpression reads oldSelf (only then is the old value converted). */
  readsOldSelf: boolean;
  messageExpression?: Program;
}

/** The max length of a messageExpression's result (celconfig.MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

/** Compiles one node's rules; `isResourceRoot` for the root of a custom resource (adds apiVersion/kind/metadata). */
export function compileNodeRules(node: StructuralSchema, isResourceRoot = false): CompiledRules {
  const rules = node['x-kubernetes-validations'] ?? [];
  const compileErrors: RuleCompileError[] = [];
  const compiled: CompiledRule[] = [];
  const selfType = schemaDeclType(node, isResourceRoot || node['x-kubernetes-embedded-resource'] === true) ?? DYN;
  rules.forEach((rule, index) => {
    const result = compileRule(rule, selfType, node);
    if ('error' in result) compileErrors.push({ index, rule: rule.rule, message: result.error, field: result.field });
    else compiled.push(result);
  });
  const isRoot = isResourceRoot || node['x-kubernetes-embedded-resource'] === true;
  return {
    compileErrors,
    evaluate(self, old) {
      if (self === null || self === undefined || compiled.length === 0) return [];
      return evaluateRules(compiled, node, isRoot, self, old);
    },
  };
}

type CompileFailure = { error: string; field: NonNullable<RuleCompileError['field']> };

const REASONS = new Set(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']);

/** The apiserver's checks of a rule's fields before it compiles it (apiextensions validation.go). */
function checkRuleFields(rule: ValidationRule, node: StructuralSchema): CompileFailure | { fieldPath: string } {
  const trimmedRule = rule.rule.trim();
  const trimmedMsg = (rule.message ?? '').trim();
  if (trimmedRule === '') return { error: 'rule is not specified', field: 'rule' };
  if ((rule.message ?? '') !== '' && trimmedMsg === '') return { error: 'must be non-empty if specified', field: 'message' };
  if (trimmedMsg.includes('\n')) return { error: 'must not contain line breaks', field: 'message' };
  if (trimmedRule.includes('\n') && trimmedMsg === '') return { error: 'message must be specified if rule contains line breaks', field: 'message' };
  if ((rule.messageExpression ?? '') !== '' && rule.messageExpression!.trim() === '') {
    return { error: 'messageExpression must be non-empty if specified', field: 'messageExpression' };
  }
  if (rule.reason !== undefined && !REASONS.has(rule.reason)) {
    return { error: `Unsupported value: "${rule.reason}": supported values: "${[...REASONS].sort().join('", "')}"`, field: 'reason' };
  }
  const fp = rule.fieldPath ?? '';
  if (fp !== '' && fp.trim() === '') return { error: 'must be non-empty if specified', field: 'fieldPath' };
  if (fp.includes('\n')) return { error: 'must not contain line breaks', field: 'fieldPath' };
  if (fp === '') return { fieldPath: '' };
  try {
    return { fieldPath: `.${normalizeFieldPath(fp, node)}` };
  } catch {
    return { error: 'must be a valid path', field: 'fieldPath' };
  }
}

function compileRule(rule: ValidationRule, selfType: CelT, node: StructuralSchema): CompiledRule | CompileFailure {
  const fields = checkRuleFields(rule, node);
  if ('error' in fields) return fields;
  const optionalOld = rule.optionalOldSelf === true;
  const vars = new Map<string, CelT>([
    ['self', selfType],
    ['oldSelf', optionalOld ? optionalOf(selfType) : selfType],
  ]);
  const main = compileExpression(rule.rule, vars);
  if ('error' in main) return { error: main.error, field: 'rule' };
  if (main.type.kind !== 'dyn' && !(main.type.kind === 'scalar' && main.type.name === 'bool')) {
    return { error: 'cel expression must evaluate to a bool', field: 'rule' };
  }
  const out: CompiledRule = { rule, fieldPath: fields.fieldPath, program: main.program, usesOldSelf: main.usesOldSelf, readsOldSelf: main.usesOldSelf };
  if (rule.messageExpression !== undefined && rule.messageExpression.trim() !== '') {
    const msg = compileExpression(rule.messageExpression, vars);
    if ('error' in msg) return { error: `messageExpression ${msg.error}`, field: 'messageExpression' };
    if (msg.type.kind !== 'dyn' && !(msg.type.kind === 'scalar' && msg.type.name === 'string')) {
      return { error: 'messageExpression must evaluate to a string', field: 'messageExpression' };
    }
    out.messageExpression = msg.program;
    out.readsOldSelf ||= msg.usesOldSelf;
  }
  return out;
}

function compileExpression(
  source: string,
  vars: ReadonlyMap<string, CelT>,
): { program: Program; type: CelT; usesOldSelf: boolean } | { error: string } {
  let parsed: ReturnType<typeof parseCel>;
  try {
    parsed = parseCel(source);
  } catch (e) {
    return { error: `compilation failed: ERROR: ${(e as Error).message}` };
  }
  const { env, signatures } = ruleEnv();
  const checker = new Checker(vars, signatures, parsed.sourceInfo?.positions ?? {}, source);
  const type = checker.check(parsed.expr);
  if (checker.issues.length > 0) return { error: `compilation failed: ${formatIssues(source, checker.issues)}` };
  if (checker.instantiationErrors.length > 0) return { error: `program instantiation failed: ${checker.instantiationErrors[0]}` };
  let next = maxId(parsed.expr) + 1n;
  rewriteSemanticOps(parsed.expr, checker.semanticOps, () => next++);
  const run = plan(env, parsed) as unknown as Program;
  return { program: run, type, usesOldSelf: references(parsed.expr, 'oldSelf') };
}

/** Whether the expression references the global variable `name` (not shadowed by a comprehension variable). */
function references(e: Expr, name: string): boolean {
  let found = false;
  const visit = (x: Expr | undefined, shadowed: boolean): void => {
    if (!x || found) return;
    const k = x.exprKind;
    switch (k.case) {
      case 'identExpr':
        if (k.value.name === name && !shadowed) found = true;
        return;
      case 'selectExpr':
        return visit(k.value.operand, shadowed);
      case 'callExpr':
        visit(k.value.target, shadowed);
        return k.value.args.forEach((a) => visit(a, shadowed));
      case 'listExpr':
        return k.value.elements.forEach((a) => visit(a, shadowed));
      case 'structExpr':
        return k.value.entries.forEach((en) => {
          if (en.keyKind.case === 'mapKey') visit(en.keyKind.value, shadowed);
          visit(en.value, shadowed);
        });
      case 'comprehensionExpr': {
        const c = k.value;
        const inner = shadowed || c.iterVar === name || c.iterVar2 === name || c.accuVar === name;
        visit(c.iterRange, shadowed);
        visit(c.accuInit, shadowed);
        visit(c.loopCondition, inner);
        visit(c.loopStep, inner);
        visit(c.result, shadowed || c.accuVar === name);
        return;
      }
      default:
        return;
    }
  };
  visit(e, false);
  return found;
}

function evaluateRules(
  compiled: readonly CompiledRule[],
  node: StructuralSchema,
  isRoot: boolean,
  self: unknown,
  old: OldValue | undefined,
): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const selfVal = lazy(() => toCel(self, node, isRoot));
  const oldVal = lazy(() => (old && old.value !== null && old.value !== undefined ? toCel(old.value, node, isRoot) : undefined));
  for (const c of compiled) {
    const { rule } = c;
    const optionalOld = rule.optionalOldSelf === true;
    const hasOld = old !== undefined && old.value !== null && old.value !== undefined;
    if (c.usesOldSelf && !hasOld && !optionalOld) continue;
    let bindings: Record<string, unknown>;
    let result: CelResult;
    try {
      // Like the server's lazy activation, the old value is converted only for rules that read it.
      const oldSelf = !c.readsOldSelf ? undefined : optionalOld ? (hasOld ? optionalValue(oldVal()) : noneValue()) : oldVal();
      bindings = { self: selfVal(), ...(oldSelf !== undefined ? { oldSelf } : {}) };
      result = c.program(bindings);
    } catch (e) {
      violations.push(runtimeError(rule, (e as Error).message));
      continue;
    }
    if (isCelError(result)) {
      violations.push(runtimeError(rule, result.message));
      continue;
    }
    if (result === true) continue;
    if (typeof result !== 'boolean') {
      violations.push(runtimeError(rule, `no such overload`));
      continue;
    }
    let message = ruleMessageOrDefault(rule);
    if (c.messageExpression) {
      // The server evaluates messageExpression with the plain activation even for an optionalOldSelf rule: oldSelf
      // is then the bare old value (or unbound on create), not an optional.
      const messageBindings = optionalOld ? { self: selfVal(), ...(hasOld && c.readsOldSelf ? { oldSelf: oldVal() } : {}) } : bindings;
      const m = evalMessageExpression(c.messageExpression, messageBindings);
      if (m !== undefined) message = m;
    }
    const reason = rule.reason ?? 'FieldValueInvalid';
    violations.push({ fieldPath: c.fieldPath, reason, message: reason === 'FieldValueDuplicate' ? '' : message, rule: rule.rule });
  }
  return violations;
}

/** The messageExpression's text, or undefined when the server would fall back to the rule's message. */
function evalMessageExpression(program: Program, bindings: Record<string, unknown>): string | undefined {
  let result: CelResult;
  try {
    result = program(bindings);
  } catch {
    return undefined;
  }
  if (typeof result !== 'string') return undefined;
  const trimmed = result.trim();
  if (Buffer.byteLength(trimmed) > MAX_MESSAGE_EXPRESSION_BYTES || /\n/.test(trimmed) || trimmed === '') return undefined;
  return trimmed;
}

function runtimeError(rule: ValidationRule, message: string): RuleViolation {
  const text = celGoErrorText(message);
  const detail = text.startsWith('no such overload')
    ? `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`
    : `${text} evaluating rule: ${ruleErrorString(rule)}`;
  return { fieldPath: '', reason: 'FieldValueInvalid', message: detail, rule: rule.rule, runtimeError: true };
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : rule.rule.trim();
}

function lazy<T>(f: () => T): () => T {
  let done = false;
  let v: T;
  return () => {
    if (!done) {
      v = f();
      done = true;
    }
    return v;
  };
}

