/**
 * Generated code over the user's own types (TypeScript front end: `VersionModel.userTypes`). For such a
 * group/version no `types.ts` is emitted; deepcopy, client, listers, informers and the version index import the
 * kinds' root and list types from the user's modules instead. For CRD input (no `userTypes`) every helper here
 * returns exactly what the emitters wrote before, so that output stays byte-identical.
 */
import * as path from 'node:path';
import type { GroupVersion } from '../model/index.js';
import { literal } from './emit-util.js';
import type { KindTypeNames } from './names.js';

/** True when the kinds of `gv` come with user types (all of them; a mix is a front-end bug). */
export function hasUserTypes(gv: GroupVersion): boolean {
  const n = gv.kinds.filter((k) => k.version.userTypes !== undefined).length;
  if (n > 0 && n !== gv.kinds.length) throw new Error(`${gv.group}/${gv.version}: some kinds have user types and some do not`);
  return n > 0;
}

/** The import specifier, from `<group>/<version>/x.ts`, of a user module given relative to the output root. */
export function userModuleSpecifier(module: string, ext: string): string {
  const spec = path.posix.join('..', '..', module);
  return `${spec.startsWith('.') ? spec : `./${spec}`}${ext}`;
}

/** Root/list names of each kind: the user's names. */
export function userTypeNames(gv: GroupVersion): KindTypeNames {
  const names = new Map(gv.kinds.map((k) => [k.resource.names.kind, { root: k.version.userTypes!.kind, list: k.version.userTypes!.list ?? `${k.version.userTypes!.kind}List` }]));
  return (kind) => names.get(kind)!;
}

/**
 * `import type { ... }` lines for `names` (root and list type names of `gv`): from `./types` for generated types,
 * else from the user modules that declare them.
 */
export function typeImportLines(gv: GroupVersion, names: readonly string[], ext: string): string[] {
  if (!hasUserTypes(gv)) return [`import type { ${names.join(', ')} } from ${literal(`./types${ext}`)};`];
  const byModule = new Map<string, string[]>();
  for (const k of gv.kinds) {
    const u = k.version.userTypes!;
    for (const n of [u.kind, u.list ?? `${u.kind}List`]) {
      if (!names.includes(n)) continue;
      const spec = userModuleSpecifier(u.module, ext);
      const list = byModule.get(spec) ?? [];
      if (!list.includes(n)) list.push(n);
      byModule.set(spec, list);
    }
  }
  return [...byModule].map(([spec, ns]) => `import type { ${ns.join(', ')} } from ${literal(spec)};`);
}
