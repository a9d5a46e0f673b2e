import type { GroupVersion } from '../../model/index.js';
import type { GroupVersionContext } from '../context.js';
import { HEADER, LAZY_LOADER, lazyGetter, literal, RuntimeNames, runtimeEntry } from '../emit-util.js';
import { groupVersionDir, groupVersionMember, kindIdentifier, pluralMember, resourceConstName } from '../names.js';
import { typeImportLines } from '../user-types.js';
import type { RootClassOptions } from '../client/clientset.js';

/**
 * `<group>/<version>/listers.ts`: a typed lister per kind over the runtime's generic `Lister` (client-go's
 * generated listers over `listers.ResourceIndexer`). Objects a lister returns are the cache's: read-only.
 */
export function emitListers(ctx: Pick<GroupVersionContext, 'gv' | 'typeNames' | 'runtimeImport' | 'ext'>): string {
  const { gv, typeNames, runtimeImport, ext } = ctx;
  const roots = gv.kinds.map((kindVersion) => typeNames(kindVersion.resource.names.kind).root);
  // A kind may be spelled like a runtime export (`Lister`, or `Namespace`, whose lister type is `NamespaceLister`).
  const taken = new Set<string>(roots);
  for (const kindVersion of gv.kinds) {
    const kind = kindIdentifier(kindVersion);
    taken.add(`${kind}Lister`).add(`${kind}NamespaceLister`).add(`new${kind}Lister`);
  }
  const rt = new RuntimeNames(taken);
  const body: string[] = [];
  for (const kindVersion of gv.kinds) {
    const kind = kindIdentifier(kindVersion);
    const T = typeNames(kindVersion.resource.names.kind).root;
    const namespaced = kindVersion.resource.scope === 'Namespaced';
    const lister = rt.use('Lister');
    body.push('', `/** Lists ${kind} objects from an informer's cache. Returned objects are shared: do not mutate them. */`);
    body.push(`export type ${kind}Lister = ${lister}<${T}>;`);
    if (namespaced) {
      body.push(`/** Lists ${kind} objects of one namespace from the cache. Returned objects are shared: do not mutate them. */`);
      body.push(`export type ${kind}NamespaceLister = ${rt.use('NamespaceLister')}<${T}>;`);
    }
    body.push(`/** A ${kind} lister over an informer's indexer. */`);
    body.push(`export function new${kind}Lister(indexer: ${rt.use('ReadonlyIndexer')}<${T}>): ${kind}Lister {`, `  return new ${lister}<${T}>(indexer);`, '}');
  }
  // NamespaceLister only where a kind is namespaced: an unused import fails `noUnusedLocals` in users' builds.
  const out = [
    HEADER,
    '',
    `import { ${rt.specifiers(['Lister'])} } from ${literal(runtimeEntry(runtimeImport, 'cache'))};`,
    `import type { ${rt.specifiers(['NamespaceLister', 'ReadonlyIndexer'])} } from ${literal(runtimeEntry(runtimeImport, 'cache'))};`,
    ...typeImportLines(gv, roots, ext),
    ...body,
  ];
  return out.join('\n') + '\n';
}

/**
 * `<group>/<version>/informers.ts`: per kind a typed accessor returning the shared informer and its lister from a
 * runtime `SharedInformerFactory` (one informer and one watch per resource, however many callers ask).
 */
export function emitInformers(ctx: Pick<GroupVersionContext, 'gv' | 'groupId' | 'typeNames' | 'runtimeImport' | 'ext'>): string {
  const { gv, groupId, typeNames, runtimeImport, ext } = ctx;
  const roots = gv.kinds.map((kindVersion) => typeNames(kindVersion.resource.names.kind).root);
  const cls = `${groupVersionMember(groupId, gv.version).replace(/^./, (c) => c.toUpperCase())}Informers`;
  const taken = new Set<string>([...roots, cls]);
  for (const kindVersion of gv.kinds) taken.add(`${kindIdentifier(kindVersion)}Lister`).add(`${kindIdentifier(kindVersion)}Informer`);
  const rt = new RuntimeNames(taken);
  const [informerOptions, sharedIndexInformer, sharedInformerFactory] = ['InformerOptions', 'SharedIndexInformer', 'SharedInformerFactory'].map((n) => rt.use(n));
  const out = [
    HEADER,
    '',
    `import type { ${rt.specifiers(['InformerOptions', 'SharedIndexInformer', 'SharedInformerFactory'])} } from ${literal(runtimeEntry(runtimeImport, 'cache'))};`,
    ...typeImportLines(gv, roots, ext),
    `import type { ${gv.kinds.map((kindVersion) => `${kindIdentifier(kindVersion)}Lister`).join(', ')} } from ${literal(`./listers${ext}`)};`,
    `import { ${gv.kinds.map((kindVersion) => resourceConstName(kindIdentifier(kindVersion))).join(', ')} } from ${literal(`./register${ext}`)};`,
  ];
  const members: string[] = [];
  for (const kindVersion of gv.kinds) {
    const kind = kindIdentifier(kindVersion);
    const T = typeNames(kindVersion.resource.names.kind).root;
    out.push('', `/** The shared informer for ${kind} and a lister over its cache. */`);
    out.push(`export interface ${kind}Informer {`, `  readonly informer: ${sharedIndexInformer}<${T}>;`, `  readonly lister: ${kind}Lister;`, '}');
    members.push(
      '',
      `  /** The shared ${kind} informer for these options (namespace, selectors, resync, transform). */`,
      `  ${pluralMember(kindVersion)}(opts: ${informerOptions}<${T}> = {}): ${kind}Informer {`,
      `    const informer = this.factory.informerFor<${T}>(${resourceConstName(kind)}, opts);`,
      '    return { informer, lister: informer.lister() };',
      '  }',
    );
  }
  out.push(
    '',
    `/** Informers for the ${gv.group}/${gv.version} API. */`,
    `export class ${cls} {`,
    `  readonly factory: ${sharedInformerFactory};`,
    '',
    `  constructor(factory: ${sharedInformerFactory}) {`,
    '    this.factory = factory;',
    '  }',
    ...members,
    '}',
    '',
  );
  return out.join('\n');
}

