/**
 * `types.ts` with controller-gen markers (`codegen generate --emit-markers`): the TypeScript the TypeScript front end
 * (`src/parse/typescript`) reads back into the same schema — the CRD → TS → CRD round trip, and a starting point for
 * users moving a CRD-first project to TypeScript-first.
 *
 * It is written from an `exact` `TypeGraph` (see `TypeGraphOptions.exact`), so its names are the graph's — the ones
 * `deepcopy.ts` and `applyconfigurations.ts` use — and follow the same rules as the plain types (`type-names.ts`):
 * sub-schemas identical in every keyword share one interface, which carries their markers; sub-schemas the runtime's
 * core types describe exactly are those types (`Container`, `PodTemplateSpec`, … or `interface X extends Container`),
 * with the field's own markers. Read back, such a sub-schema is the runtime's schema of the type (the Kubernetes
 * version of the runtime's models), everything else is the CRD's schema.
 *
 * Field markers sit on properties, a nested object's on its interface, and array items and map values that need
 * markers or a description of their own are a named type alias (named after the field: `HTTPRouteSpecHostname`).
 * A description sits on the interface when every use of it has that description, else on each field. Widths are
 * explicit (`int32`, `int64`, `integer`, `float64`), string enums are literal unions (named when several fields use
 * one), every other keyword is a marker whose value is JSON. The leading JSDoc block carries `+groupName`; root types
 * carry the kind markers (resource, subresources, printer columns, storage).
 */
import type { GroupVersion, JSONSchemaProps } from '../../model/index.js';
import { HEADER, literal, propertyKey, RuntimeNames } from '../emit-util.js';
import { runtimeTypeImports } from './runtime-type-imports.js';
import { docLines, kindMarkers, schemaMarkers } from './marked-markers.js';
import { TypeGraph } from './type-graph.js';
import { coreTypeDescription } from './core-types.js';
import type { CoreTypeMatcher } from './core-types.js';
import type { EnumDef, ObjectDef, TypeRef } from './type-ref.js';
import { declaredNames } from './emit-types.js';

export interface EmitMarkedTypesOptions {
  runtimeImport?: string;
  /** An exact graph already built for `gv` (shared with the deepcopy and apply emitters); built when absent. */
  graph?: TypeGraph;
  /** Type sub-schemas as the runtime's core types (default true); for a graph built here. */
  coreTypes?: boolean;
  matcher?: CoreTypeMatcher;
}

/** The runtime names marked types may import, in import order. */
const RUNTIME_NAMES = ['ObjectMeta', 'ListMeta', 'IntOrString', 'int32', 'int64', 'integer', 'float64'];

/** Where a type is used: `parent.field`, through `arrays` array levels, in a map or not. */
interface Site {
  parent: ObjectDef;
  field: string;
  arrays: number;
  map: boolean;
}

/** A type's text, the markers its field must carry, and whether the field's description is already the type's. */
interface Typed {
  text: string;
  markers: string[];
  inheritsDoc?: boolean;
}

class MarkedEmitter {
  readonly rt: RuntimeNames;
  private readonly avoid: Set<string>;
  /** Declarations to write after the interface being written: element aliases. */
  private pending: string[] = [];

  constructor(
    private readonly graph: TypeGraph,
    private readonly coreNames: readonly string[],
  ) {
    const defs = graph.orderedDefs();
    this.rt = new RuntimeNames(declaredNames(defs));
    this.avoid = new Set([...RUNTIME_NAMES, ...coreNames]);
  }

