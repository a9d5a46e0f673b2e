import type { GroupVersion } from '../../model/index.js';
import { HEADER, LAZY_LOADER, lazyGetter, literal } from '../emit-util.js';
import { groupVersionClientName, groupVersionDir, groupVersionMember } from '../names.js';

/**
 * `clientset.ts` at the output root: a `Clientset` with one member per group/version, built from a `Transport`
 * or from a kubeconfig (`Clientset.fromKubeConfig()`: explicit path → `KUBECONFIG` → in-cluster → ~/.kube/config).
 */
export function emitClientset(gvs: GroupVersion[], groupIds: Map<string, string>, runtimeImport: string, ext: string, opts: RootClassOptions = {}): string {
  if (opts.lazy) return emitLazyClientset(gvs, groupIds, runtimeImport, ext, opts.name ?? 'Clientset');
  const imports: string[] = [];
  const fields: string[] = [];
  const inits: string[] = [];
  for (const gv of gvs) {
    const id = groupIds.get(gv.group)!;
    const cls = groupVersionClientName(id, gv.version);
    const member = groupVersionMember(id, gv.version);
    imports.push(`import { ${cls} } from ${literal(`./${groupVersionDir(gv)}/client${ext}`)};`);
    fields.push(`  /** The ${gv.group}/${gv.version} API. */`, `  readonly ${member}: ${cls};`);
    inits.push(`    this.${member} = new ${cls}(transport);`);
  }
  return [
    HEADER,
    '',
    `import { createTransport } from ${literal(runtimeImport)};`,
    `import type { ClientOptions, Transport } from ${literal(runtimeImport)};`,
    ...imports,
    '',
    '/** Typed clients for every group/version generated here, sharing one transport. */',
    'export class Clientset {',
    '  readonly transport: Transport;',
    ...fields,
    '',
    '  constructor(transport: Transport) {',
    '    this.transport = transport;',
    ...inits,
    '  }',
    '',
    '  /** A clientset talking to the cluster of a kubeconfig (no client-side throttling unless `qps` is set). */',
    '  static fromKubeConfig(opts: ClientOptions = {}): Clientset {',
    '    return new Clientset(createTransport(opts));',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** How a root class (clientset, informer factory) is emitted: its name, and whether members are built on first use. */
export interface RootClassOptions {
  name?: string;
  /** Members built on first use (the built-in API: a controller pays only for the groups it touches). */
  lazy?: boolean;
}

/**
 * The built-in API's clientset: one getter per group/version, each client built on first use and kept. A group/version's
 * module is loaded on first use too (`require` of an ES module, Node ≥ 22.12), so a controller loads only the groups it
 * touches; its types are imported as types only.
 */
function emitLazyClientset(gvs: GroupVersion[], groupIds: Map<string, string>, runtimeImport: string, ext: string, name: string): string {
  const imports: string[] = [];
  const members: string[] = [];
  for (const gv of gvs) {
    const id = groupIds.get(gv.group)!;
    const cls = groupVersionClientName(id, gv.version);
    const member = groupVersionMember(id, gv.version);
    const spec = literal(`./${groupVersionDir(gv)}/client${ext}`);
    imports.push(`import type { ${cls} } from ${spec};`);
    members.push(...lazyGetter(`The ${gv.group || 'core'}/${gv.version} API`, member, cls, spec, 'this.transport'));
  }
  return [
    HEADER,
    '',
    `import { createRequire } from "node:module";`,
    `import type { Transport } from ${literal(runtimeImport)};`,
    ...imports,
    '',
    LAZY_LOADER,
    '',
    '/**',
    ' * Typed clients for every built-in group/version client-go has one for, sharing one transport; each group/version',
    ' * is loaded and its client built the first time it is asked for (client-go\'s `kubernetes.Interface`, accessors',
    ' * camel-cased).',
    ' */',
    `export class ${name} {`,
    '  readonly transport: Transport;',
    ...gvs.map((gv) => {
      const id = groupIds.get(gv.group)!;
      return `  #${groupVersionMember(id, gv.version)}: ${groupVersionClientName(id, gv.version)} | undefined;`;
    }),
    '',
    '  constructor(transport: Transport) {',
    '    this.transport = transport;',
    '  }',
    ...members,
    '}',
    '',
  ].join('\n');
}

/** `resources.ts` of the built-in API: every kind's descriptor, e.g. to serve them all from a fake tracker. */
export function emitResourceList(gvs: GroupVersion[], groupIds: Map<string, string>, ext: string): string {
  const imports = gvs.map((gv) => `import { resources as ${groupVersionMember(groupIds.get(gv.group)!, gv.version)} } from ${literal(`./${groupVersionDir(gv)}/register${ext}`)};`);
  return [
    HEADER,
    '',
    ...imports,
    '',
    '/** Every built-in kind\'s descriptor, in group/version order. */',
    `export const allResources = [${gvs.map((gv) => `...${groupVersionMember(groupIds.get(gv.group)!, gv.version)}`).join(', ')}];`,
    '',
  ].join('\n');
}

/**
 * The built-in API's `merge-schemas.ts`: every group/version's `mergeSchemas` by apiVersion, and the lookup the fake
 * tracker's server-side apply uses for a built-in kind (its descriptor carries no merge schema).
 */
export function emitMergeSchemaList(gvs: GroupVersion[], groupIds: Map<string, string>, runtimeImport: string, ext: string): string {
  const imports = gvs.map((gv) => `import { mergeSchemas as ${groupVersionMember(groupIds.get(gv.group)!, gv.version)} } from ${literal(`./${groupVersionDir(gv)}/merge-schema${ext}`)};`);
  const entries = gvs.map((gv) => `  ${literal(gv.group ? `${gv.group}/${gv.version}` : gv.version)}: ${groupVersionMember(groupIds.get(gv.group)!, gv.version)},`);
  return [
    HEADER,
    '',
    `import type { MergeSchema } from ${literal(runtimeImport)};`,
    ...imports,
    '',
    'const byApiVersion: Readonly<Record<string, Readonly<Record<string, MergeSchema>>>> = {',
    ...entries,
    '};',
    '',
    '/** What server-side apply merges a built-in kind by; undefined for a kind the built-in API does not have (or one with nothing to merge by). */',
    'export function builtinMergeSchema(apiVersion: string, kind: string): MergeSchema | undefined {',
    '  return Object.hasOwn(byApiVersion, apiVersion) && Object.hasOwn(byApiVersion[apiVersion]!, kind) ? byApiVersion[apiVersion]![kind] : undefined;',
    '}',
    '',
  ].join('\n');
}
