/**
 * Where generated `types.ts` and `applyconfigurations.ts` import the runtime's types from: `ObjectMeta`, `ListMeta`,
 * `IntOrString`, `Quantity`, `RawExtension`, the apply types and the core types the root keeps ({@link ROOT_CORE_TYPES})
 * from the runtime's root; every other core type from its group version's entry point (`@kubegen/runtime/api/core/v1`'s
 * `PodTemplateSpec`, `…/api/batch/v1`'s `JobSpec`).
 */
import { literal, runtimeEntry } from '../emit-util.js';
import { CORE_TYPES } from './core-types.js';

/** The core types `@kubegen/runtime` itself exports (packages/runtime/src/api-types.ts; test/unit/core-types-coverage checks). */
export const ROOT_CORE_TYPES: ReadonlySet<string> = new Set([
  'Condition', 'ConfigMapKeySelector', 'LocalObjectReference', 'ObjectReference', 'SecretKeySelector', 'TypedLocalObjectReference',
]);

/** The entry point (`api/core/v1`) of each core type but the root's, from its definition (`io.k8s.api.core.v1.PodSpec`). */
const CORE_ENTRY = new Map(CORE_TYPES.filter((c) => !ROOT_CORE_TYPES.has(c.name)).map((c) => [c.name, coreEntry(c.definition)]));

/** The runtime entry point generated code imports core type `name` from (`api/core/v1`), or undefined for the root. */
export function coreTypeEntry(name: string): string | undefined {
  return CORE_ENTRY.get(name);
}

function coreEntry(definition: string): string {
  const m = /^io\.k8s\.(?:api\.([a-z0-9]+)|apimachinery\.pkg\.apis\.(meta))\.([a-z0-9]+)\.[A-Za-z0-9]+$/.exec(definition);
  if (!m) throw new Error(`core type definition ${definition} names no group version`);
  return `api/${m[1] ?? m[2]}/${m[3]}`;
}

/**
 * `import type` lines for `specifiers` (`A` or `A as A_`, as {@link RuntimeNames.specifiers} gives them): one per
 * module, the root first, then the entry points in order. A relative `runtime` module gets every name.
 */
export function runtimeTypeImports(specifiers: string, runtime: string): string[] {
  const byModule = new Map<string, string[]>();
  for (const spec of specifiers.split(', ').filter((s) => s !== '')) {
    const entry = CORE_ENTRY.get(spec.split(' as ')[0]!);
    const module = entry === undefined ? runtime : runtimeEntry(runtime, entry);
    byModule.set(module, [...(byModule.get(module) ?? []), spec]);
  }
  const modules = [...byModule.keys()].sort((a, b) => (a === runtime ? -1 : b === runtime ? 1 : a < b ? -1 : 1));
  return modules.map((m) => `import type { ${byModule.get(m)!.join(', ')} } from ${literal(m)};`);
}
