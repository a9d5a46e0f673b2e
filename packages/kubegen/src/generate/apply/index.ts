/**
 * `<group>/<version>/applyconfigurations.ts`: typed server-side apply (client-go's `applyconfigurations`). Per kind
 * `<Kind>Apply`, the part of the object a field manager may own — every field optional at every depth, except
 * `apiVersion` and `kind` (their literal types), `metadata` with its `name`, and the keys of each associative-list
 * entry (`x-kubernetes-list-type: map`; a key the schema defaults stays optional, the apiserver fills it in) — and
 * a constructor `<kind>Apply(name, namespace?)` returning just the object's identity, to spread into a literal:
 * `client.foos(ns).apply({ ...fooApply('a', ns), spec: { replicas: 2 } })`.
 *
 * One interface per named type of the `TypeGraph` (`FooSpec` → `FooSpecApply`), so the types emitter's sharing is
 * kept and the size stays close to `types.ts` without its doc comments: property docs are left to `types.ts`
 * (each interface's comment names its type there). The runtime's core types (`Container`, …) are applied as
 * `ApplyConfiguration<Container>`, a generic deep partial whose list-map keys are not required. Objects that keep
 * unknown fields keep them (`[key: string]: unknown`). Input text reaches the output only as JSON literals and
 * quoted keys; names are checked against every name the version's modules export (`reservedNames`).
 */
import { kindApiVersion, type KindVersion } from '../../model/index.js';
import { firstFreeName, HEADER, literal, propertyKey, RuntimeNames } from '../emit-util.js';
import { kindIdentifier, lowerCamel } from '../names.js';
import { CORE_TYPES } from '../types/core-types.js';
import type { TypeModel } from '../types/type-model.js';
import type { GroupVersionContext } from '../context.js';
import { runtimeTypeImports } from '../types/runtime-type-imports.js';
import { OBJECT_PROTOTYPE_KEYS, packageImports, typeText } from '../types/emit-types.js';
import type { ObjectDef, PropDef, TypeRef } from '../types/type-ref.js';

/** Runtime names an apply configurations module may import. */
const RUNTIME_APPLY_NAMES: readonly string[] = [
  'ApplyConfiguration', 'ApplyObjectMeta', 'IntOrString', 'Quantity', 'RawExtension', 'ListMapEntry', 'ObjectMeta', 'ListMeta', ...CORE_TYPES.map((c) => c.name),
];

/** The names of one group/version's apply configurations: per named type, and per kind its root's and constructor. */
export interface ApplyNames {
  /**
   * `FooSpec` → `FooSpecApply` (`…ApplyConfiguration` when that is taken, a numeric suffix as the last resort).
   */
  types: Map<ObjectDef, string>;
  /** Kind → its root apply type (`FooApply`). */
  root(kind: string): string;
  /** Kind → its constructor (`fooApply`). */
  constructorName(kind: string): string;
}

/**
 * Names every apply type of `graph` (kinds' list types excluded), in emission order so they are deterministic.
 * `reserved` holds the type names the version's other modules export (they are re-exported beside these).
 */
export function applyNames(graph: TypeModel, reserved: ReadonlySet<string>): ApplyNames {
  const taken = new Set(reserved);
  const types = new Map<ObjectDef, string>();
  for (const def of applyDefs(graph)) {
    const name = firstFreeName([`${def.name}Apply`, `${def.name}ApplyConfiguration`], taken);
    taken.add(name);
    types.set(def, name);
  }
  const roots = new Map(graph.kinds.map((k) => [k.kindVersion.resource.names.kind, types.get(k.root)!]));
  return { types, root: (kind) => roots.get(kind)!, constructorName: (kind) => `${lowerCamel(kind)}Apply` };
}

function hasNamedLiteral(t: TypeRef): boolean {
  if (t.kind === 'lit') return t.named !== undefined;
  if (t.kind === 'alias') return true;
  if (t.kind === 'array' || t.kind === 'map' || t.kind === 'null') return hasNamedLiteral(t.of);
  return t.kind === 'union' && t.of.some(hasNamedLiteral);
}

/** The graph's named types an apply configuration uses: all but the kinds' list types. */
function applyDefs(graph: TypeModel): ObjectDef[] {
  const lists = new Set(graph.kinds.map((k) => k.list));
  return graph.orderedDefs().filter((d) => !lists.has(d));
}

