import type { GroupVersion } from '../../model/index.js';
import { HEADER, literal } from '../emit-util.js';
import { resourceConstName } from '../names.js';

/**
 * `<group>/<version>/register.ts`: the group, version and one `ResourceDescriptor` per kind (resource name, kind,
 * scope, subresources). Typed clients, informers and the fake tracker all read these; nothing else knows URLs.
 */
export function emitRegister(gv: GroupVersion, runtimeImport: string): string {
  const out: string[] = [HEADER, '', `import type { ResourceDescriptor } from ${literal(runtimeImport)};`, ''];
  out.push(`/** The API group of this module. */`);
  out.push(`export const GROUP = ${literal(gv.group)};`);
  out.push(`/** The API version of this module. */`);
  out.push(`export const VERSION = ${literal(gv.version)};`);
  out.push(`/** \`apiVersion\` of objects in this module. */`);
  out.push(`export const API_VERSION = ${literal(`${gv.group}/${gv.version}`)};`);
  for (const { resource, version } of gv.kinds) {
    const desc: Record<string, unknown> = {
      group: gv.group,
      version: gv.version,
      resource: resource.names.plural,
      kind: resource.names.kind,
      listKind: resource.names.listKind,
      namespaced: resource.scope === 'Namespaced',
      statusSubresource: version.subresources.status,
    };
    if (version.subresources.scale) desc['scale'] = version.subresources.scale;
    out.push('');
    out.push(`/** ${resource.names.kind} (${resource.scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'}). */`);
    out.push(`export const ${resourceConstName(resource.names.kind)}: ResourceDescriptor = ${objectLiteral(desc)};`);
  }
  out.push(`
/** Every resource of this group/version. */
export const resources: readonly ResourceDescriptor[] = [${gv.kinds.map((k) => resourceConstName(k.resource.names.kind)).join(', ')}];
`);
  return out.join('\n');
}

function objectLiteral(obj: Record<string, unknown>): string {
  const entries = Object.entries(obj).map(([k, v]) => `  ${k}: ${literal(v)},`);
  return `{\n${entries.join('\n')}\n}`;
}
