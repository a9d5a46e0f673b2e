/**
 * Go API types → named schemas (`DefinitionModel`s), by the rules the Kubernetes OpenAPI generator (kube-openapi's
 * `openapi-gen`) and controller-gen share:
 * - a struct is a definition; a field whose type is a struct refers to it (`$ref`); pointers are their element;
 *   a named type that is not a struct is written out where it is used (`type ResourceName string` → a string),
 *   except a `+enum` string type, which is a definition of its own (the constants of that type are its values);
 * - a field's JSON name is its `json` tag's; `json:"-"` and `+k8s:openapi-gen=false` fields are left out, an
 *   embedded field tagged `,inline` has its fields taken in its place;
 * - a field is optional when marked `+optional`, required when marked `+required`, else optional exactly when its tag
 *   says `omitempty`;
 * - markers on a field apply to its schema, markers on a type to its definition (`+listType`, `+listMapKey`,
 *   `+mapType`, `+structType`, `+default`, `+nullable`, `+kubebuilder:validation:*`, see `applySchemaMarkers`);
 * - descriptions come from `types_swagger_doc_generated.go` (the generators' own rendering of the doc comments);
 * - integers and floats: controller-gen's formats (`int32`, `int64`; `int` and floats without one), `[]byte` a
 *   base64 string;
 * - a time as a list item or map value is nullable (its zero value is JSON null);
 * - apimachinery's types with a JSON form of their own (`Time`, `MicroTime`, `Duration`, `FieldsV1`, `IntOrString`,
 *   `Quantity`, `RawExtension`) have the schemas controller-gen gives them.
 * A type the rules cannot describe (a channel, a function, an interface other than the empty one) is an error naming
 * its file, line and column.
 */
import { InputError } from '../../model/index.js';
import type { ApiPackage, DefinitionModel, JSONSchemaProps } from '../../model/index.js';
import { runtimeTypeSchema } from '../../model/known-types.js';
import type { GoField, GoFile, GoType, GoTypeDecl } from '../go/go-decls.js';
import { parseMarker } from '../typescript/markers.js';
import type { Marker } from '../typescript/markers.js';
import { applySchemaMarkers } from '../typescript/schema-markers.js';
import { commentMarkers, jsonTag } from './go-package.js';
import type { GoPackage, GoWorkspace } from './go-package.js';

type Loc = { file: string; line: number; column: number };

const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';

/** Definitions whose JSON is not their Go struct's: id → the schema, and the runtime name when the runtime owns it. */
const SPECIAL: Readonly<Record<string, { schema: () => JSONSchemaProps; runtimeName?: string }>> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { schema: () => runtimeTypeSchema('Time')! },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { schema: () => runtimeTypeSchema('MicroTime')! },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Duration': { schema: () => runtimeTypeSchema('Duration')! },
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': { schema: () => ({ type: 'object' }) },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { schema: () => runtimeTypeSchema('IntOrString')!, runtimeName: 'IntOrString' },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { schema: () => runtimeTypeSchema('Quantity')!, runtimeName: 'Quantity' },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { schema: () => runtimeTypeSchema('RawExtension')!, runtimeName: 'RawExtension' },
};

const SCALARS: Readonly<Record<string, () => JSONSchemaProps>> = {
  string: () => ({ type: 'string' }),
  bool: () => ({ type: 'boolean' }),
  int32: () => ({ type: 'integer', format: 'int32' }),
  int64: () => ({ type: 'integer', format: 'int64' }),
  int: () => ({ type: 'integer' }),
  int16: () => ({ type: 'integer' }),
  int8: () => ({ type: 'integer' }),
  uint: () => ({ type: 'integer' }),
  uint16: () => ({ type: 'integer' }),
  uint32: () => ({ type: 'integer' }),
  uint64: () => ({ type: 'integer' }),
  byte: () => ({ type: 'integer' }),
  float64: () => ({ type: 'number' }),
  float32: () => ({ type: 'number' }),
};

/** The OpenAPI model package of a Go package: `+k8s:openapi-model-package=`, else its import path reversed. */
export function modelPackage(pkg: GoPackage): string {
  const declared = pkg.markers.get('k8s:openapi-model-package')?.[0];
  if (declared) return declared;
  const [host = '', ...rest] = pkg.path.split('/');
  return [...host.split('.').reverse(), ...rest].join('.');
}

/** Where a definition of a Go package goes; undefined for packages the runtime provides types of (special ids only). */
export type PackageOf = (pkg: GoPackage) => ApiPackage | undefined;

export class DefinitionBuilder {
  readonly definitions = new Map<string, DefinitionModel>();
  private readonly building = new Set<string>();

  constructor(
    private readonly ws: GoWorkspace,
    private readonly packageOf: PackageOf,
    /** Shown in errors instead of absolute paths (the Go root's part cut). */
    private readonly display: (file: string) => string = (f) => f,
  ) {}

