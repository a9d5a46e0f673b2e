/**
 * Label selectors with exactly Kubernetes' matching rules (k8s.io/apimachinery/pkg/labels): a selector is a list of
 * requirements that must all hold. Selectors are immutable values; build them with `parseSelector`,
 * `selectorFromLabelSelector`, `selectorFromSet`, `everything()` or `nothing()`.
 */
import { validateLabelValue, validateQualifiedName } from './validation.js';

/** The operators of `k8s.io/apimachinery/pkg/selection`, spelled as there. */
export type SelectorOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** Labels as they appear on an object (`metadata.labels`). */
export type Labels = Readonly<Record<string, string>>;

/** One `key op values` clause of a selector. */
export interface Requirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  /** One value for `=`, `==`, `!=`, `gt`, `lt`; one or more for `in`/`notin`; none for `exists`/`!`. */
  readonly values: readonly string[];
}

/** A parsed, immutable label selector (apimachinery `labels.Selector`): requirements that must all hold. */
export interface Selector {
  /** Whether `labels` (undefined = no labels) satisfy every requirement. */
  matches(labels?: Labels): boolean;
  /** True only for a selector with no requirements, which matches everything (`nothing()` is not empty). */
  empty(): boolean;
  /** The canonical string form (requirements sorted by key, set values sorted), parseable by `parseSelector`. */
  toString(): string;
  /** Requirements sorted by key. */
  readonly requirements: readonly Requirement[];
}

const INT64 = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/**
 * Builds a validated requirement (`labels.NewRequirement`): the key must be a qualified name, values valid label
 * values, and the value count must fit the operator. Throws an `Error` naming the problem otherwise.
 */
export function newRequirement(key: string, operator: SelectorOperator, values: readonly string[] = []): Requirement {
  const keyErrs = validateQualifiedName(key);
  if (keyErrs.length > 0) throw new Error(`invalid label key "${key}": ${keyErrs.join('; ')}`);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) throw new Error("for 'in', 'notin' operators, values set can't be empty");
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) throw new Error('exact-match compatibility requires one single value');
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) throw new Error('values set must be empty for exists and does not exist');
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) throw new Error("for 'Gt', 'Lt' operators, exactly one value is required");
      if (parseInt64(values[0]!) === undefined) throw new Error("for 'Gt', 'Lt' operators, the value must be an integer");
      break;
    default:
      throw new Error(`operator '${String(operator)}' is not recognized`);
  }
  for (const v of values) {
    const errs = validateLabelValue(v);
    if (errs.length > 0) throw new Error(`invalid label value: "${v}": at key: "${key}": ${errs.join('; ')}`);
  }
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

/** Whether one requirement holds for `labels`. Note `!=` and `notin` hold when the label is absent. */
export function requirementMatches(r: Requirement, labels: Labels = {}): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const actual = parseInt64(value!);
      const bound = parseInt64(r.values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** The string form of one requirement, as `Requirement.String()` writes it. */
export function requirementToString(r: Requirement): string {
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${[...r.values].sort().join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

class RequirementsSelector implements Selector {
  readonly requirements: readonly Requirement[];
  constructor(requirements: readonly Requirement[]) {
    // Stable sort by key, as Go sorts requirements by key on construction.
    this.requirements = Object.freeze([...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  }
  matches(labels?: Labels): boolean {
    return this.requirements.every((r) => requirementMatches(r, labels));
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }
}

class NothingSelector implements Selector {
  readonly requirements: readonly Requirement[] = Object.freeze([]);
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  toString(): string {
    return '';
  }
}

const EVERYTHING: Selector = new RequirementsSelector([]);
const NOTHING: Selector = new NothingSelector();

/** The selector that matches every label set (`labels.Everything()`). */
export function everything(): Selector {
  return EVERYTHING;
}

/** The selector that matches no label set (`labels.Nothing()`); what a null `LabelSelector` converts to. */
export function nothing(): Selector {
  return NOTHING;
}

/** A selector from already-validated requirements (used by the parser and converters). */
export function selectorFromRequirements(requirements: readonly Requirement[]): Selector {
  return requirements.length === 0 ? EVERYTHING : new RequirementsSelector(requirements);
}

/**
 * `labels.SelectorFromValidatedSet`-like: `key=value` for each entry. Keys and values are validated (throws on
 * invalid ones, like `labels.ValidatedSelectorFromSet`). An empty or missing set selects everything.
 */
export function selectorFromSet(set: Labels | undefined): Selector {
  return selectorFromRequirements(Object.entries(set ?? {}).map(([k, v]) => newRequirement(k, '=', [v])));
}
