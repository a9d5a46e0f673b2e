/** Which of several names a mistyped one was meant to be (commands, CRD names, groups). */

/** Levenshtein distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The name in `names` closest to `typed`, if one is near enough (at most 2 edits, or a third of its length). */
export function closestName(typed: string, names: Iterable<string>): string | undefined {
  let closest: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed, name);
    if (distance <= Math.max(2, Math.floor(name.length / 3)) && (!closest || distance < closest.distance)) closest = { name, distance };
  }
  return closest?.name;
}
