/** The closest known name to a mistyped one, for "did you mean …?" hints (pure; the CLI and scaffolding use it). */

/** Edit distance with adjacent transpositions counted once (optimal string alignment): `versoin` → `version` is 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `typed` when it is near enough to be a typo (at most a third of its length different,
 * and at least 2 edits allowed), preferring the first of equally close ones; undefined otherwise. Case is ignored
 * when measuring (`website` suggests `Website`).
 */
export function closest(typed: string, candidates: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    if (name === typed) return name;
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance >= Math.max(name.length, 1) || distance > Math.max(2, Math.floor(name.length / 3))) continue;
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}

/** ` (did you mean X?)` when a candidate is close to `typed`, else ''. */
export function didYouMean(typed: string, candidates: Iterable<string>, quote = ''): string {
  const c = closest(typed, candidates);
  return c !== undefined && c !== typed ? ` (did you mean ${quote}${c}${quote}?)` : '';
}
