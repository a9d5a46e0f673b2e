import type { DefinitionModel, JSONSchemaProps } from '../../model/index.js';
import type { GroupVersionContext } from '../context.js';
import { HEADER, literal } from '../emit-util.js';
import { kindIdentifier, resourceConstName } from '../names.js';

/**
 * `<group>/<version>/register.ts`: the group, version and one `ResourceDescriptor` per kind (resource name, kind,
 * scope, subresources; for the fake tracker's server-side apply, the associative lists and atomic objects). Typed clients, informers
 * and the fake tracker all read these; nothing else knows URLs. With `mergeSchemaApart` (the built-in API) the
 * associative lists and atomic objects are left out: they go to `merge-schema.ts` ({@link emitMergeSchema}), which
 * only the fake tracker loads, so that a controller does not carry them.
 */
export function emitRegister(ctx: Pick<GroupVersionContext, 'gv' | 'runtimeImport' | 'definitions'>, mergeSchemaApart = false): string {
  const { gv, runtimeImport, definitions } = ctx;
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
    if (!mergeSchemaApart) Object.assign(desc, mergeSchema(version.schema, definitions));
    out.push('');
    out.push(`/** ${resource.names.kind} (${resource.scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'}). */`);
    out.push(`export const ${resourceConstName(kindIdentifier({ resource }))}: ResourceDescriptor = ${objectLiteral(desc)};`);
  }
  out.push(`
/** Every resource of this group/version. */
export const resources: readonly ResourceDescriptor[] = [${gv.kinds.map((k) => resourceConstName(kindIdentifier(k))).join(', ')}];
`);
  return out.join('\n');
}

/** A kind's associative lists and atomic objects, each left out when there are none. */
function mergeSchema(schema: JSONSchemaProps, definitions?: ReadonlyMap<string, DefinitionModel>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const lists = associativeLists(schema, definitions);
  if (lists.length > 0) out['associativeLists'] = lists;
  const atomic = atomicObjects(schema, definitions);
  if (atomic.length > 0) out['atomicObjects'] = atomic;
  return out;
}

/**
 * `<group>/<version>/merge-schema.ts` of the built-in API: per kind, what server-side apply merges by (the associative
 * lists and atomic objects `register.ts` leaves out), for the fake tracker.
 */
export function emitMergeSchema(ctx: Pick<GroupVersionContext, 'gv' | 'runtimeImport' | 'definitions'>): string {
  const { gv, runtimeImport, definitions } = ctx;
  const out: string[] = [HEADER, '', `import type { MergeSchema } from ${literal(runtimeImport)};`, ''];
  out.push('/** Per kind, what server-side apply merges by (the fake tracker reads it; a controller never loads it). */');
  out.push('export const mergeSchemas: Readonly<Record<string, MergeSchema>> = {');
  for (const { resource, version } of gv.kinds) {
    const m = mergeSchema(version.schema, definitions);
    if (Object.keys(m).length === 0) continue;
    out.push(`  ${literal(resource.names.kind)}: ${objectLiteral(m).replace(/\n/g, '\n  ')},`);
  }
  out.push('};', '');
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
  walkSchema(schema, definitions, (s, path, deref) => {
    const type = s['x-kubernetes-list-type'];
    const keys = s['x-kubernetes-list-map-keys'];
    if (type === 'map' && keys?.length) {
      const props = deref(s.items)?.properties ?? {};
      const defaults = keys.filter((k) => Object.hasOwn(props, k) && props[k]!.default !== undefined).map((k) => [k, props[k]!.default]);
      out.push(defaults.length > 0 ? { path, keys: [...keys], keyDefaults: Object.fromEntries(defaults) } : { path, keys: [...keys] });
    } else if (type === 'set') out.push({ path });
    return true;
  });
  return out;
}

/** A built-in field holding any object (`runtime.RawExtension`: a ControllerRevision's `data`). */
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/**
 * The objects and maps of a kind's schema that are atomic (`x-kubernetes-map-type: atomic`, Go's `+structType=atomic`
 * and `+mapType=atomic`; and a `runtime.RawExtension`, which structured-merge-diff's schema of the built-in types has
 * as atomic too): server-side apply replaces them whole and owns them as one field. Paths as in
 * {@link associativeLists}, in schema order; one inside another atomic object is not listed (the outer one is the
 * unit).
 */
export function atomicObjects(schema: JSONSchemaProps, definitions?: ReadonlyMap<string, DefinitionModel>): string[][] {
  const out: string[][] = [];
  walkSchema(schema, definitions, (s, path) => {
    if (s['x-kubernetes-map-type'] !== 'atomic' && s.$ref !== RAW_EXTENSION) return true;
    out.push(path);
    return false;
  });
  return out;
}

/**
 * Visits every node of a kind's schema below the root (not `apiVersion`, `kind`, `metadata`), parents first, in
 * schema order; `visit` sees the node with a `$ref`'s target merged under the node's own keywords, and returns
 * whether to go below it. A type met again below itself (a recursive type) is not walked twice.
 */
function walkSchema(
  schema: JSONSchemaProps,
  definitions: ReadonlyMap<string, DefinitionModel> | undefined,
  visit: (s: JSONSchemaProps, path: string[], deref: (s: JSONSchemaProps | undefined) => JSONSchemaProps | undefined) => boolean,
): void {
  const deref = (s: JSONSchemaProps | undefined): JSONSchemaProps | undefined => (s?.$ref !== undefined ? definitions?.get(s.$ref)?.schema : s);
  const walk = (s0: JSONSchemaProps, path: string[], within: readonly string[]): void => {
    if (s0.$ref !== undefined && within.includes(s0.$ref)) return;
    const target = deref(s0) ?? {};
    const s = s0.$ref !== undefined ? { ...target, ...s0 } : s0;
    if (path.length > 0 && !visit(s, path, deref)) return;
    const inside = s0.$ref !== undefined ? [...within, s0.$ref] : within;
    for (const [name, sub] of Object.entries(target.properties ?? {})) {
      if (path.length === 0 && (name === 'apiVersion' || name === 'kind' || name === 'metadata')) continue;
      walk(sub, [...path, name], inside);
    }
    if (target.items) walk(target.items, [...path, '[]'], inside);
    if (typeof target.additionalProperties === 'object') walk(target.additionalProperties, [...path, '{}'], inside);
  };
  walk(schema, [], []);
}
