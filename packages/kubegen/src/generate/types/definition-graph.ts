import type { DefinitionModel, GroupVersion, JSONSchemaProps } from '../../model/index.js';
import { cmp } from '../../model/index.js';
import { describeConstraint } from './constraints.js';
import type { KindTypes, TypeModel } from './type-model.js';
import type { ObjectDef, PropDef, TypeAliasDef, TypeRef } from './type-ref.js';

const UNKNOWN: TypeRef = { kind: 'unknown' };

/**
 * The named types of one package of the built-in API (`core/v1`, `meta/v1` …): one interface per struct
 * definition and one type alias per other definition (`+enum` types, `Time`), each under its Go name, in the order
 * the Go sources declare them — the same `ObjectDef`/`TypeRef` forms the CRD `TypeGraph` builds, so every emitter
 * serves both. Nothing is shared by structure and nothing is renamed: a definition is its own type.
 *
 * References (`$ref`) resolve to the package's own types, to another package's (`{ kind: 'ext' }`, imported as a
 * namespace named like Go's import alias: `corev1.PodSpec`), or to a type the runtime provides (`IntOrString`,
 * `Quantity`, `RawExtension`). A kind's root interface types `apiVersion` and `kind` as their literal values.
 */
export class DefinitionGraph implements TypeModel {
  readonly kinds: KindTypes[] = [];
  readonly coreTypeUses = [];
  /** Other packages this one's types refer to: folder → namespace alias (`core/v1` → `corev1`). */
  readonly imports = new Map<string, string>();
  private readonly objects = new Map<string, ObjectDef>();
  private readonly aliases = new Map<string, TypeAliasDef>();
  private readonly order: (ObjectDef | TypeAliasDef)[] = [];

  constructor(
    readonly gv: GroupVersion,
    private readonly definitions: ReadonlyMap<string, DefinitionModel>,
  ) {
    const dir = gv.pkg!.dir;
    const own = [...definitions.values()]
      .filter((d) => d.pkg.dir === dir && d.runtimeName === undefined)
      .sort((a, b) => cmp(a.source.file, b.source.file) || a.source.line - b.source.line || cmp(a.name, b.name));
    let id = 0;
    for (const d of own) {
      if (isInterface(d.schema)) {
        const def: ObjectDef = { id: id++, key: d.id, name: d.name, fixedName: d.name, paths: [[d.name]], props: [], descriptions: new Set([d.schema.description?.trim() ?? '']), notes: describeConstraint(d.schema), schema: d.schema };
        this.objects.set(d.id, def);
        this.order.push(def);
      } else {
        const alias: TypeAliasDef = { name: d.name, type: UNKNOWN, description: d.schema.description };
        this.aliases.set(d.id, alias);
        this.order.push(alias);
      }
    }
    for (const d of own) {
      const obj = this.objects.get(d.id);
      if (obj) this.fill(obj, d.schema);
      else this.aliases.get(d.id)!.type = this.resolve({ ...d.schema, description: undefined });
    }
    for (const kindVersion of gv.kinds) {
      const b = kindVersion.version.builtin!;
      const root = this.objects.get(b.definition)!;
      const apiVersion = gv.group ? `${gv.group}/${gv.version}` : gv.version;
      for (const p of root.props) {
        if (p.name === 'apiVersion') p.type = { kind: 'lit', values: [apiVersion] };
        if (p.name === 'kind') p.type = { kind: 'lit', values: [kindVersion.resource.names.kind] };
      }
      const list = b.listDefinition ? this.objects.get(b.listDefinition)! : undefined;
      if (list) {
        for (const p of list.props) {
          if (p.name === 'apiVersion') p.type = { kind: 'lit', values: [apiVersion] };
          if (p.name === 'kind') p.type = { kind: 'lit', values: [kindVersion.resource.names.listKind] };
        }
      }
      this.kinds.push({ kindVersion, root, list: list ?? root });
    }
  }

  orderedDefs(): ObjectDef[] {
    return this.order.filter((d): d is ObjectDef => 'props' in d);
  }

