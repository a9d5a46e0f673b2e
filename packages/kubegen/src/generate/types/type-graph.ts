import { InputError, kindApiVersion } from '../../model/index.js';
import type { GroupVersion, JSONSchemaProps, KindVersion } from '../../model/index.js';
import { uniqueName } from '../emit-util.js';
import { describeConstraint } from './constraints.js';
import { CORE_TYPES, CoreTypeMatcher, fieldName, isEmbeddedObjectMeta } from './core-types.js';
import type { CoreMatch } from './core-types.js';
import { refKey } from './type-ref.js';
import type { CoreTypeMiss, CoreTypeUse, KindTypes, TypeModel } from './type-model.js';
import type { ObjectDef, PropDef, TypeRef } from './type-ref.js';
import { singular, TypeNamer } from './type-names.js';
import { kindIdentifier } from '../names.js';

export { MAX_TYPE_NAME, singular } from './type-names.js';

/** What the client, lister and informer modules append to a kind's name for the types they export. */
export const KIND_DERIVED_SUFFIXES = ['Interface', 'Lister', 'NamespaceLister', 'Informer'] as const;

/**
 * Names the generated `types.ts` may import from the runtime. Generated type names may take them: a file that
 * declares one imports the runtime's aliased (`RuntimeNames`).
 */
export const RUNTIME_TYPE_NAMES: readonly string[] = ['ObjectMeta', 'ListMeta', 'IntOrString', 'Quantity', 'RawExtension', ...CORE_TYPES.map((c) => c.name)];

/** CRD annotation that turns core-type matching off for that CRD (value `"false"`). */
export const CORE_TYPES_ANNOTATION = 'kubegen.io/core-types';

export interface TypeGraphOptions {
  /** Type sub-schemas that are core Kubernetes types with the runtime's types (default true; see `core-types.ts`). */
  coreTypes?: boolean;
  /** A matcher to share between graphs (its reference schemas are built once). */
  matcher?: CoreTypeMatcher;
  /**
   * For `--emit-markers`: every interface must carry its schema's markers, so only sub-schemas identical in every
   * keyword (but their own description) share one; a sub-schema is a core type only when the runtime's model knows
   * every property below it (no drift); enums are literal unions only for strings, `oneOf`/`anyOf` are no unions,
   * and embedded resources get no implied `apiVersion`/`kind`/`metadata` — the graph has the marked types' shape.
   */
  exact?: boolean;
  /** Give a literal union that types several fields one name (default true). */
  enums?: boolean;
}

export type { CoreTypeMiss, CoreTypeUse, KindTypes } from './type-model.js';

const UNKNOWN: TypeRef = { kind: 'unknown' };


/**
 * Resolves every schema of one group/version into `TypeRef`s and named `ObjectDef`s.
 *
 * De-duplication: two object schemas get one interface when they have the same properties (names, required-ness,
 * property descriptions and defaults, and property types), the same index signature and the same constraint notes.
 * The object's *own* description is not part of the identity (Kubernetes inlines the same struct under fields with
 * different docs, e.g. livenessProbe/readinessProbe); the interface keeps a description only when all occurrences
 * agree, and each property always carries its own. A kind's top-level properties (`<Kind>Spec`, `<Kind>Status`)
 * are never shared with another kind. Work is linear in schema size: keys refer to children by id. An `exact` graph
 * (`--emit-markers`) shares only sub-schemas identical in every keyword but their own description.
 *
 * Naming: see `type-names.ts` (a field's type is named after the field, shared shapes for what their fields have
 * in common, with aliases where they have nothing).
 */
export class TypeGraph implements TypeModel {
  readonly kinds: KindTypes[] = [];
  /** Every sub-schema typed as a core type, in schema order. */
  readonly coreTypeUses: CoreTypeUse[] = [];
  /** Every sub-schema shaped like a core type that keeps its own type because it differs from it, in schema order. */
  readonly coreTypeMisses: CoreTypeMiss[] = [];
  private readonly defs = new Map<string, ObjectDef>();
  /** A kind's identifier (the first segment of its paths, `kindIdentifier`) → the kind as the CRD spells it. */
  private readonly realKinds = new Map<string, string>();
  private nextId = 0;
  private readonly matcher: CoreTypeMatcher | undefined;
  private matching: CoreTypeMatcher | undefined;
  private readonly exact: boolean;
  private readonly enums: boolean;
  /** Claims names beside the graph's (the marked types' element aliases); set once the graph is named. */
  namer!: TypeNamer;

