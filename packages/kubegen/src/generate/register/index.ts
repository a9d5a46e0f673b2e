import type { DefinitionModel, GroupVersion, JSONSchemaProps } from '../../model/index.js';
import { HEADER, literal } from '../emit-util.js';
import { resourceConstName } from '../names.js';

/**
 * `<group>/<version>/register.ts`: the group, version and one `ResourceDescriptor` per kind (resource name, kind,
 * scope, subresources; for the fake tracker's server-side apply, the associative lists). Typed clients, informers
 * and the fake tracker all read these; nothing else knows URLs.
 */
export function emitRegister(gv: GroupVersion, runtimeImport: string, definitions?: ReadonlyMap<string, DefinitionModel>): string {
  const out: string[] = [HEADER, '', `import type { ResourceDescriptor } from ${literal(runtimeImport)};`, ''];
  out.push(`/** The API group of this module${gv.group ? '' : ' (the core group)'}. */`);
  out.push(`export const GROUP = ${literal(gv.group)};`);
  out.push(`/** The API version of this module. */`);
  out.push(`export const VERSION = ${literal(gv.version)};`);
  out.push(`/** \`apiVersion\` of objects in this module. */`);
  out.push(`export const API_VERSION = ${literal(gv.group ? `${gv.group}/${gv.version}` : gv.version)};`);
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
    if (version.builtin) {
      // What discovery says of a built-in kind (the fake serves it), and the releases its version needs.
      desc['singular'] = resource.names.singular;
      if (resource.names.shortNames.length > 0) desc['shortNames'] = resource.names.shortNames;
      if (resource.names.categories.length > 0) desc['categories'] = resource.names.categories;
      if (version.builtin.lifecycle) desc['lifecycle'] = version.builtin.lifecycle;
    }
    const lists = associativeLists(version.schema, definitions);
    if (lists.length > 0) desc['associativeLists'] = lists;
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

/**
 * The associative lists (`x-kubernetes-list-type` `map` with its keys, or `set`) of a kind's schema, in schema order:
 * paths of property names, `[]` for list items, `{}` for map values, and the defaults of list-map keys (see the
 * runtime's `AssociativeList`). `$ref`s are followed through `definitions`; a type met again below itself (a
 * recursive type) is not walked twice.
 */
export function associativeLists(schema: JSONSchemaProps, definitions?: ReadonlyMap<string, DefinitionModel>): { path: string[]; keys?: string[]; keyDefaults?: Record<string, unknown> }[] {
  const out: { path: string[]; keys?: string[]; keyDefaults?: Record<string, unknown> }[] = [];
  const deref = (s: JSONSchemaProps | undefined): JSONSchemaProps | undefined => (s?.$ref !== undefined ? definitions?.get(s.$ref)?.schema : s);
  const walk = (s0: JSONSchemaProps, path: string[], within: readonly string[]): void => {
    const s = deref(s0) ?? {};
    if (s0.$ref !== undefined && within.includes(s0.$ref)) return;
    const inside = s0.$ref !== undefined ? [...within, s0.$ref] : within;
    const type = s0['x-kubernetes-list-type'] ?? s['x-kubernetes-list-type'];
    const keys = s0['x-kubernetes-list-map-keys'] ?? s['x-kubernetes-list-map-keys'];
    if (type === 'map' && keys?.length) {
      const props = deref(s.items)?.properties ?? {};
      const defaults = keys.filter((k) => Object.hasOwn(props, k) && props[k]!.default !== undefined).map((k) => [k, props[k]!.default]);
      out.push(defaults.length > 0 ? { path, keys: [...keys], keyDefaults: Object.fromEntries(defaults) } : { path, keys: [...keys] });
    } else if (type === 'set') out.push({ path });
    for (const [name, sub] of Object.entries(s.properties ?? {})) {
      if (path.length === 0 && (name === 'apiVersion' || name === 'kind' || name === 'metadata')) continue;
      walk(sub, [...path, name], inside);
    }
    if (s.items) walk(s.items, [...path, '[]'], inside);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, [...path, '{}'], inside);
  };
  walk(schema, [], []);
  return out;
}
