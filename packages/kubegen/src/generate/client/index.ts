import type { KindVersion, SubresourceCall } from '../../model/index.js';
import { HEADER, literal, RuntimeNames } from '../emit-util.js';
import { clientInterfaceName, groupVersionClientName, kindIdentifier, pluralMember, resourceConstName } from '../names.js';
import type { KindTypeNames } from '../names.js';
import type { GroupVersionContext } from '../context.js';
import { packageAlias } from '../types/definition-graph.js';
import { typeImportLines } from '../user-types.js';

/** Every verb of a full typed client (a custom resource's, and most built-in kinds'). */
const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'apply'] as const;

/** The `ResourceInterface` methods each verb brings. */
const VERB_METHODS: Readonly<Record<string, readonly string[]>> = {
  get: ['get'], list: ['list', 'listAll'], watch: ['watch'], create: ['create'], update: ['update'], patch: ['patch'],
  delete: ['delete'], deletecollection: ['deleteCollection'], apply: ['apply'],
};

/**
 * `<group>/<version>/client.ts`: per kind an interface type — the generic `ResourceInterface` (only the verbs the
 * kind has: a built-in review kind is create-only), the status verbs where the kind has that subresource, the scale
 * verbs where a CRD declares it — and a group/version client whose accessors return the runtime's generic
 * `ResourceClient`. A built-in kind's other subresource calls (client-go's `+genclient:method`s and expansions:
 * `getScale`, `createToken`, `evict`, `getLogs` …) are methods of a `<Kind>Client` class extending it. Namespaced
 * kinds' accessors take a namespace argument, cluster-scoped ones none.
 */