  constructor(
    readonly gv: GroupVersion,
    opts: TypeGraphOptions = {},
  ) {
    this.exact = opts.exact === true;
    this.enums = opts.enums !== false;
    this.matcher = opts.coreTypes === false ? undefined : opts.matcher ?? new CoreTypeMatcher();
    for (const kindVersion of gv.kinds) {
      this.matching = kindVersion.resource.annotations?.[CORE_TYPES_ANNOTATION] === 'false' ? undefined : this.matcher;
      this.kinds.push(this.addKind(kindVersion));
    }
    this.assignNames();
  }

  /** Every named type in emission order: per kind the root, the list, then reachable types breadth-first. */
  exportedNames(): ReadonlySet<string> {
    return new Set([...this.namer.declared, ...this.orderedDefs().flatMap((d) => [d.name, ...(d.after ?? []).map((a) => a.name)])]);
  }

  orderedDefs(): ObjectDef[] {
    const seen = new Set<ObjectDef>();
    const out: ObjectDef[] = [];
    for (const k of this.kinds) {
      const queue: ObjectDef[] = [k.root, k.list];
      for (let i = 0; i < queue.length; i++) {
        const d = queue[i]!;
        if (seen.has(d)) continue;
        seen.add(d);
        out.push(d);
        const visit = (t: TypeRef): void => {
          if (t.kind === 'obj') {
            if (!seen.has(t.def)) queue.push(t.def);
          } else if (t.kind === 'array' || t.kind === 'map' || t.kind === 'null') visit(t.of);
          else if (t.kind === 'union') t.of.forEach(visit);
        };
        for (const p of d.props) visit(p.type);
        if (d.index) visit(d.index);
      }
    }
    return out;
  }