  /** `interface`s of every named type, each followed by the aliases and literal unions declared after it. */
  body(): string[] {
    const roots = new Map(this.graph.kinds.map((k) => [k.root, k]));
    const lists = new Map(this.graph.kinds.map((k) => [k.list, k]));
    const out: string[] = [];
    for (const def of this.graph.orderedDefs()) {
      const list = lists.get(def);
      if (list) {
        const kind = list.root.name;
        out.push(`/** +kubebuilder:object:root=true */\nexport interface ${def.name} {\n  apiVersion?: string;\n  kind?: string;\n  metadata?: ${this.rt.use('ListMeta')};\n  items: ${kind}[];\n}\n`);
        continue;
      }
      const root = roots.get(def);
      out.push(this.iface(def, root ? kindMarkers(root.kindVersion) : undefined));
      const after = [...this.pending, ...(def.after ?? []).map((d) => this.namedType(d))];
      if (after.length > 0) out.push(after.join(''));
      this.pending = [];
    }
    return out;
  }

  private iface(def: ObjectDef, kind: string[] | undefined): string {
    const s = def.schema!;
    const body: string[] = [];
    const required = new Set(s.required ?? []);
    // A root that requires its metadata (or type meta) says so in the CRD: the marked type declares it required.
    const opt = (name: string): string => (required.has(name) ? '' : '?');
    if (kind) body.push(`  apiVersion${opt('apiVersion')}: string;`, `  kind${opt('kind')}: string;`, `  metadata${opt('metadata')}: ${this.rt.use('ObjectMeta')};`);
    for (const p of def.props) {
      if (!p.schema || (kind && (p.name === 'apiVersion' || p.name === 'kind' || p.name === 'metadata'))) continue;
      const t = this.type(p.schema, p.type, { parent: def, field: p.name, arrays: 0, map: false });
      const description = t.inheritsDoc ? undefined : p.schema.description;
      body.push(`${docLines(description, t.markers, '  ')}  ${propertyKey(p.name)}${required.has(p.name) ? '' : '?'}: ${t.text};`);
    }
    const markers = [...(kind ?? []), ...schemaMarkers(s)];
    if (s['x-kubernetes-preserve-unknown-fields']) markers.push('+kubebuilder:pruning:PreserveUnknownFields');
    const doc = docLines(kind ? s.description : interfaceDoc(def), [...new Set(markers)], '');
    const base = def.base ? ` extends ${this.rt.use(def.base)}` : '';
    return `${doc}export interface ${def.name}${base} {\n${body.join('\n')}${body.length ? '\n' : ''}}\n`;
  }

  private namedType(decl: EnumDef): string {
    return `export type ${decl.name} = ${decl.values.map((v) => literal(v)).join(' | ')};\n`;
  }

  /** The TS type of `s`, which the graph typed `t`, and the markers the field using it must carry. */
  type(s: JSONSchemaProps, t: TypeRef, site: Site): Typed {
    const ref = t.kind === 'null' ? t.of : t;
    const typed = this.typeBase(s, ref, site);
    // `T | null` says nullable by itself (the TypeScript front end reads it so); no `+nullable` marker beside it.
    if (!s.nullable || typed.text === 'unknown') return typed;
    return { ...typed, text: `${typed.text} | null`, markers: typed.markers.filter((m) => m !== '+nullable') };
  }