  exportedNames(): ReadonlySet<string> {
    return new Set(this.order.flatMap((d) => [d.name, ...('props' in d ? (d.after ?? []).map((a) => a.name) : [])]));
  }

  /** Every declaration in source order: interfaces and type aliases. */
  declarations(): (ObjectDef | TypeAliasDef)[] {
    return [...this.order];
  }

  private fill(def: ObjectDef, s: JSONSchemaProps): void {
    const required = new Set(s.required ?? []);
    for (const [name, sub] of Object.entries(s.properties ?? {})) {
      const p: PropDef = { name, type: this.resolve(sub), required: required.has(name), schema: sub };
      def.props.push(p);
    }
    if (s['x-kubernetes-preserve-unknown-fields'] || (s.properties === undefined && s.type === 'object')) def.index = UNKNOWN;
  }

  private resolve(s: JSONSchemaProps): TypeRef {
    const t = this.resolveBase(s);
    return s.nullable && t.kind !== 'unknown' ? { kind: 'null', of: t } : t;
  }

  private resolveBase(s: JSONSchemaProps): TypeRef {
    if (s.$ref !== undefined) return this.ref(s.$ref);
    if (s['x-kubernetes-int-or-string']) return { kind: 'ios' };
    // A `+enum` type: its values, open to others (see `TypeRef`'s `open`).
    if (s.enum && s.enum.length > 0 && s.enum.every((v) => typeof v === 'string')) return { kind: 'lit', values: s.enum, open: true };
    switch (s.type) {
      case 'string':
        return { kind: 'prim', name: 'string' };
      case 'integer':
      case 'number':
        return { kind: 'prim', name: 'number' };
      case 'boolean':
        return { kind: 'prim', name: 'boolean' };
      case 'array': {
        const of = s.items ? this.resolve(s.items) : UNKNOWN;
        const keys = this.requiredKeys(s);
        return keys ? { kind: 'array', of, keys } : { kind: 'array', of };
      }
      case 'object':
        if (typeof s.additionalProperties === 'object') return { kind: 'map', of: this.resolve(s.additionalProperties) };
        return { kind: 'map', of: UNKNOWN };
    }
    return UNKNOWN;
  }

  private ref(id: string): TypeRef {
    const def = this.definitions.get(id);
    if (!def) throw new Error(`no definition ${id}`);
    if (def.runtimeName !== undefined) return { kind: 'core', name: def.runtimeName };
    const own = this.objects.get(id);
    if (own) return { kind: 'obj', def: own };
    const alias = this.aliases.get(id);
    if (alias) return { kind: 'alias', def: alias };
    const ns = packageAlias(def.pkg.dir);
    this.imports.set(def.pkg.dir, ns);
    return { kind: 'ext', ns, dir: def.pkg.dir, name: def.name, object: isInterface(def.schema) };
  }

  /** The keys an applied entry of an associative list must carry: its list-map keys but those its item defaults. */
  private requiredKeys(s: JSONSchemaProps): string[] | undefined {
    if (s['x-kubernetes-list-type'] !== 'map' || !s['x-kubernetes-list-map-keys']?.length) return undefined;
    const item = s.items?.$ref !== undefined ? this.definitions.get(s.items.$ref)?.schema : s.items;
    const props = item?.properties ?? {};
    const keys = s['x-kubernetes-list-map-keys'].filter((k) => !(Object.hasOwn(props, k) && props[k]!.default !== undefined));
    return keys.length > 0 ? keys : undefined;
  }
}

/** Whether a definition is written as an interface (a struct) rather than a type alias. */
export function isInterface(s: JSONSchemaProps): boolean {
  return s.type === 'object' && s.additionalProperties === undefined;
}

/** Go's conventional import alias of an API package: `core/v1` → `corev1`, `meta/v1` → `metav1`. */
export function packageAlias(dir: string): string {
  return dir.replace(/[^A-Za-z0-9]/g, '');
}
