import type { GroupVersion } from '../../model/index.js';
import type { CoreTypeUse } from '../../generate/types/index.js';

/** The core-type matches of one group/version, as `generate` reports them (`onCoreTypes`). */
export interface CoreTypeReport {
  gv: GroupVersion;
  uses: readonly CoreTypeUse[];
}

/**
 * One line for `codegen generate`: how many parts of the schemas are typed with the runtime's core types, most used
 * first, e.g. `core types: 64 uses of 12 runtime types (Container ×8, Volume ×4, …); --explain lists them`. Empty
 * when there are none.
 */
export function formatCoreTypeSummary(reports: readonly CoreTypeReport[], hint = true): string {
  const counts = new Map<string, number>();
  let drift = 0;
  for (const r of reports) {
    for (const u of r.uses) {
      counts.set(u.type.name, (counts.get(u.type.name) ?? 0) + 1);
      if (u.drift.length > 0) drift++;
    }
  }
  if (counts.size === 0) return '';
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = ranked.slice(0, 6).map(([n, c]) => `${n} ×${c}`);
  if (ranked.length > 6) shown.push('…');
  const driftNote = drift > 0 ? `, ${drift} with fields the runtime's model lacks` : '';
  return `core types: ${total} schema parts typed with ${counts.size} runtime types (${shown.join(', ')})${driftNote}${hint ? '; --explain lists them' : ''}\n`;
}

/**
 * `--explain`: one line per match, `<group>/<version> <Kind> <path>: <Type>`; a schema with properties of its own
 * says `extends <Type> (+ a, b)`; drift (properties below the match that the runtime's model does not have: kept in
 * the data, absent from the type) is listed under it. Ends with the summary line.
 */
export function formatCoreTypeExplain(reports: readonly CoreTypeReport[]): string {
  let out = '';
  for (const { gv, uses } of reports) {
    for (const u of uses) {
      const what = u.extras.length > 0 ? `extends ${u.type.name} (+ ${u.extras.join(', ')})` : u.type.name;
      out += `${gv.group}/${gv.version} ${u.kind} ${u.where}: ${what}\n`;
      if (u.drift.length > 0) out += `  not in the runtime's ${u.type.name}, kept in the data but not typed: ${u.drift.join(', ')}\n`;
    }
  }
  return out + formatCoreTypeSummary(reports, false);
}