  private typeBase(s: JSONSchemaProps, t: TypeRef, site: Site): Typed {
    if (s['x-kubernetes-int-or-string']) return { text: this.rt.use('IntOrString'), markers: schemaMarkers(s) };
    switch (s.type) {
      case 'string':
        if (t.kind === 'lit') return { text: t.named?.name ?? t.values.map((v) => literal(v)).join(' | '), markers: schemaMarkers(s, new Set(['enum'])) };
        return { text: 'string', markers: schemaMarkers(s) };
      case 'integer': {
        const alias = s.format === 'int32' || s.format === 'int64' ? s.format : 'integer';
        return { text: this.rt.use(alias), markers: schemaMarkers(s, alias === 'integer' ? new Set() : new Set(['format'])) };
      }
      case 'number':
        return { text: this.rt.use('float64'), markers: schemaMarkers(s) };
      case 'boolean':
        return { text: 'boolean', markers: schemaMarkers(s) };
      case 'array': {
        const of = t.kind === 'array' ? t.of : { kind: 'unknown' as const };
        const elem = s.items ? this.element(s.items, of, { ...site, arrays: site.arrays + 1 }) : 'unknown';
        return { text: /[|&]/.test(elem) ? `(${elem})[]` : `${elem}[]`, markers: schemaMarkers(s) };
      }
      case 'object':
        if (t.kind === 'obj' || t.kind === 'core') return this.named(s, t);
        if (typeof s.additionalProperties === 'object') {
          const of = t.kind === 'map' ? t.of : { kind: 'unknown' as const };
          return { text: `Record<string, ${this.element(s.additionalProperties, of, { ...site, map: true })}>`, markers: schemaMarkers(s) };
        }
        return { text: '{}', markers: schemaMarkers(s) };
    }
    if (t.kind === 'obj' || t.kind === 'core') {
      const typed = this.named(s, t);
      return { ...typed, markers: ['+kubebuilder:validation:Type=object', ...typed.markers] };
    }
    if (s['x-kubernetes-preserve-unknown-fields']) return { text: 'unknown', markers: schemaMarkers(s, new Set(['x-kubernetes-preserve-unknown-fields'])) };
    return { text: 'unknown', markers: ['+kubebuilder:validation:Schemaless', ...schemaMarkers(s)] };
  }

  /** An interface (its markers are its own) or a core type (the field carries the sub-schema's markers). */
  private named(s: JSONSchemaProps, t: Extract<TypeRef, { kind: 'obj' | 'core' }>): Typed {
    if (t.kind === 'core') {
      const doc = coreTypeDescription(t.name);
      return { text: this.rt.use(t.name), markers: schemaMarkers(s), inheritsDoc: doc !== undefined && doc === s.description?.trim() };
    }
    const doc = interfaceDoc(t.def);
    return { text: t.def.name, markers: [], inheritsDoc: doc !== undefined && doc === s.description?.trim() };
  }

  /** The type of array items or map values: the type itself, or an alias carrying their description and markers. */
  private element(s: JSONSchemaProps, t: TypeRef, site: Site): string {
    const typed = this.type(s, t, site);
    const description = typed.inheritsDoc ? undefined : s.description;
    if (typed.markers.length === 0 && !description?.trim()) return typed.text;
    const doc = docLines(description, typed.markers, '');
    const name = this.graph.namer.claim(this.graph.namer.fieldCandidates(site.parent, site.field, site.arrays, site.map), this.avoid);
    this.pending.push(`${doc}export type ${name} = ${typed.text};\n`);
    return name;
  }
}

/** The description an interface carries: the one every use of it has, if they agree on one. */
function interfaceDoc(def: ObjectDef): string | undefined {
  const [only] = def.descriptions;
  return def.descriptions.size === 1 && only ? only : undefined;
}

/** The content of `<group>/<version>/types.ts` with markers. */
export function emitMarkedTypes(gv: GroupVersion, opts: EmitMarkedTypesOptions = {}): string {
  const graph = opts.graph ?? new TypeGraph(gv, { exact: true, coreTypes: opts.coreTypes !== false, ...(opts.matcher ? { matcher: opts.matcher } : {}) });
  const coreNames = [...new Set(graph.coreTypeUses.map((u) => u.type.name))].sort();
  const e = new MarkedEmitter(graph, coreNames);
  const body = e.body();
  const imports = e.rt.specifiers([...RUNTIME_NAMES, ...coreNames]);
  return [
    HEADER,
    `/**\n * Types for ${gv.group}/${gv.version} with controller-gen markers (codegen --emit-markers).\n *\n * +groupName=${gv.group}\n */`,
    ...runtimeTypeImports(imports, opts.runtimeImport ?? '@kubegen/runtime'),
    '',
    body.join('\n'),
  ].join('\n');
}