  /** The id of type `name` of package `importPath` as a definition, building it (and what it refers to) on first use. */
  define(importPath: string, name: string): string {
    const pkg = this.ws.load(importPath);
    const entry = pkg.types.get(name);
    const id = `${modelPackage(pkg)}.${name}`;
    if (this.definitions.has(id) || this.building.has(id)) return id;
    const special = SPECIAL[id];
    const target = this.packageOf(pkg);
    if (!entry && !special) throw new Error(`type ${name} not found in Go package ${importPath}`);
    const source = entry ? this.loc(entry.file, entry.decl) : { file: importPath, line: 0, column: 0 };
    if (special) {
      const def: DefinitionModel = { id, name, pkg: target ?? runtimePackage(pkg), schema: special.schema(), source };
      if (special.runtimeName) def.runtimeName = special.runtimeName;
      this.definitions.set(id, def);
      return id;
    }
    if (!target) throw new InputError(source, `type ${name} of ${importPath} is used by the API, but its package is not one the built-in API generates`);
    this.building.add(id);
    const { decl, file } = entry!;
    const schema = this.declSchema(pkg, file, decl);
    const doc = pkg.docs.get(name)?.get('') ?? docText(decl.doc);
    if (doc) schema.description = doc;
    const def: DefinitionModel = { id, name, pkg: target, schema, source };
    const embedded = decl.type.kind === 'struct' && schema['x-kubernetes-map-type'] === undefined ? this.embeddedMapType(pkg, file, decl.type.fields) : undefined;
    if (embedded) def.embeddedMapType = embedded;
    this.definitions.set(id, def);
    this.building.delete(id);
    return id;
  }

  /**
   * `type MatchCondition = v1.MatchCondition` (a version re-using another's type): a definition of its own that refers
   * to the other (`$ref`), so the package exports the name; fields of that type refer to the other directly.
   */
  defineAlias(importPath: string, name: string): string {
    const pkg = this.ws.load(importPath);
    const { decl, file } = pkg.types.get(name)!;
    const id = `${modelPackage(pkg)}.${name}`;
    if (this.definitions.has(id)) return id;
    const target = this.typeSchema(decl.type, pkg, file, this.loc(file, decl));
    if (target.$ref === undefined) throw new InputError(this.loc(file, decl), `type alias ${name} does not name a type of another package`);
    this.definitions.set(id, { id, name, pkg: this.packageOf(pkg)!, schema: { $ref: target.$ref }, source: this.loc(file, decl) });
    return id;
  }

  /** The schema of a declaration's type, with its type-level markers applied. */
  private declSchema(pkg: GoPackage, file: GoFile, decl: GoTypeDecl): JSONSchemaProps {
    const markers = this.markers(decl.comments, this.loc(file, decl));
    let schema: JSONSchemaProps;
    const defined = this.definedStruct(pkg, file, decl);
    if (decl.type.kind === 'struct') schema = this.structSchema(pkg, file, decl.name, decl.type.fields);
    else if (defined) schema = this.structSchema(defined.pkg, defined.file, defined.name, defined.fields);
    else if (commentMarkers(decl.comments).has('enum')) schema = this.enumSchema(pkg, file, decl);
    else schema = this.typeSchema(decl.type, pkg, file, this.loc(file, decl));
    return applySchemaMarkers(schema, markers);
  }

  /** `type MatchCondition v1.MatchCondition`: a new struct type with another's fields (not an alias). */
  private definedStruct(pkg: GoPackage, file: GoFile, decl: GoTypeDecl): ReturnType<DefinitionBuilder['resolveStruct']> | undefined {
    if (decl.alias || decl.type.kind !== 'name') return undefined;
    try {
      return this.resolveStruct(decl.type, pkg, file, this.loc(file, decl));
    } catch {
      return undefined;
    }
  }

  /** A `+enum` type: its underlying scalar and the values of the package's constants of that type, sorted. */
  private enumSchema(pkg: GoPackage, file: GoFile, decl: GoTypeDecl): JSONSchemaProps {
    const base = this.typeSchema(decl.type, pkg, file, this.loc(file, decl));
    const byName = new Map(pkg.consts.map((e) => [e.c.name, e.c]));
    const values = new Set<string>();
    for (const { c } of pkg.consts) {
      if (c.type?.kind !== 'name' || c.type.pkg !== undefined || c.type.name !== decl.name) continue;
      const value = c.value ?? (c.valueName !== undefined ? byName.get(c.valueName)?.value : undefined);
      if (value !== undefined) values.add(value);
    }
    if (values.size > 0) base.enum = [...values].sort();
    return base;
  }

