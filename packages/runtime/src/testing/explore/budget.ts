/**
 * Explore's budget (`--budget <runs|duration>`): how much of the systematic enumeration to run when all of it is too
 * much. With a budget of runs smaller than the enumeration, the points are a sample drawn with a PRNG seeded by
 * `--seed` (the same seed, the same sample); with a duration, every point is taken in a seeded random order until the
 * time is up (which ones depends on the machine's speed; the order does not). What is left out is counted per fault
 * kind as `skipped` in the report, and every divergence's repro names the seed.
 */
import { prng } from './mutate.js';

/** A budget: at most `runs` runs (the reference run included), or points started within `durationMs`. */
export type Budget = { runs: number } | { durationMs: number };

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses `--budget`: a whole number of runs (`200`), or a duration (`500ms`, `90s`, `2m`, `1h`). Throws a `TypeError`
 * naming what it expected on anything else.
 */
export function parseBudget(text: string): Budget {
  const t = text.trim();
  if (/^[1-9]\d*$/.test(t)) return { runs: Number(t) };
  const m = DURATION.exec(t);
  if (m && Number(m[1]) > 0) return { durationMs: Number(m[1]) * UNIT_MS[m[2]!]! };
  throw new TypeError(`--budget ${text}: expected a number of runs (200) or a duration (90s, 2m, 500ms)`);
}

/**
 * The order to run `items` in, and which fit a budget of runs: all of them in their order when they fit (or there is
 * no budget, or the budget is a duration, for which the order is a seeded shuffle); else a seeded sample whose
 * costs add up to at most `runs` (each item's `cost` in runs), in their order. `left` are the items not taken.
 */
export function planRuns<T extends { cost: number }>(items: readonly T[], budget: Budget | undefined, seed: number, referenceRuns = 1): { take: T[]; left: T[] } {
  if (!budget) return { take: [...items], left: [] };
  const order = shuffled(items.length, seed);
  if ('durationMs' in budget) return { take: order.map((i) => items[i]!), left: [] };
  let room = budget.runs - referenceRuns;
  if (items.reduce((n, x) => n + x.cost, 0) <= room) return { take: [...items], left: [] };
  const taken = new Set<number>();
  for (const i of order) {
    if (items[i]!.cost > room) continue;
    taken.add(i);
    room -= items[i]!.cost;
  }
  return { take: items.filter((_, i) => taken.has(i)), left: items.filter((_, i) => !taken.has(i)) };
}

/** The indices 0..n-1 in a seeded random order (Fisher–Yates). */
function shuffled(n: number, seed: number): number[] {
  const rand = prng(seed ^ 0x5eed);
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