/** `informers.ts` at the root: an `InformerFactory` with one member per group/version over one runtime factory. */
export function emitInformerFactory(gvs: GroupVersion[], groupIds: Map<string, string>, runtimeImport: string, ext: string, opts: RootClassOptions = {}): string {
  if (opts.lazy) return emitLazyInformers(gvs, groupIds, runtimeImport, ext, opts.name ?? 'InformerFactory');
  const imports: string[] = [];
  const fields: string[] = [];
  const inits: string[] = [];
  for (const gv of gvs) {
    const member = groupVersionMember(groupIds.get(gv.group)!, gv.version);
    const cls = `${member.replace(/^./, (c) => c.toUpperCase())}Informers`;
    imports.push(`import { ${cls} } from ${literal(`./${groupVersionDir(gv)}/informers${ext}`)};`);
    fields.push(`  /** Informers for ${gv.group}/${gv.version}. */`, `  readonly ${member}: ${cls};`);
    inits.push(`    this.${member} = new ${cls}(this.factory);`);
  }
  const cache = runtimeEntry(runtimeImport, 'cache');
  return [
    HEADER,
    '',
    `import { SharedInformerFactory } from ${literal(cache)};`,
    ...(cache === runtimeImport
      ? [`import type { SharedInformerFactoryOptions, Transport, WaitForCacheSyncOptions } from ${literal(runtimeImport)};`]
      : [`import type { Transport } from ${literal(runtimeImport)};`, `import type { SharedInformerFactoryOptions, WaitForCacheSyncOptions } from ${literal(cache)};`]),
    ...imports,
    '',
    '/**',
    ' * Typed informers for every group/version generated here, all from one shared factory: ask for the same kind',
    ' * twice and you get the same informer. `start()` runs the informers asked for so far.',
    ' */',
    'export class InformerFactory {',
    '  readonly factory: SharedInformerFactory;',
    ...fields,
    '',
    '  constructor(transportOrFactory: Transport | SharedInformerFactory, opts: SharedInformerFactoryOptions = {}) {',
    '    this.factory = transportOrFactory instanceof SharedInformerFactory ? transportOrFactory : new SharedInformerFactory(transportOrFactory, opts);',
    ...inits,
    '  }',
    '',
    '  start(): void {',
    '    this.factory.start();',
    '  }',
    '',
    '  waitForCacheSync(opts?: WaitForCacheSyncOptions): Promise<void> {',
    '    return this.factory.waitForCacheSync(opts);',
    '  }',
    '',
    '  shutdown(): Promise<void> {',
    '    return this.factory.shutdown();',
    '  }',
    '}',
    '',
  ].join('\n');
}

/**
 * The built-in API's informers: one getter per group/version over a runtime `SharedInformerFactory`, each loaded and
 * built on first use (as the built-in clientset; the same factory generated `InformerFactory`s use, so caches are
 * shared).
 */
function emitLazyInformers(gvs: GroupVersion[], groupIds: Map<string, string>, runtimeImport: string, ext: string, name: string): string {
  const imports: string[] = [];
  const fields: string[] = [];
  const members: string[] = [];
  for (const gv of gvs) {
    const member = groupVersionMember(groupIds.get(gv.group)!, gv.version);
    const cls = `${member.replace(/^./, (c) => c.toUpperCase())}Informers`;
    const spec = literal(`./${groupVersionDir(gv)}/informers${ext}`);
    imports.push(`import type { ${cls} } from ${spec};`);
    fields.push(`  #${member}: ${cls} | undefined;`);
    members.push(...lazyGetter(`Informers for ${gv.group || 'core'}/${gv.version}`, member, cls, spec, 'this.factory'));
  }
  return [
    HEADER,
    '',
    `import { createRequire } from "node:module";`,
    `import type { SharedInformerFactory } from ${literal(runtimeEntry(runtimeImport, 'cache'))};`,
    ...imports,
    '',
    LAZY_LOADER,
    '',
    '/**',
    ' * Typed informers and listers for the built-in kinds, from a runtime `SharedInformerFactory` (ask for the same kind',
    ' * twice and you get the same informer); each group/version is loaded and built the first time it is asked for.',
    ' */',
    `export class ${name} {`,
    '  readonly factory: SharedInformerFactory;',
    ...fields,
    '',
    '  constructor(factory: SharedInformerFactory) {',
    '    this.factory = factory;',
    '  }',
    ...members,
    '}',
    '',
  ].join('\n');
}
