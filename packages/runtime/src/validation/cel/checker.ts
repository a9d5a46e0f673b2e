/**
 * A type checker for rules over the schema's declared types: `@bufbuild/cel` evaluates dynamically and checks
 * nothing, but the apiserver refuses a rule that selects a field the schema does not declare, references an unknown
 * variable or function, passes the wrong types, or does not yield a bool. This checker reports those with cel-go's
 * wording (`undefined field 'x'`, `undeclared reference to 'x' (in container '')`, `found no matching overload for
 * ...`). Where a type is `dyn` (int-or-string, comprehension accumulators it cannot infer) it accepts, as cel-go does.
 * The AST rewrites it makes as it learns types are in checker-rewrites.ts; where it places issues, issue-position.ts.
 */
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import {
  type CelT, DYN, BOOL, INT, TIMESTAMP, DURATION, TYPE, listOf, mapOf,
  assignable, typeName, optionalOf,
} from './decl.js';
import type { Signature } from './signatures.js';
import { hasSemanticList, type SemanticOp } from './semantic-lists.js';
import { NUMERIC, comparableForEquality, constType, isScalar, orderable, qualifiedName, sameType, unifiable } from './checker-types.js';
import { parseDateTime, parseGoDuration } from './time.js';
import { re2 } from '../optional-packages.js';
import { succeeds } from './library/shared.js';
import { isCelReservedWord } from './escape.js';
import { renameSelectedField, toOptionalIndex, toOptionalSelect } from './checker-rewrites.js';
import { celGoOffset } from './issue-position.js';

const isRe2 = (pattern: string): boolean => succeeds(() => re2().compile(pattern));

export interface CheckIssue {
  /** Offset into the source of the expression the issue is about. */
  offset: number;
  message: string;
}

