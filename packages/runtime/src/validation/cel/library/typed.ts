import type { CelFunc } from '@bufbuild/cel';
import { type CelT, DYN, listOf } from '../decl.js';

type ResultOf = (target: CelT | undefined, args: CelT[]) => CelT;

/** Result types finer than a `@bufbuild/cel` declaration can say (a list's `sum()` is its element type). */
export const RESULT_TYPES = new Map<CelFunc, ResultOf>();

/** Declares `f`'s checker result type as `result` of the actual target/argument types. */
export function typed(f: CelFunc, result: ResultOf): CelFunc {
  RESULT_TYPES.set(f, result);
  return f;
}

/** The element type of a list type (dyn for anything else). */
export const elemOf = (t: CelT | undefined): CelT => (t?.kind === 'list' ? t.elem : DYN);
/** Result: the target's element type. */
export const targetElem: ResultOf = (t) => elemOf(t);
/** Result: the target's own type. */
export const sameAsTarget: ResultOf = (t) => t ?? DYN;
/** Result: a list of the target's element's element type (flatten). */
export const flattened: ResultOf = (t) => listOf(elemOf(elemOf(t)).kind === 'dyn' ? DYN : elemOf(elemOf(t)));