  private addKind(kindVersion: KindVersion): KindTypes {
    const { resource, version } = kindVersion;
    const kind = resource.names.kind;
    const ident = kindIdentifier(kindVersion);
    this.realKinds.set(ident, kind);
    const apiVersion = kindApiVersion(kindVersion);
    const schema = version.schema;
    const required = new Set(schema.required ?? []);
    const props: PropDef[] = [
      { name: 'apiVersion', type: { kind: 'lit', values: [apiVersion] }, required: false },
      { name: 'kind', type: { kind: 'lit', values: [kind] }, required: false },
      { name: 'metadata', type: { kind: 'meta' }, required: false },
    ];
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      if (name === 'apiVersion' || name === 'kind' || name === 'metadata') continue;
      props.push({ name, type: this.resolve(sub, [ident, name], name, `${ident}.${name}`), required: required.has(name), schema: sub });
    }
    const deprecated = version.deprecated ? version.deprecationWarning ?? true : undefined;
    const root = this.makeDef(`root:${kind}`, [ident], props, schema, undefined, []);
    root.fixedName = ident;
    if (deprecated !== undefined) root.deprecated = deprecated;
    if (schema['x-kubernetes-preserve-unknown-fields']) root.index = UNKNOWN;
    const listProps: PropDef[] = [
      { name: 'apiVersion', type: { kind: 'lit', values: [apiVersion] }, required: false },
      { name: 'kind', type: { kind: 'lit', values: [resource.names.listKind] }, required: false },
      { name: 'metadata', type: { kind: 'listmeta' }, required: false },
      { name: 'items', type: { kind: 'array', of: { kind: 'obj', def: root } }, required: true },
    ];
    const list = this.makeDef(`list:${kind}`, [`${ident}List`], listProps, undefined, undefined, []);
    list.fixedName = `${ident}List`;
    list.descriptions.clear();
    list.descriptions.add(`${resource.names.listKind} is a list of ${kind} objects.`);
    if (deprecated !== undefined) list.deprecated = deprecated;
    return { kindVersion, root, list };
  }

  /** `scope` is set for a kind's top-level properties: it keeps their types from being shared across kinds. */
  resolve(schema: JSONSchemaProps, path: string[], where: string, scope?: string): TypeRef {
    const t = this.resolveBase(schema, path, where, scope);
    // An enum may list null itself: `"a" | null`, not `"a" | null | null`.
    if (schema.nullable && t.kind !== 'unknown' && !(t.kind === 'lit' && t.values.includes(null))) return { kind: 'null', of: t };
    return t;
  }

  /** `where` is the JSON path from the kind's root (`spec.containers[]`), for reports. */
  private resolveBase(s: JSONSchemaProps, path: string[], where: string, scope: string | undefined): TypeRef {
    if (s['x-kubernetes-embedded-resource']) return this.objectType(s, path, where, scope, true);
    if (this.exact) {
      // The marked types write only string enums as literal unions (the rest as markers).
      if (s.type === 'string' && s.enum?.length && !s['x-kubernetes-int-or-string'] && s.enum.every((v) => typeof v === 'string')) return { kind: 'lit', values: dedupe(s.enum) };
    } else if (s.enum && s.enum.length > 0 && s.type !== 'object' && s.type !== 'array') {
      const values = s.enum.filter((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
      // A number past 2^53 was rounded when the YAML was read: no literal would be exact, so the type widens.
      const exact = values.every((v) => typeof v !== 'number' || Number.isSafeInteger(v) || !Number.isInteger(v));
      if (values.length === s.enum.length && exact) return { kind: 'lit', values: dedupe(values) };
      if (!exact && !s['x-kubernetes-int-or-string']) return { kind: 'prim', name: 'number' };
    }
    // After the enum: an int-or-string enum is its values (`1 | "auto"`), not any IntOrString.
    if (s['x-kubernetes-int-or-string']) return { kind: 'ios' };
    switch (s.type) {
      case 'string':
        return { kind: 'prim', name: 'string' };
      case 'integer':
      case 'number':
        return { kind: 'prim', name: 'number' };
      case 'boolean':
        return { kind: 'prim', name: 'boolean' };
      case 'array': {
        const of = s.items ? this.resolve(s.items, singularPath(path), `${where}[]`) : UNKNOWN;
        const keys = requiredListMapKeys(s);
        return keys ? { kind: 'array', of, keys } : { kind: 'array', of };
      }
      case 'object':
        return this.coreType(s, path, where) ?? this.objectType(s, path, where, scope, false);
    }
    // No type: a union from oneOf/anyOf branches that carry types, else object-ish or unknown.
    const branches = this.exact ? [] : [...(s.oneOf ?? []), ...(s.anyOf ?? [])];
    if (branches.some((b) => b.type !== undefined || b['x-kubernetes-int-or-string'])) {
      const { oneOf: _o, anyOf: _a, ...base } = s;
      const members: TypeRef[] = [];
      const keys = new Set<string>();
      for (const b of branches) {
        const t = this.resolve({ ...base, ...b, description: undefined } as JSONSchemaProps, path, where, scope);
        if (t.kind === 'unknown') return UNKNOWN;
        const key = refKey(t);
        if (!keys.has(key)) {
          keys.add(key);
          members.push(t);
        }
      }
      return members.length === 1 ? members[0]! : { kind: 'union', of: members };
    }
    if (s.properties || (s.additionalProperties !== undefined && s.additionalProperties !== false)) {
      return this.coreType(s, path, where) ?? this.objectType(s, path, where, scope, false);
    }
    return UNKNOWN;
  }

  private coreType(s: JSONSchemaProps, path: string[], where: string): TypeRef | undefined {
    const found = this.matching?.matchOrMiss(s, fieldName(where));
    if (found?.miss) this.coreTypeMisses.push({ ...found.miss, kind: this.realKinds.get(path[0]!) ?? path[0]!, where });
    const m = found?.match;
    // Typed by the runtime's model, a TypeScript-first CRD would prune what the model lacks.
    if (!m || (this.exact && m.drift.length > 0)) return undefined;
    this.coreTypeUses.push({ ...m, kind: this.realKinds.get(path[0]!) ?? path[0]!, where });
    if (m.extras.length > 0) return this.objectType(s, path, where, undefined, false, m);
    return { kind: 'core', name: m.type.name };
  }

  /** With `base`, the interface extends that core type and declares only the schema's other properties. */
  private objectType(s: JSONSchemaProps, path: string[], where: string, scope: string | undefined, embedded: boolean, base?: CoreMatch): TypeRef {
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    const ap = s.additionalProperties;
    const hasProps = s.properties !== undefined && Object.keys(s.properties).length > 0;
    if (!hasProps && (!embedded || this.exact)) {
      if (typeof ap === 'object') return { kind: 'map', of: this.resolve(ap, path, `${where}{}`) };
      return { kind: 'map', of: UNKNOWN };
    }
    const required = new Set(s.required ?? []);
    const props: PropDef[] = [];
    if (embedded && !this.exact) {
      for (const name of ['apiVersion', 'kind'] as const) {
        if (!s.properties?.[name]) props.push({ name, type: { kind: 'prim', name: 'string' }, required: required.has(name) });
      }
      if (!s.properties?.['metadata']) props.push({ name: 'metadata', type: { kind: 'meta' }, required: required.has('metadata') });
    }
    for (const [name, sub] of Object.entries(s.properties ?? {})) {
      if (base && !base.extras.includes(name)) continue;
      // Marked types spell `metadata` out, so that they read back to the same CRD.
      const meta = !this.exact && name === 'metadata' && (embedded || (this.matching !== undefined && isEmbeddedObjectMeta(sub)));
      const type = meta ? ({ kind: 'meta' } as TypeRef) : this.resolve(sub, [...path, name], `${where}.${name}`);
      props.push({ name, type, required: required.has(name), schema: sub });
    }
    let index: TypeRef | undefined;
    if (preserve || ap === true || typeof ap === 'object') index = UNKNOWN;
    const notes = describeConstraint(s);
    const key = this.exact
      ? `X|${scope ?? ''}|${embedded ? 'E' : ''}|${this.matching ? 'C' : ''}|${JSON.stringify({ ...s, description: undefined })}`
      : `${scope ?? ''}|${embedded ? 'E' : ''}|${index ? 'I' : ''}|${base ? `B:${base.type.name}` : ''}|${JSON.stringify(notes)}|${props
          .map((p) => `${JSON.stringify(p.name)}${p.required ? '!' : '?'}${docKey(p.schema)}:${refKey(p.type)}`)
          .join(',')}`;
    const def = this.makeDef(key, path, props, s, index, notes);
    if (base) def.base = base.type.name;
    return { kind: 'obj', def };
  }

  private makeDef(key: string, path: string[], props: PropDef[], s: JSONSchemaProps | undefined, index: TypeRef | undefined, notes: string[]): ObjectDef {
    let def = this.defs.get(key);
    if (!def) {
      def = { id: this.nextId++, key, name: '', paths: [], props, descriptions: new Set(), notes };
      if (index) def.index = index;
      if (s) def.schema = s;
      this.defs.set(key, def);
    }
    def.paths.push(path);
    def.descriptions.add(s?.description?.trim() ?? '');
    return def;
  }

  private assignNames(): void {
    // The other modules of a group/version export `<Kind>Interface`, `<Kind>Lister`, … beside these types (one
    // index.ts re-exports them all): a nested type never takes such a name, and a kind spelled like one is refused.
    const derived = new Map<string, string>();
    for (const k of this.kinds) for (const suffix of KIND_DERIVED_SUFFIXES) derived.set(k.root.fixedName! + suffix, k.root.fixedName!);
    for (const k of this.kinds) {
      const owner = derived.get(k.root.fixedName!);
      if (owner !== undefined) {
        throw new InputError(
          k.kindVersion.resource.source,
          `kind ${k.root.fixedName} is also the name of the generated ${k.root.fixedName!.slice(owner.length)} type of kind ${owner} in ${this.gv.group}/${this.gv.version}; rename one of the two kinds`,
        );
      }
    }
    for (const k of this.kinds) {
      k.root.name = k.root.fixedName!;
      const others = new Set([...derived.keys(), ...this.kinds.map((x) => x.root.fixedName!), ...this.kinds.filter((x) => x !== k && x.list.name).map((x) => x.list.name)]);
      k.list.name = uniqueName(k.list.fixedName!, others);
    }
    this.namer = new TypeNamer({
      kinds: this.kinds.map((k) => ({ kind: k.root.name, root: k.root, list: k.list })),
      ordered: this.orderedDefs(),
      reserved: derived.keys(),
      imported: new Set(['ObjectMeta', 'ListMeta', 'IntOrString', ...this.coreTypeUses.map((u) => u.type.name)]),
      enums: this.enums,
    });
  }
}

function singularPath(path: readonly string[]): string[] {
  return path.length < 2 ? [...path] : [...path.slice(0, -1), singular(path[path.length - 1]!)];
}

/**
 * The list-map keys of an associative list (`x-kubernetes-list-type: map`) an applied entry must carry: each of
 * `x-kubernetes-list-map-keys` except those the item schema gives a default. Undefined for any other array, and
 * when every key has a default.
 */
export function requiredListMapKeys(s: JSONSchemaProps): string[] | undefined {
  if (s['x-kubernetes-list-type'] !== 'map' || !s['x-kubernetes-list-map-keys']?.length) return undefined;
  const props = s.items?.properties ?? {};
  const keys = s['x-kubernetes-list-map-keys'].filter((k) => !(Object.hasOwn(props, k) && props[k]!.default !== undefined));
  return keys.length > 0 ? keys : undefined;
}

function docKey(s: JSONSchemaProps | undefined): string {
  if (!s) return '';
  const parts: unknown[] = [s.description ?? ''];
  if (s.default !== undefined) parts.push(s.default);
  return JSON.stringify(parts);
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const k = JSON.stringify(v);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