  private structSchema(pkg: GoPackage, file: GoFile, typeName: string, fields: readonly GoField[]): JSONSchemaProps {
    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    this.addMembers(pkg, file, typeName, fields, properties, required);
    const schema: JSONSchemaProps = { type: 'object' };
    if (Object.keys(properties).length > 0) schema.properties = properties;
    if (required.length > 0) schema.required = required;
    return schema;
  }

  /** Adds a struct's fields to `properties` (embedded `,inline` structs' fields in their place). */
  private addMembers(pkg: GoPackage, file: GoFile, typeName: string, fields: readonly GoField[], properties: Record<string, JSONSchemaProps>, required: string[]): void {
    const docs = pkg.docs.get(typeName);
    for (const f of fields) {
      const loc = { file: this.display(file.file), line: f.line, column: f.column };
      const markers = commentMarkers(f.comments);
      if (markers.get('k8s:openapi-gen')?.includes('false')) continue;
      const tag = jsonTag(f.tag);
      if (tag?.skip) continue;
      if (tag?.inline) {
        const inner = this.resolveStruct(f.type, pkg, file, loc);
        this.addMembers(inner.pkg, inner.file, inner.name, inner.fields, properties, required);
        continue;
      }
      const name = tag ? tag.name : f.name ?? goTypeName(f.type);
      if (name === '') continue;
      const optional = markers.has('optional') ? true : markers.has('required') ? false : tag?.omitempty === true;
      if (!optional) required.push(name);
      const schema = this.typeSchema(f.type, pkg, file, loc);
      const doc = docs?.get(name);
      if (doc) schema.description = doc;
      properties[name] = applySchemaMarkers(schema, this.markers(f.comments, loc));
    }
  }

  /** The `+structType` of the first inline embedded struct that has one (see `DefinitionModel.embeddedMapType`). */
  private embeddedMapType(pkg: GoPackage, file: GoFile, fields: readonly GoField[]): 'atomic' | 'granular' | undefined {
    for (const f of fields) {
      if (!jsonTag(f.tag)?.inline) continue;
      const loc = { file: this.display(file.file), line: f.line, column: f.column };
      const inner = this.resolveStruct(f.type, pkg, file, loc);
      const decl = inner.pkg.types.get(inner.name)!.decl;
      const structType = this.markers(decl.comments, loc).find((m) => m.name === 'structType')?.value;
      if (structType === 'atomic' || structType === 'granular') return structType;
      const deeper = this.embeddedMapType(inner.pkg, inner.file, inner.fields);
      if (deeper) return deeper;
    }
    return undefined;
  }

  /** The struct an inline embedded field names (through pointers and aliases), with the package and file its fields come from. */
  private resolveStruct(t: GoType, pkg: GoPackage, file: GoFile, loc: Loc): { pkg: GoPackage; file: GoFile; name: string; fields: GoField[] } {
    if (t.kind === 'pointer') return this.resolveStruct(t.elem, pkg, file, loc);
    if (t.kind !== 'name') throw new InputError(loc, 'an inline field must name a struct type');
    const target = this.named(t, pkg, file, loc);
    const entry = target.pkg.types.get(t.name);
    if (entry?.decl.alias || entry?.decl.type.kind === 'name') return this.resolveStruct(entry.decl.type, target.pkg, entry.file, loc);
    if (!entry || entry.decl.type.kind !== 'struct') throw new InputError(loc, `inline field ${t.name} is not a struct type`);
    return { pkg: target.pkg, file: entry.file, name: t.name, fields: entry.decl.type.fields };
  }

  /** The package a type name refers to: its own, or the import named by its qualifier. */
  private named(t: Extract<GoType, { kind: 'name' }>, pkg: GoPackage, file: GoFile, loc: Loc): { pkg: GoPackage; path: string } {
    if (t.pkg === undefined) return { pkg, path: pkg.path };
    const importPath = file.imports.get(t.pkg);
    if (!importPath) throw new InputError(loc, `unknown package ${t.pkg} (not imported by ${this.display(file.file)})`);
    return { pkg: this.ws.load(importPath), path: importPath };
  }

