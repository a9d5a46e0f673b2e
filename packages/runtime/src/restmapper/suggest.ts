/**
 * "Did you mean …?" for names no resource or kind matches: the closest name discovery knows, by edit distance
 * (Levenshtein, case-insensitive), if it is close enough to be a likely typo.
 */
import type { APIResourceInfo } from '../discovery/types.js';

/** Levenshtein distance between `a` and `b`, or `limit + 1` as soon as it is known to exceed `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      best = Math.min(best, row[j]!);
    }
    if (best > limit) return limit + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/** How far a name may be from what was typed: one edit per three characters, at least one. */
function tolerance(asked: string): number {
  return Math.max(1, Math.floor(asked.length / 3));
}

/**
 * The closest resource name to `asked` among plurals, singulars, short names and kinds, as a name that resolves:
 * `deployments.apps`, `pods`, `Deployment.apps`. Undefined when nothing is close.
 */
export function suggestResource(asked: string, resources: Iterable<APIResourceInfo>): string | undefined {
  const want = asked.toLowerCase();
  const limit = tolerance(want);
  let best: { d: number; name: string } | undefined;
  for (const r of resources) {
    for (const name of [r.resource, r.singular, r.kind, ...r.shortNames]) {
      if (!name) continue;
      const d = editDistance(want, name.toLowerCase(), Math.min(limit, best?.d ?? limit));
      if (d <= limit && (!best || d < best.d)) best = { d, name: r.group ? `${name}.${r.group}` : name };
    }
  }
  return best?.name;
}

/** The closest kind to `kind` (in `group` if any resource there is close, else anywhere), as `Kind.group`. */
export function suggestKind(kind: string, group: string, resources: Iterable<APIResourceInfo>): string | undefined {
  const want = kind.toLowerCase();
  const limit = tolerance(want);
  let best: { d: number; name: string } | undefined;
  for (const r of resources) {
    // A kind in the asked group wins a tie: rank it half an edit closer.
    const d = editDistance(want, r.kind.toLowerCase(), limit) - (r.group === group ? 0.5 : 0);
    if (d <= limit && (!best || d < best.d)) best = { d, name: r.group ? `${r.kind}.${r.group}` : r.kind };
  }
  return best?.name;
}
