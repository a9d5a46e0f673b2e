import type { GroupVersion } from '../model/index.js';
import type { CoreTypeMiss, CoreTypeUse } from '../generate/types/index.js';

/** The core-type matches of one group/version, as `generate` reports them (`onCoreTypes`). */
export interface CoreTypeReport {
  gv: GroupVersion;
  uses: readonly CoreTypeUse[];
  /** Sub-schemas shaped like a core type but different from it: they keep a type of their own. */
  misses?: readonly CoreTypeMiss[];
}

/**
 * One line for `codegen generate`: how many parts of the schemas are typed with the runtime's core types, most used
 * first, e.g. `core types: 64 uses of 12 runtime types (Container ×8, Volume ×4, …); --explain lists them`. Empty
 * when there are none.
 */
export function formatCoreTypeSummary(reports: readonly CoreTypeReport[], hint = true): string {
  const counts = new Map<string, number>();
  let drift = 0;
  const misses = reports.reduce((n, r) => n + (r.misses?.length ?? 0), 0);
  for (const r of reports) {
    for (const u of r.uses) {
      counts.set(u.type.name, (counts.get(u.type.name) ?? 0) + 1);
      if (u.drift.length > 0) drift++;
    }
  }
  const missNote = misses > 0 ? `, ${misses} like a core type but different, keeping their own` : '';
  if (counts.size === 0) return misses > 0 ? `core types: none; ${misses} schema parts like a core type but different keep their own${hint ? ' (--explain lists them)' : ''}\n` : '';
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = ranked.slice(0, 6).map(([n, c]) => `${n} ×${c}`);
  if (ranked.length > 6) shown.push('…');
  const driftNote = drift > 0 ? `, ${drift} with fields the runtime's model lacks` : '';
  return `core types: ${total} schema parts typed with ${counts.size} runtime types (${shown.join(', ')})${driftNote}${missNote}${hint ? '; --explain lists them' : ''}\n`;
}

/**
 * `--explain`: one line per match, `<group>/<version> <Kind> <path>: <Type>`; a schema with properties of its own
 * says `extends <Type> (+ a, b)`; drift (properties below the match that the runtime's model does not have: kept in
 * the data, absent from the type) is listed under it; a schema shaped like a core type that differs from it (so keeps
 * its own type) is listed with what differs. Ends with the summary line.
 */
export function formatCoreTypeExplain(reports: readonly CoreTypeReport[]): string {
  let out = '';
  for (const { gv, uses, misses } of reports) {
    for (const u of uses) {
      const what = u.extras.length > 0 ? `extends ${u.type.name} (+ ${u.extras.join(', ')})` : u.type.name;
      out += `${gv.group}/${gv.version} ${u.kind} ${u.where}: ${what}\n`;
      if (u.drift.length > 0) out += `  not in the runtime's ${u.type.name}, kept in the data but not typed: ${u.drift.join(', ')}\n`;
    }
    for (const m of misses ?? []) {
      out += `${gv.group}/${gv.version} ${m.kind} ${m.where}: like ${m.type.name}, but its own type:\n`;
      for (const d of m.differences) out += `  ${d}\n`;
    }
  }
  return out + formatCoreTypeSummary(reports, false);
}