/** The content of `applyconfigurations.ts` for `gv` (see the module comment). */
export function emitApplyConfigurations(ctx: Pick<GroupVersionContext, 'gv' | 'graph' | 'runtimeImport' | 'ext'>, names: ApplyNames): string {
  const { gv, graph, runtimeImport, ext: importExtension } = ctx;
  const rt = new RuntimeNames(new Set(names.types.values()));
  const roots = new Map(graph.kinds.map((k) => [k.root, k.kindVersion]));
  const body: string[] = [];
  for (const def of applyDefs(graph)) {
    const kindVersion = roots.get(def);
    body.push(kindVersion ? emitRoot(def, kindVersion, names, rt) : emitStruct(def, names, rt));
  }
  const imports = rt.specifiers(RUNTIME_APPLY_NAMES);
  // The literal unions types.ts names are spelled `types.<Name>`.
  const named = applyDefs(graph).some((d) => d.props.some((p) => hasNamedLiteral(p.type)) || (d.index !== undefined && hasNamedLiteral(d.index)));
  // Other built-in packages: their interfaces' apply forms (`corev1apply.PodSpecApply`) and their other types (`corev1.PodPhase`).
  const other = packageImports(gv, graph.imports, 'types', importExtension) + packageImports(gv, graph.imports, 'applyconfigurations', importExtension, 'apply');
  return [
    HEADER,
    `// Server-side apply configurations for ${gv.group || 'core'}/${gv.version}.`,
    ...(named ? [`import type * as types from ${literal(`./types${importExtension}`)};`] : []),
    ...runtimeTypeImports(imports, runtimeImport),
    ...(other ? [other.trimEnd()] : []),
    '',
    body.join('\n'),
  ].join('\n');
}

function emitRoot(def: ObjectDef, kindVersion: KindVersion, names: ApplyNames, rt: RuntimeNames): string {
  const { kind } = kindVersion.resource.names;
  const ctor = names.constructorName(kindIdentifier(kindVersion));
  const apiVersion = kindApiVersion(kindVersion);
  const name = names.types.get(def)!;
  const namespaced = kindVersion.resource.scope === 'Namespaced';
  const own = def.props.filter((p) => !(p.name === 'apiVersion' || p.name === 'kind' || p.name === 'metadata'));
  const lines = [
    `/**`,
    ` * Server-side apply configuration of a ${kind} (fields documented on \`${kind}\`).`,
    ` * Start from \`${ctor}(name${namespaced ? ', namespace' : ''})\`.`,
    ` */`,
    `export interface ${name} {`,
    `  apiVersion: ${literal(apiVersion)};`,
    `  kind: ${literal(kind)};`,
    `  metadata: ${rt.use('ApplyObjectMeta')};`,
    ...own.map((p) => property(p, names, rt)),
    ...(def.index ? [`  [key: string]: ${applyType(def.index, names, rt)};`] : []),
    '}',
    '',
  ];
  const params = namespaced ? 'name: string, namespace?: string' : 'name: string';
  const metadata = namespaced ? 'namespace === undefined ? { name } : { name, namespace }' : '{ name }';
  lines.push(
    `/** A ${kind} apply configuration naming only the object; spread it and add the fields to own. */`,
    `export function ${ctor}(${params}): ${name} {`,
    `  return { apiVersion: ${literal(apiVersion)}, kind: ${literal(kind)}, metadata: ${metadata} };`,
    '}',
    '',
  );
  return lines.join('\n');
}

function emitStruct(def: ObjectDef, names: ApplyNames, rt: RuntimeNames): string {
  const name = names.types.get(def)!;
  const base = def.base ? ` extends ${rt.use('ApplyConfiguration')}<${rt.use(def.base)}>` : '';
  return [
    `/** Apply configuration of \`${def.name}\`. */`,
    `export interface ${name}${base} {`,
    ...def.props.map((p) => property(p, names, rt)),
    ...(def.index ? [`  [key: string]: ${applyType(def.index, names, rt)};`] : []),
    '}',
    '',
  ].join('\n');
}

function property(p: PropDef, names: ApplyNames, rt: RuntimeNames): string {
  let type = applyType(p.type, names, rt);
  // As in types.ts: an optional `constructor`/`toString` reads as the inherited member when absent.
  if (OBJECT_PROTOTYPE_KEYS.has(p.name)) type += ` | {}[${literal(p.name)}]`;
  return `  ${propertyKey(p.name)}?: ${type};`;
}

/** The apply form of a type reference: named objects by their apply names, core types deep-partial. */
export function applyType(t: TypeRef, names: ApplyNames, rt: RuntimeNames): string {
  return typeText(t, rt, {
    obj: (o) => names.types.get(o.def)!,
    named: (name) => `types.${name}`,
    core: (name) => `${rt.use('ApplyConfiguration')}<${rt.use(name)}>`,
    ext: (e) => (e.object ? `${e.ns}apply.${e.name}Apply` : `${e.ns}.${e.name}`),
    array: (a, item) => (a.keys && (a.of.kind === 'obj' || a.of.kind === 'core' || (a.of.kind === 'ext' && a.of.object)) ? `${rt.use('ListMapEntry')}<${item}, ${a.keys.map(literal).join(' | ')}>[]` : undefined),
  });
}
