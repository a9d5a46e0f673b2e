/** Small statistics for the benches: medians of alternating runs and their spread. */

/** The median of `xs` (the mean of the middle two for an even count). Throws on an empty list. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no values');
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** `[min–max]` of `xs` with `digits` decimals, or '' for fewer than two values. */
export function spread(xs: readonly number[], digits: number): string {
  return xs.length > 1 ? `[${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]` : '';
}

/**
 * The order of round `i` of an alternating comparison: `items` as given in even rounds, reversed in odd ones
 * (A B, B A, A B …), so that neither side always runs first on a warmer or a busier machine.
 */
export function alternate<T>(items: readonly T[], i: number): T[] {
  return i % 2 === 0 ? [...items] : [...items].reverse();
}