/** Identifiers that name types (`type(x) == string`). */
const TYPE_IDENTS = new Set(['bool', 'int', 'uint', 'double', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);

/** Qualified names of types (`type(x) == net.IP`): the libraries' opaque types and the protobuf time types. */
const QUALIFIED_TYPES = new Set([
  'net.IP', 'net.CIDR', 'kubernetes.URL', 'kubernetes.Quantity', 'kubernetes.Semver', 'kubernetes.NamedFormat',
  'google.protobuf.Timestamp', 'google.protobuf.Duration',
]);


export class Checker {
  readonly issues: CheckIssue[] = [];
  /**
   * Errors cel-go reports when it builds the program rather than when it checks it: a constant pattern of `find` or
   * `findAll` that is not RE2 (k8s compiles those patterns up front).
   */
  readonly instantiationErrors: string[] = [];
  /** Operators whose left operand holds set/map lists: evaluated with the apiserver's list semantics. */
  readonly semanticOps: SemanticOp[] = [];
  private readonly scopes: Map<string, CelT>[] = [];
  private readonly byName = new Map<string, Signature[]>();
  private inFormat = 0;

  constructor(
    private readonly vars: ReadonlyMap<string, CelT>,
    signatures: readonly Signature[],
    private readonly positions: Record<string, number>,
    /** The expression's text, to place issues where cel-go does; without it, where `@bufbuild/cel` does. */
    private readonly source?: string,
  ) {
    for (const s of signatures) {
      const list = this.byName.get(s.name) ?? [];
      list.push(s);
      this.byName.set(s.name, list);
    }
  }

  check(e: Expr): CelT {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return constType(k.value.constantKind.case);
      case 'identExpr':
        return this.ident(e, k.value.name);
      case 'selectExpr': {
        const qualified = qualifiedName(e);
        if (qualified !== undefined && !this.isVariable(qualified.split('.')[0]!) && QUALIFIED_TYPES.has(qualified)) return TYPE;
        // A variable with a dotted name (`a.b`) is found by its longest declared prefix, as cel-go resolves them.
        if (qualified !== undefined && !k.value.testOnly && !this.scopes.some((sc) => sc.has(qualified.split('.')[0]!)) && this.vars.has(qualified)) return this.vars.get(qualified)!;
        const operand = k.value.operand;
        if (!operand) return DYN;
        const t = this.check(operand);
        if (t.kind === 'optional' && k.value.testOnly) {
          // `has(x.?a.b)`: whether the optional holds a value with the field.
          const field = k.value.field;
          toOptionalSelect(e, '@optHas', operand, field);
          this.select(e, t.inner, field);
          return BOOL;
        }
        if (t.kind === 'optional' && !k.value.testOnly) {
          // Selecting on an optional chains: `x.?a.b` is `x.?a.?b`, and so evaluates as an optional select.
          const field = k.value.field;
          toOptionalSelect(e, '@optSelect', operand, field);
          return optionalOf(this.select(e, t.inner, field));
        }
        const field = this.select(e, t, k.value.field);
        return k.value.testOnly ? BOOL : field;
      }
      case 'callExpr':
        return this.call(e, k.value.function, k.value.target, k.value.args);
      case 'listExpr': {
        const elems = k.value.elements.map((x) => this.check(x));
        this.homogeneous(k.value.elements, elems);
        return listOf(this.join(elems));
      }
      case 'structExpr': {
        const keys: CelT[] = [];
        const values: CelT[] = [];
        const keyExprs: Expr[] = [];
        const valueExprs: Expr[] = [];
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') {
            keyExprs.push(entry.keyKind.value);
            keys.push(this.check(entry.keyKind.value));
          }
          if (entry.value) {
            valueExprs.push(entry.value);
            values.push(this.check(entry.value));
          }
        }
        this.homogeneous(keyExprs, keys);
        this.homogeneous(valueExprs, values);
        return k.value.messageName ? DYN : mapOf(this.join(keys), this.join(values));
      }
      case 'comprehensionExpr':
        return this.comprehension(k.value);
      default:
        return DYN;
    }
  }

  private isVariable(name: string): boolean {
    return this.scopes.some((s) => s.has(name)) || this.vars.has(name);
  }

  private ident(e: Expr, name: string): CelT {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]!.get(name);
      if (t) return t;
    }
    const v = this.vars.get(name);
    if (v) return v;
    if (TYPE_IDENTS.has(name)) return TYPE;
    this.issue(e, `undeclared reference to '${name}' (in container '')`);
    return DYN;
  }

  private select(e: Expr, t: CelT, field: string): CelT {
    switch (t.kind) {
      case 'object': {
        const f = t.fields.get(field);
        if (f) return f;
        // A reserved word names its field bare (`self.namespace` for the escaped `__namespace__`), as the apiserver
        // accepts since compatibility version 1.31 (`recognizeKeywordAsFieldName`); the expression is rewritten to the
        // escaped name, which is how objects' fields are keyed.
        const escaped = isCelReservedWord(field) ? t.fields.get(`__${field}__`) : undefined;
        if (escaped) {
          renameSelectedField(e, `__${field}__`);
          return escaped;
        }
        this.issue(e, `undefined field '${field}'`);
        return DYN;
      }
      case 'map':
        return t.value;
      case 'dyn':
        return DYN;
      default:
        this.issue(e, `type '${typeName(t)}' does not support field selection`);
        return DYN;
    }
  }

  private comprehension(c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value']): CelT {
    const range = c.iterRange ? this.check(c.iterRange) : DYN;
    const iterType = range.kind === 'list' ? range.elem : range.kind === 'map' ? range.key : DYN;
    const init = c.accuInit ? this.check(c.accuInit) : DYN;
    const scope = new Map<string, CelT>([[c.accuVar, init]]);
    this.scopes.push(scope);
    scope.set(c.iterVar, iterType);
    if (c.iterVar2) scope.set(c.iterVar2, range.kind === 'map' ? range.value : range.kind === 'list' ? range.elem : DYN);
    if (c.loopCondition) this.check(c.loopCondition);
    if (c.loopStep) {
      const step = this.check(c.loopStep);
      // `map`/`filter`/`transformMap` start from an empty list or map whose element type the step decides.
      if ((init.kind === 'list' && init.elem.kind === 'dyn') || (init.kind === 'map' && init.value.kind === 'dyn')) scope.set(c.accuVar, step);
    }
    scope.delete(c.iterVar);
    if (c.iterVar2) scope.delete(c.iterVar2);
    const result = c.result ? this.check(c.result) : DYN;
    this.scopes.pop();
    return result;
  }

  private call(e: Expr, fn: string, target: Expr | undefined, argExprs: Expr[]): CelT {
    // `format` takes mixed lists ('%s %d'.format(['a', 1])): the homogeneity check skips its arguments.
    if (fn === 'format') this.inFormat++;
    try {
      return this.callTyped(e, fn, target, argExprs);
    } finally {
      if (fn === 'format') this.inFormat--;
      this.validateLiteral(fn, target, argExprs);
    }
  }

  /** `x.?f` (`@optSelect`) and `x[?k]` (`@optIndex`): optional of the element's type; `x` may itself be optional. */
  private optionalAccess(e: Expr, fn: string, argExprs: Expr[]): CelT {
    let t = argExprs[0] ? this.check(argExprs[0]) : DYN;
    if (t.kind === 'optional') t = t.inner;
    const key = argExprs[1];
    if (fn === '@optSelect') {
      const k = key?.exprKind;
      const name = k?.case === 'constExpr' && k.value.constantKind.case === 'stringValue' ? k.value.constantKind.value : '';
      return optionalOf(this.select(e, t, name));
    }
    const kt = key ? this.check(key) : DYN;
    if (t.kind === 'list') return optionalOf(t.elem);
    if (t.kind === 'map') {
      if (assignable(t.key, kt)) return optionalOf(t.value);
      this.issue(e, `found no matching overload for '_[?_]' applied to '(${typeName(t)}, ${typeName(kt)})'`);
      return DYN;
    }
    return optionalOf(DYN);
  }

  /** `[a, ?b]` (`@optList`) and `{k: v, ?k2: v2}` (`@optMap`): an optional entry's value is `optional_type(T)`, counted as T. */
  private optionalEntries(fn: string, argExprs: Expr[]): CelT {
    const lists = argExprs.map((a) => (a.exprKind.case === 'listExpr' ? a.exprKind.value.elements : []));
    const optional = new Set(lists[lists.length - 1]!.map((x) => (x.exprKind.case === 'constExpr' ? Number(x.exprKind.value.constantKind.value) : -1)));
    const unwrapped = (exprs: Expr[], opt: boolean): CelT[] =>
      exprs.map((x, i) => {
        const t = this.check(x);
        if (!opt || !optional.has(i) || t.kind === 'dyn') return t;
        if (t.kind === 'optional') return t.inner;
        this.issue(x, `expected type '${typeName(optionalOf(t))}' but found '${typeName(t)}'`);
        return DYN;
      });
    const values = unwrapped(lists[fn === '@optList' ? 0 : 1]!, true);
    this.homogeneous(lists[fn === '@optList' ? 0 : 1]!, values);
    if (fn === '@optList') return listOf(this.join(values));
    const keys = unwrapped(lists[0]!, false);
    this.homogeneous(lists[0]!, keys);
    return mapOf(this.join(keys), this.join(values));
  }

  /**
   * cel-go's ValidateHomogeneousAggregateLiterals: every entry of a list or map literal has the first one's type. Where
   * this checker only knows `dyn` it cannot tell, and accepts (cel-go, knowing more, may refuse).
   */
  private homogeneous(exprs: Expr[], types: CelT[]): void {
    if (this.inFormat > 0 || types.length === 0 || types.some((t) => t.kind === 'dyn')) return;
    const first = types[0]!;
    const i = types.findIndex((t) => !sameType(t, first));
    if (i >= 0) this.issue(exprs[i]!, `expected type '${typeName(first)}' but found '${typeName(types[i]!)}'`);
  }

  /** cel-go's ValidateDurationLiterals, ValidateTimestampLiterals and ValidateRegexLiterals. */
  private validateLiteral(fn: string, target: Expr | undefined, args: Expr[]): void {
    if ((fn === 'find' || fn === 'findAll') && target) {
      const p = args[0];
      if (p?.exprKind.case === 'constExpr' && p.exprKind.value.constantKind.case === 'stringValue') {
        const pattern = p.exprKind.value.constantKind.value;
        try {
          re2().compile(pattern);
        } catch (e) {
          const msg = (e as Error).message;
          this.instantiationErrors.push(msg.startsWith('error parsing regexp: ') ? msg : `error parsing regexp: ${msg}`);
        }
      }
      return;
    }
    const lit = fn === 'matches' ? (target ? args[0] : args[1]) : (fn === 'duration' || fn === 'timestamp') && !target ? args[0] : undefined;
    if (!lit || lit.exprKind.case !== 'constExpr' || lit.exprKind.value.constantKind.case !== 'stringValue') return;
    const text = lit.exprKind.value.constantKind.value;
    const valid = fn === 'matches' ? isRe2(text) : fn === 'duration' ? parseGoDuration(text) !== undefined : parseDateTime(text) !== undefined;
    if (!valid) this.issue(lit, `invalid ${fn} argument`);
  }

  private callTyped(e: Expr, fn: string, target: Expr | undefined, argExprs: Expr[]): CelT {
    if (fn === '@optSelect' || fn === '@optIndex') return this.optionalAccess(e, fn, argExprs);
    if (fn === '@optList' || fn === '@optMap') return this.optionalEntries(fn, argExprs);
    const qualified = target ? qualifiedName(target) : undefined;
    if (qualified !== undefined && !this.isVariable(qualified.split('.')[0]!) && this.byName.has(`${qualified}.${fn}`)) {
      return this.overload(e, `${qualified}.${fn}`, undefined, argExprs.map((a) => this.check(a)));
    }
    const t = target ? this.check(target) : undefined;
    const args = argExprs.map((a) => this.check(a));
    const op = this.operator(e, fn, args);
    if (op) return op;
    return this.overload(e, fn, t, args);
  }

  private overload(e: Expr, fn: string, t: CelT | undefined, args: CelT[]): CelT {
    const candidates = this.byName.get(fn);
    if (!candidates) {
      this.issue(e, `undeclared reference to '${fn}' (in container '')`);
      return DYN;
    }
    const results: CelT[] = [];
    for (const s of candidates) {
      if ((s.target === undefined) !== (t === undefined)) continue;
      if (s.target && t && !assignable(s.target, t)) continue;
      if (s.args.length !== args.length || !s.args.every((a, i) => assignable(a, args[i]!))) continue;
      results.push(typeof s.result === 'function' ? s.result(t, args) : s.result);
    }
    if (results.length === 0) {
      const sig = `${t ? `${typeName(t)}.` : ''}(${args.map(typeName).join(', ')})`;
      this.issue(e, `found no matching overload for '${fn}' applied to '${sig}'`);
      return DYN;
    }
    return results.every((r) => sameType(r, results[0]!)) ? results[0]! : DYN;
  }

  /** Operators' types; undefined when `fn` is not an operator. */
  private operator(e: Expr, fn: string, args: CelT[]): CelT | undefined {
    const [a = DYN, b = DYN] = args;
    const bad = (): CelT => {
      this.issue(e, `found no matching overload for '${fn}' applied to '(${args.map(typeName).join(', ')})'`);
      return DYN;
    };
    switch (fn) {
      case '_&&_':
      case '_||_':
        return args.every((x) => assignable(BOOL, x)) ? BOOL : bad();
      case '!_':
      case '@not_strictly_false':
      case '__not_strictly_false__':
        return assignable(BOOL, a) ? BOOL : bad();
      case '_==_':
      case '_!=_':
        if (hasSemanticList(a)) this.semanticOps.push({ id: e.id, op: fn, type: a });
        return comparableForEquality(a, b) ? BOOL : bad();
      case '_<_':
      case '_<=_':
      case '_>_':
      case '_>=_':
        return orderable(a, b) ? BOOL : bad();
      case '@in':
        if (b.kind === 'list') return assignable(b.elem, a) || a.kind === 'scalar' && NUMERIC.has(a.name) ? BOOL : bad();
        if (b.kind === 'map') return assignable(b.key, a) ? BOOL : bad();
        return b.kind === 'dyn' ? BOOL : bad();
      case '_?_:_': {
        const c = args[2] ?? DYN;
        if (!assignable(BOOL, a)) return bad();
        if (b.kind === 'dyn') return c;
        if (c.kind === 'dyn' || b.kind === 'scalar' && b.name === 'null_type') return c.kind === 'dyn' ? b : c;
        if (c.kind === 'scalar' && c.name === 'null_type') return b;
        return assignable(b, c) ? b : bad();
      }
      case '_[_]':
        if (a.kind === 'optional') {
          // Indexing an optional chains, as selecting does.
          toOptionalIndex(e);
          const inner = a.inner;
          return optionalOf(inner.kind === 'list' ? inner.elem : inner.kind === 'map' ? inner.value : DYN);
        }
        if (a.kind === 'list') return assignable(INT, b) || b.kind === 'scalar' && NUMERIC.has(b.name) ? a.elem : bad();
        if (a.kind === 'map') return assignable(a.key, b) ? a.value : bad();
        return a.kind === 'dyn' ? DYN : bad();
      case '-_':
        return a.kind === 'dyn' || a.kind === 'scalar' && ['int', 'double', 'duration'].includes(a.name) ? a : bad();
      case '_+_':
        if (a.kind === 'list' && a.listType !== undefined) {
          // A set/map list's `+` is again a set/map list (union or merge), so its result keeps the declared type.
          this.semanticOps.push({ id: e.id, op: fn, type: a });
          return b.kind === 'dyn' || (b.kind === 'list' && unifiable(a.elem, b.elem)) ? a : bad();
        }
        return this.arith(fn, a, b, bad, true);
      case '_-_':
        if (isScalar(a, 'timestamp') && isScalar(b, 'timestamp')) return DURATION;
        if (isScalar(a, 'timestamp') && isScalar(b, 'duration')) return TIMESTAMP;
        return this.arith(fn, a, b, bad, false);
      case '_*_':
      case '_/_':
      case '_%_':
        if (a.kind === 'dyn') return b;
        if (b.kind === 'dyn') return a;
        return a.kind === 'scalar' && b.kind === 'scalar' && a.name === b.name && NUMERIC.has(a.name) && !(fn === '_%_' && a.name === 'double') ? a : bad();
      default:
        return undefined;
    }
  }

  private arith(fn: string, a: CelT, b: CelT, bad: () => CelT, plus: boolean): CelT {
    if (a.kind === 'dyn') return b.kind === 'list' ? listOf(DYN) : b;
    if (b.kind === 'dyn') return a;
    if (plus && a.kind === 'list' && b.kind === 'list') return unifiable(a.elem, b.elem) ? listOf(this.join([a.elem, b.elem])) : bad();
    if (plus && isScalar(a, 'timestamp') && isScalar(b, 'duration')) return TIMESTAMP;
    if (plus && isScalar(a, 'duration') && isScalar(b, 'timestamp')) return TIMESTAMP;
    if (a.kind === 'scalar' && b.kind === 'scalar' && a.name === b.name) {
      if (NUMERIC.has(a.name) || a.name === 'duration' || (plus && (a.name === 'string' || a.name === 'bytes'))) return a;
    }
    void fn;
    return bad();
  }

  /** The common type of list elements or map keys/values: the one type, or dyn when they differ. */
  private join(types: CelT[]): CelT {
    const known = types.filter((t) => t.kind !== 'dyn');
    if (known.length === 0) return DYN;
    return known.every((t) => sameType(t, known[0]!)) ? known[0]! : DYN;
  }

  private issue(e: Expr, message: string): void {
    this.issues.push({ offset: celGoOffset(e, this.positions, this.source), message });
  }
}
