import type { GroupVersion } from '../../model/index.js';
import { HEADER, literal, RuntimeNames } from '../emit-util.js';
import { clientInterfaceName, groupVersionClientName, pluralMember, resourceConstName } from '../names.js';
import type { KindTypeNames } from '../names.js';
import { typeImportLines } from '../user-types.js';

/**
 * `<group>/<version>/client.ts`: per kind an interface type (the generic `ResourceInterface`, plus the status and
 * scale verbs only where the CRD declares those subresources; `apply` takes the kind's apply configuration) and a group/version client whose accessors return
 * the runtime's generic `ResourceClient`. Namespaced kinds take a namespace argument, cluster-scoped ones none.
 */
export function emitClient(
  gv: GroupVersion,
  groupId: string,
  typeNames: KindTypeNames,
  applyName: (kind: string) => string,
  runtimeImport: string,
  ext: string,
): string {
  const className = groupVersionClientName(groupId, gv.version);
  // Names this file declares or imports besides the runtime's: a kind may be spelled like a runtime export.
  const taken = new Set<string>([className]);
  for (const kv of gv.kinds) {
    const { root, list } = typeNames(kv.resource.names.kind);
    taken.add(root).add(list).add(clientInterfaceName(kv.resource.names.kind)).add(applyName(kv.resource.names.kind));
  }
  const rt = new RuntimeNames(taken);
  const body: string[] = [];
  const members: string[] = [];
  const typeImports: string[] = [];
  const registerImports: string[] = [];
  const applyImports: string[] = [];
  for (const kv of gv.kinds) {
    const { kind } = kv.resource.names;
    const { root: T, list: L } = typeNames(kind);
    typeImports.push(T, L);
    registerImports.push(resourceConstName(kind));
    const A = applyName(kind);
    applyImports.push(A);
    const parts = [`${rt.use('ResourceInterface')}<${T}, ${L}, ${A}>`];
    if (kv.version.subresources.status) parts.push(`${rt.use('StatusInterface')}<${T}, ${A}>`);
    if (kv.version.subresources.scale) parts.push(rt.use('ScaleInterface'));
    const namespaced = kv.resource.scope === 'Namespaced';
    body.push(`/** Typed client for ${kind} (${gv.group}/${gv.version}, ${namespaced ? 'namespaced' : 'cluster-scoped'}). */`);
    body.push(`export type ${clientInterfaceName(kind)} = ${parts.join(' & ')};`, '');
    const member = pluralMember(kv);
    const ctor = `new ${rt.use('ResourceClient')}<${T}, ${L}, ${A}>(this.transport, ${resourceConstName(kind)}${namespaced ? ', namespace' : ''})`;
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
  return [
    HEADER,
    '',
    `import { ${rt.specifiers(['ResourceClient'])} } from ${literal(runtimeImport)};`,
    `import type { ${rt.specifiers(['ResourceInterface', 'ScaleInterface', 'StatusInterface', 'Transport'])} } from ${literal(runtimeImport)};`,
    ...typeImportLines(gv, typeImports, ext),
    `import type { ${applyImports.join(', ')} } from ${literal(`./applyconfigurations${ext}`)};`,
    `import { ${registerImports.join(', ')} } from ${literal(`./register${ext}`)};`,
    '',
    ...body,
    `/** Clients for the ${gv.group}/${gv.version} API. */`,
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