export function emitClient(ctx: GroupVersionContext): string {
  const { gv, groupId, typeNames, runtimeImport, ext } = ctx;
  const className = groupVersionClientName(groupId, gv.version);
  // Names this file declares or imports besides the runtime's: a kind may be spelled like a runtime export.
  const taken = new Set<string>([className]);
  for (const kindVersion of gv.kinds) {
    const kind = kindIdentifier(kindVersion);
    const { root, list } = typeNames(kindVersion.resource.names.kind);
    taken.add(root).add(list).add(clientInterfaceName(kind)).add(ctx.applyName(kindVersion.resource.names.kind)).add(`${kind}Client`).add(`${kind}Calls`);
  }
  const rt = new RuntimeNames(taken);
  const body: string[] = [];
  const members: string[] = [];
  const typeImports = new Set<string>();
  const registerImports: string[] = [];
  const applyImports = new Set<string>();
  const otherPackages = new Map<string, string>();
  const targetImports = new Map<string, Set<string>>();
  /** The descriptor constant of the kind a call is sent to (imported from its package's register module). */
  const target = (id: string): string => {
    const def = ctx.definitions?.get(id);
    if (!def) throw new Error(`no definition ${id}`);
    const name = resourceConstName(def.name);
    const module = def.pkg.dir === gv.pkg?.dir ? './register' : relativeModule(gv.pkg?.dir ?? '', `${def.pkg.dir}/register`);
    if (module !== './register') (targetImports.get(module) ?? targetImports.set(module, new Set()).get(module)!).add(name);
    return name;
  };
  const spell = (id: string | undefined, fallback: string, apply: boolean): string => {
    if (id === undefined) return fallback;
    const def = ctx.definitions?.get(id);
    if (!def) throw new Error(`no definition ${id}`);
    if (def.pkg.dir === gv.pkg?.dir) {
      const name = apply ? `${def.name}Apply` : def.name;
      (apply ? applyImports : typeImports).add(name);
      return name;
    }
    const ns = `${packageAlias(def.pkg.dir)}${apply ? 'apply' : ''}`;
    otherPackages.set(ns, `${def.pkg.dir}/${apply ? 'applyconfigurations' : 'types'}`);
    return `${ns}.${def.name}${apply ? 'Apply' : ''}`;
  };
  for (const kindVersion of gv.kinds) {
    const kind = kindIdentifier(kindVersion);
    const { root: T, list: L } = typeNames(kindVersion.resource.names.kind);
    const verbs = kindVersion.version.builtin?.verbs ?? ALL_VERBS;
    const lists = verbs.includes('list');
    typeImports.add(T);
    if (lists) typeImports.add(L);
    registerImports.push(resourceConstName(kind));
    const applies = verbs.includes('apply');
    const A = ctx.applyName(kindVersion.resource.names.kind);
    if (applies) applyImports.add(A);
    const generics = [T, ...(lists || applies ? [lists ? L : `${rt.use('KubeList')}<${T}>`] : []), ...(applies ? [A] : [])].join(', ');
    const full = ALL_VERBS.every((v) => verbs.includes(v));
    const methods = verbs.flatMap((v) => VERB_METHODS[v] ?? []);
    const parts: string[] = [];
    if (full) parts.push(`${rt.use('ResourceInterface')}<${generics}>`);
    else if (methods.length > 0) parts.push(`Pick<${rt.use('ResourceInterface')}<${generics}>, ${methods.map(literal).join(' | ')}>`);
    if (kindVersion.version.subresources.status) parts.push(`${rt.use('StatusInterface')}<${T}${applies ? `, ${A}` : ''}>`);
    if (kindVersion.version.subresources.scale && !kindVersion.version.builtin) parts.push(rt.use('ScaleInterface'));
    const calls = kindVersion.version.builtin?.calls ?? [];
    const namespaced = kindVersion.resource.scope === 'Namespaced';
    if (calls.length > 0) {
      parts.push(`${kind}Calls`);
      body.push(...emitCalls(kindVersion, generics, calls, rt, (id, apply) => spell(id, apply ? A : T, apply), target), '');
    }
    body.push(`/** Typed client for ${kindVersion.resource.names.kind} (${gv.group || 'core'}/${gv.version}, ${namespaced ? 'namespaced' : 'cluster-scoped'}). */`);
    body.push(`export type ${clientInterfaceName(kind)} = ${parts.join(' & ')};`, '');
    const member = pluralMember(kindVersion);
    const cls = calls.length > 0 ? `${kind}Client` : `${rt.use('ResourceClient')}<${generics}>`;
    const ctor = `new ${cls}(this.transport, ${resourceConstName(kind)}${namespaced ? ', namespace' : ''})`;
    if (namespaced) {
      members.push(
        `  /** ${kind} objects in \`namespace\`; \`''\` means all namespaces (for list, watch and deleteCollection only). */`,
        `  ${member}(namespace: string): ${clientInterfaceName(kind)} {`,
        `    return ${ctor};`,
        '  }',
      );
    } else {
      members.push(`  /** ${kind} objects (cluster-scoped). */`, `  ${member}(): ${clientInterfaceName(kind)} {`, `    return ${ctor};`, '  }');
    }
  }
  const transport = rt.use('Transport');
  const typeLines = typeImportLines(gv, [...typeImports], ext);
  const relative = (module: string): string => `${relativeModule(gv.pkg?.dir ?? '', module)}${ext}`;
  return [
    HEADER,
    '',
    `import { ${rt.specifiers(['ResourceClient'])} } from ${literal(runtimeImport)};`,
    `import type { ${rt.specifiers(['ApplyOptions', 'CreateOptions', 'GetOptions', 'KubeList', 'ResourceInterface', 'ScaleInterface', 'StatusInterface', 'Transport', 'UpdateOptions'])} } from ${literal(runtimeImport)};`,
    ...typeLines,
    ...(applyImports.size > 0 ? [`import type { ${[...applyImports].join(', ')} } from ${literal(`./applyconfigurations${ext}`)};`] : []),
    ...[...otherPackages].sort(([a], [b]) => (a < b ? -1 : 1)).map(([ns, target]) => `import type * as ${ns} from ${literal(relative(target))};`),
    `import { ${registerImports.join(', ')} } from ${literal(`./register${ext}`)};`,
    ...[...targetImports].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, names]) => `import { ${[...names].sort().join(', ')} } from ${literal(`${m}${ext}`)};`),
    '',
    ...body,
    `/** Clients for the ${gv.group || 'core'}/${gv.version} API. */`,
    `export class ${className} {`,
    `  readonly transport: ${transport};`,
    '',
    `  constructor(transport: ${transport}) {`,
    '    this.transport = transport;',
    '  }',
    '',
    ...members.flatMap((l, i) => (l.startsWith('  /**') && i > 0 ? ['', l] : [l])),
    '}',
    '',
  ].join('\n');
}

