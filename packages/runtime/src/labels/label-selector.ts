/**
 * Conversion of the API's structured `LabelSelector` (meta/v1, used in `spec.selector` of workloads and in
 * policies) to a `Selector`, with the semantics of `metav1.LabelSelectorAsSelector`.
 */
import { everything, newRequirement, nothing, selectorFromRequirements } from './selector.js';
import type { Requirement, Selector } from './selector.js';

/** The operators of a meta/v1 `LabelSelectorRequirement` (`metav1.LabelSelectorOperator`). */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** meta/v1 LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator | string;
  values?: string[];
}

/** meta/v1 LabelSelector: `matchLabels` and `matchExpressions` are ANDed. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

const OPERATORS: Record<LabelSelectorOperator, Requirement['operator']> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * `metav1.LabelSelectorAsSelector`: a null/undefined selector selects nothing; an empty one (no `matchLabels`, no
 * `matchExpressions`) selects everything. Throws an `Error` for an unknown operator, an invalid key or value, or a
 * value count that does not fit the operator (`In`/`NotIn` need values, `Exists`/`DoesNotExist` take none).
 */
export function selectorFromLabelSelector(ls: LabelSelector | null | undefined): Selector {
  if (ls === null || ls === undefined) return nothing();
  const matchLabels = Object.entries(ls.matchLabels ?? {});
  const exprs = ls.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return everything();
  const reqs: Requirement[] = matchLabels.map(([k, v]) => newRequirement(k, '=', [v]));
  for (const expr of exprs) {
    const op = Object.prototype.hasOwnProperty.call(OPERATORS, expr.operator)
      ? OPERATORS[expr.operator as LabelSelectorOperator]
      : undefined;
    if (!op) throw new Error(`"${expr.operator}" is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return selectorFromRequirements(reqs);
}