  /** The schema of a type expression where it is used. */
  private typeSchema(t: GoType, pkg: GoPackage, file: GoFile, loc: Loc): JSONSchemaProps {
    switch (t.kind) {
      case 'pointer':
        return this.typeSchema(t.elem, pkg, file, loc);
      case 'slice':
      case 'array':
        if (t.elem.kind === 'name' && t.elem.pkg === undefined && (t.elem.name === 'byte' || t.elem.name === 'uint8')) return { type: 'string', format: 'byte' };
        return { type: 'array', items: this.elementSchema(t.elem, pkg, file, loc) };
      case 'map':
        return { type: 'object', additionalProperties: this.elementSchema(t.value, pkg, file, loc) };
      case 'struct':
        return this.structSchema(pkg, file, '', t.fields);
      case 'opaque':
        if (t.what === 'interface') return { 'x-kubernetes-preserve-unknown-fields': true };
        throw new InputError(loc, `a ${t.what} type has no JSON form`);
      case 'name': {
        if (t.pkg === undefined && SCALARS[t.name] && !pkg.types.has(t.name)) return SCALARS[t.name]!();
        const target = this.named(t, pkg, file, loc);
        const id = `${modelPackage(target.pkg)}.${t.name}`;
        if (SPECIAL[id]) return { $ref: this.define(target.path, t.name) };
        const entry = target.pkg.types.get(t.name);
        if (!entry) throw new InputError(loc, `unknown type ${t.pkg ? `${t.pkg}.` : ''}${t.name}`);
        const { decl } = entry;
        // `type A = pkg.B`: the other package's type itself.
        if (decl.alias) return this.typeSchema(decl.type, target.pkg, entry.file, loc);
        if (decl.type.kind === 'struct' || commentMarkers(decl.comments).has('enum') || this.definedStruct(target.pkg, entry.file, decl)) return { $ref: this.define(target.path, t.name) };
        // Any other named type is written out in place, with its type-level markers.
        return this.declSchema(target.pkg, entry.file, decl);
      }
    }
  }

  /**
   * A list item's or map value's schema: a time (`metav1.Time`, `MicroTime`) there is nullable, since its zero value
   * marshals as JSON null (PodDisruptionBudget's `disruptedPods`). A zero time field marshals as null too, but the
   * apiserver stores none; fields stay strings.
   */
  private elementSchema(t: GoType, pkg: GoPackage, file: GoFile, loc: Loc): JSONSchemaProps {
    const s = this.typeSchema(t, pkg, file, loc);
    if (s.$ref === TIME || s.$ref === MICRO_TIME) s.nullable = true;
    return s;
  }

  /** The known markers among comment lines (unknown ones, meant for other Go tools, are skipped). */
  private markers(lines: readonly string[], loc: Loc): Marker[] {
    const out: Marker[] = [];
    for (const l of lines) {
      const m = /^\s*\+(\S.*)$/.exec(l);
      if (!m) continue;
      try {
        const marker = parseMarker(m[1]!.trim(), loc);
        // `+default=ref(AzureDataDiskCachingReadWrite)` names a Go constant: neither controller-gen nor client-go's
        // structured-merge-diff schema carries such a default.
        if (marker.name === 'default' && /^ref\(/.test(String(marker.value))) continue;
        if (APPLIED.has(marker.name)) out.push(marker);
      } catch {
        // A marker of another tool (`+k8s:prerelease-lifecycle-gen`, `+patchStrategy`, `+featureGate` …).
      }
    }
    return out;
  }

  private loc(file: GoFile, decl: GoTypeDecl): { file: string; line: number; column: number } {
    return { file: this.display(file.file), line: decl.line, column: decl.column };
  }
}

/** Markers that shape a built-in schema (others — optional/required, genclient — are read where they apply). */
const APPLIED: ReadonlySet<string> = new Set([
  'listType', 'listMapKey', 'mapType', 'structType', 'default', 'nullable', 'k8s:listType', 'k8s:listMapKey',
  'kubebuilder:default', 'kubebuilder:validation:Minimum', 'kubebuilder:validation:Maximum', 'kubebuilder:validation:MinLength',
  'kubebuilder:validation:MaxLength', 'kubebuilder:validation:Pattern', 'kubebuilder:validation:Enum', 'kubebuilder:validation:MinItems',
  'kubebuilder:validation:MaxItems', 'kubebuilder:validation:Format', 'kubebuilder:validation:Type', 'kubebuilder:validation:XValidation',
]);

/** A package whose types the runtime provides (intstr, resource, runtime): no folder of generated code. */
function runtimePackage(pkg: GoPackage): ApiPackage {
  return { group: '', version: '', dir: '', goPath: pkg.path };
}

/**
 * A doc comment as the generators render it where `types_swagger_doc_generated.go` has none (named non-struct types):
 * marker lines dropped, lines joined with spaces, blank lines kept as paragraph breaks, cut at a `---` line.
 */
function docText(lines: readonly string[]): string | undefined {
  const kept: string[] = [];
  for (const raw of lines) {
    const l = raw.trim();
    if (l === '---') break;
    if (l.startsWith('+')) continue;
    kept.push(l);
  }
  const text = kept.join('\n').trim().replace(/\n{2,}/g, '\u0000').replace(/\n/g, ' ').replace(/\u0000/g, '\n\n');
  return text || undefined;
}

function goTypeName(t: GoType): string {
  if (t.kind === 'pointer') return goTypeName(t.elem);
  return t.kind === 'name' ? t.name : '';
}