/**
 * `<Kind>Calls` (the signatures of a built-in kind's subresource calls) and `<Kind>Client`, the `ResourceClient`
 * that implements them over its generic subresource requests. `spell(id, apply)` names a definition's type (or its
 * apply configuration) as this file imports it; an absent id is the kind itself.
 */
function emitCalls(
  kindVersion: KindVersion,
  generics: string,
  calls: readonly SubresourceCall[],
  rt: RuntimeNames,
  spell: (id: string | undefined, apply: boolean) => string,
  target: (id: string) => string,
): string[] {
  const kind = kindIdentifier(kindVersion);
  const sigs: string[] = [];
  const impls: string[] = [];
  for (const c of calls) {
    // `getScale`/`updateScale` are the generic client's own (generic in the Scale type): declared, not implemented.
    const inherited = c.method === 'getScale' || c.method === 'updateScale';
    const R = c.text ? 'string' : spell(c.result ?? c.input, false);
    const sub = literal(c.subresource);
    let params: string;
    let impl: string;
    switch (c.verb) {
      case 'get':
        if (c.text) {
          params = `name: string, opts: ${spell(c.input, false)} = {}`;
          impl = `return this.getSubresourceText(name, ${sub}, { ...opts });`;
        } else {
          params = `name: string, opts: ${rt.use('GetOptions')} = {}`;
          impl = `return this.getSubresource<${R}>(name, ${sub}, opts);`;
        }
        break;
      case 'create':
      case 'update': {
        const I = spell(c.input, false);
        const opts = rt.use(c.verb === 'create' ? 'CreateOptions' : 'UpdateOptions');
        params = `name: string, body: ${I}, opts: ${opts} = {}`;
        // A call to another kind's subresource goes through a client of that kind, in this client's namespace.
        const via = c.target === undefined ? 'this' : `new ${rt.use('ResourceClient')}(this.transport, ${target(c.target)}, this.namespace)`;
        impl = `return ${via}.${c.verb}Subresource<${R}>(name, ${sub}, body, opts);`;
        break;
      }
      case 'apply':
        params = `name: string, config: ${spell(c.input, true)}, opts: ${rt.use('ApplyOptions')} = {}`;
        impl = `return this.applySubresource<${R}>(name, ${sub}, config, opts);`;
        break;
      default:
        throw new Error(`${kind}: subresource call ${c.method} has verb ${c.verb as string}`);
    }
    const doc = `  /** ${c.doc.replace(/\*\//g, '*\\/')} */`;
    sigs.push(doc, `  ${c.method}(${params.replace(/ = \{\}/g, '').replace(/(opts): /, '$1?: ')}): Promise<${R}>;`);
    if (!inherited) impls.push(doc, `  ${c.method}(${params}): Promise<${R}> {`, `    ${impl}`, '  }');
  }
  return [
    `/** ${kind}'s subresource calls besides status (client-go's generated and expanded methods). */`,
    `export interface ${kind}Calls {`,
    ...sigs,
    '}',
    '',
    `/** The ${kind} client: the generic one plus {@link ${kind}Calls}. */`,
    `export class ${kind}Client extends ${rt.use('ResourceClient')}<${generics}> implements ${kind}Calls {`,
    ...impls,
    '}',
  ];
}

export type { KindTypeNames };

/** The import path from output folder `from` to module `to` (both relative to the output root). */
function relativeModule(from: string, to: string): string {
  return `${from.split('/').map(() => '..').join('/')}/${to}`;
}
