/**
 * `types.ts` with controller-gen markers (`codegen generate --emit-markers`): the TypeScript the TypeScript front end
 * (`src/parse/typescript`) reads back into the same schema — the CRD → TS → CRD round trip, and a starting point for
 * users moving a CRD-first project to TypeScript-first.
 *
 * Unlike the plain types emitter, every object occurrence gets its own interface (no sharing), so each can carry its
 * own markers: field markers on properties, a nested object's markers on its interface, constrained array items and
 * map values as named type aliases with markers. Widths are explicit (`int32`, `int64`, `integer`, `float64`),
 * string enums are literal unions, every other keyword is a marker whose value is JSON. The leading JSDoc block
 * carries `+groupName`; root types carry the kind markers (resource, subresources, printer columns, storage).
 */
import type { GroupVersion, JSONSchemaProps, KindVersion } from '../../model/index.js';
import { HEADER, literal, pascalSegment, propertyKey, uniqueName } from '../emit-util.js';

export interface EmitMarkedTypesOptions {
  runtimeImport?: string;
}

const RUNTIME_NAMES = ['ObjectMeta', 'ListMeta', 'IntOrString', 'int32', 'int64', 'integer', 'float64'];

/**
 * JSON for a marker value, safe inside a JSDoc comment: the star-slash that would end the comment gets its slash as
 * a unicode escape (backslash u002f), which JSON and Go string literals both read back as a slash; a backslash-slash
 * escape would not survive Go's regexp syntax in a Pattern.
 */
function j(v: unknown): string {
  return literal(v).replace(/\*\//g, '*\\u002f');
}

function docLines(description: string | undefined, markers: string[], indent: string): string {
  const lines: string[] = [];
  if (description && description.trim() !== '') {
    for (const l of description.trim().replace(/\r\n?/g, '\n').split('\n')) {
      lines.push(l.replace(/\*\//g, '*\\/').replace(/^(\s*)([@+])/, '$1\\$2').trimEnd());
    }
  }
  if (markers.length) {
    if (lines.length) lines.push('');
    lines.push(...markers);
  }
  if (lines.length === 0) return '';
  return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`;
}

class Emitter {
  readonly decls: string[] = [];
  readonly used = new Set<string>();
  private readonly taken: Set<string>;

  constructor(kinds: readonly KindVersion[]) {
    this.taken = new Set([...RUNTIME_NAMES, ...kinds.flatMap((k) => [k.resource.names.kind, `${k.resource.names.kind}List`])]);
  }

  private name(path: string[]): string {
    const n = uniqueName(path[0] + path.slice(1).map(pascalSegment).join(''), this.taken);
    this.taken.add(n);
    return n;
  }

  /** Markers for the keywords of `s` itself (not its children). `skip` lists keywords the TS type already says. */
  markers(s: JSONSchemaProps, skip: ReadonlySet<string> = new Set()): string[] {
    const V = '+kubebuilder:validation:';
    const m: string[] = [];
    const num = (k: keyof JSONSchemaProps, name: string): void => {
      if (s[k] !== undefined && !skip.has(k)) m.push(`${V}${name}=${String(s[k])}`);
    };
    num('minimum', 'Minimum');
    num('maximum', 'Maximum');
    num('exclusiveMinimum', 'ExclusiveMinimum');
    num('exclusiveMaximum', 'ExclusiveMaximum');
    num('multipleOf', 'MultipleOf');
    num('minLength', 'MinLength');
    num('maxLength', 'MaxLength');
    if (s.pattern !== undefined) m.push(`${V}Pattern=${j(s.pattern)}`);
    if (s.format !== undefined && !skip.has('format')) m.push(`${V}Format=${j(s.format)}`);
    if (s.enum !== undefined && !skip.has('enum')) m.push(`${V}Enum=${s.enum.map(j).join(';')}`);
    num('minItems', 'MinItems');
    num('maxItems', 'MaxItems');
    num('uniqueItems', 'UniqueItems');
    num('minProperties', 'MinProperties');
    num('maxProperties', 'MaxProperties');
    if (s.default !== undefined) m.push(`+kubebuilder:default=${j(s.default)}`);
    if (s.example !== undefined) m.push(`+kubebuilder:example=${j(s.example)}`);
    if (s.title !== undefined) m.push(`+kubebuilder:title=${j(s.title)}`);
    if (s.nullable) m.push('+nullable');
    if (s['x-kubernetes-preserve-unknown-fields'] && !skip.has('x-kubernetes-preserve-unknown-fields')) m.push('+kubebuilder:pruning:PreserveUnknownFields');
    if (s['x-kubernetes-embedded-resource']) m.push(`${V}EmbeddedResource`);
    if (s['x-kubernetes-list-type'] !== undefined) m.push(`+listType=${s['x-kubernetes-list-type']}`);
    for (const k of s['x-kubernetes-list-map-keys'] ?? []) m.push(`+listMapKey=${j(k)}`);
    if (s['x-kubernetes-map-type'] !== undefined) m.push(`+mapType=${s['x-kubernetes-map-type']}`);
    for (const r of s['x-kubernetes-validations'] ?? []) {
      const args = [`rule=${j(r.rule)}`];
      for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) if (r[k] !== undefined) args.push(`${k}=${j(r[k])}`);
      if (r.optionalOldSelf !== undefined) args.push(`optionalOldSelf=${r.optionalOldSelf}`);
      m.push(`${V}XValidation:${args.join(',')}`);
    }
    return m;
  }

  /**
   * The TS type of `s` and the markers the place using it must carry. Objects with properties become interfaces
   * carrying their own markers (`markers` is then empty).
   */
  type(s: JSONSchemaProps, path: string[]): { text: string; markers: string[] } {
    const t = this.typeBase(s, path);
    // `T | null` says nullable by itself (the TypeScript front end reads it so); no `+nullable` marker beside it.
    if (!s.nullable || t.text === 'unknown') return t;
    return { text: `${t.text} | null`, markers: t.markers.filter((m) => m !== '+nullable') };
  }

  private typeBase(s: JSONSchemaProps, path: string[]): { text: string; markers: string[] } {
    if (s['x-kubernetes-int-or-string']) {
      this.used.add('IntOrString');
      return { text: 'IntOrString', markers: this.markers(s) };
    }
    switch (s.type) {
      case 'string': {
        if (s.enum && s.enum.length > 0 && s.enum.every((e) => typeof e === 'string')) {
          return { text: s.enum.map((e) => literal(e)).join(' | '), markers: this.markers(s, new Set(['enum'])) };
        }
        return { text: 'string', markers: this.markers(s) };
      }
      case 'integer': {
        const alias = s.format === 'int32' || s.format === 'int64' ? s.format : 'integer';
        this.used.add(alias);
        return { text: alias, markers: this.markers(s, alias === 'integer' ? new Set() : new Set(['format'])) };
      }
      case 'number':
        this.used.add('float64');
        return { text: 'float64', markers: this.markers(s) };
      case 'boolean':
        return { text: 'boolean', markers: this.markers(s) };
      case 'array': {
        const elem = s.items ? this.named(s.items, [...path, 'item'], 'Item') : 'unknown';
        return { text: /[|&]/.test(elem) ? `(${elem})[]` : `${elem}[]`, markers: this.markers(s) };
      }
      case 'object': {
        if (s.properties && Object.keys(s.properties).length > 0) return { text: this.iface(s, path, false), markers: [] };
        if (typeof s.additionalProperties === 'object') {
          return { text: `Record<string, ${this.named(s.additionalProperties, [...path, 'value'], 'Value')}>`, markers: this.markers(s) };
        }
        return { text: '{}', markers: this.markers(s) };
      }
    }
    if (s.properties && Object.keys(s.properties).length > 0) return { text: this.iface(s, path, false), markers: ['+kubebuilder:validation:Type=object'] };
    if (s['x-kubernetes-preserve-unknown-fields']) return { text: 'unknown', markers: this.markers(s, new Set(['x-kubernetes-preserve-unknown-fields'])) };
    return { text: 'unknown', markers: ['+kubebuilder:validation:Schemaless', ...this.markers(s)] };
  }

  /** A type for an array item or map value: inline when it needs no markers, else a named alias or interface. */
  private named(s: JSONSchemaProps, path: string[], _suffix: string): string {
    const t = this.type(s, path);
    if (t.markers.length === 0 && !s.description) return t.text;
    const name = this.name(path);
    this.decls.push(`${docLines(s.description, t.markers, '')}export type ${name} = ${t.text};\n`);
    return name;
  }

  /** An interface for an object schema with properties; returns its name. */
  iface(s: JSONSchemaProps, path: string[], withDescription: boolean, fixedName?: string, extraMarkers: string[] = [], head: string[] = []): string {
    const name = fixedName ?? this.name(path);
    const slot = this.decls.length;
    this.decls.push('');
    const required = new Set(s.required ?? []);
    const body: string[] = [...head];
    for (const [prop, sub] of Object.entries(s.properties ?? {})) {
      if (fixedName && (prop === 'apiVersion' || prop === 'kind' || prop === 'metadata')) continue;
      const t = this.type(sub, [...path, prop]);
      body.push(`${docLines(sub.description, t.markers, '  ')}  ${propertyKey(prop)}${required.has(prop) ? '' : '?'}: ${t.text};`);
    }
    const skip = new Set<string>(['x-kubernetes-preserve-unknown-fields']);
    const own = this.markers(s, s.type === undefined ? new Set() : new Set());
    const markers = [...extraMarkers, ...own.filter((m) => !skip.has(m))];
    if (s['x-kubernetes-preserve-unknown-fields']) markers.push('+kubebuilder:pruning:PreserveUnknownFields');
    const doc = docLines(withDescription ? s.description : undefined, [...new Set(markers)], '');
    this.decls[slot] = `${doc}export interface ${name} {\n${body.join('\n')}${body.length ? '\n' : ''}}\n`;
    return name;
  }
}

function kindMarkers(kv: KindVersion): string[] {
  const { resource: r, version: v } = kv;
  const m = ['+kubebuilder:object:root=true'];
  const res = [`path=${r.names.plural}`, `singular=${r.names.singular}`, `scope=${r.scope}`];
  if (r.names.shortNames.length) res.push(`shortName=${r.names.shortNames.join(';')}`);
  if (r.names.categories.length) res.push(`categories=${r.names.categories.join(';')}`);
  m.push(`+kubebuilder:resource:${res.join(',')}`);
  if (v.subresources.status) m.push('+kubebuilder:subresource:status');
  const sc = v.subresources.scale;
  if (sc) {
    m.push(`+kubebuilder:subresource:scale:specpath=${j(sc.specReplicasPath)},statuspath=${j(sc.statusReplicasPath)}${sc.labelSelectorPath !== undefined ? `,selectorpath=${j(sc.labelSelectorPath)}` : ''}`);
  }
  for (const c of v.printerColumns) {
    const a = [`name=${j(c.name)}`, `type=${j(c.type)}`, `JSONPath=${j(c.jsonPath)}`];
    if (c.description !== undefined) a.push(`description=${j(c.description)}`);
    if (c.format !== undefined) a.push(`format=${j(c.format)}`);
    if (c.priority !== undefined) a.push(`priority=${c.priority}`);
    m.push(`+kubebuilder:printcolumn:${a.join(',')}`);
  }
  if (v.storage) m.push('+kubebuilder:storageversion');
  // The CRD's own labels and annotations (e.g. api-approved.kubernetes.io, which a *.k8s.io group needs).
  for (const [key, map] of [['labels', r.labels], ['annotations', r.annotations]] as const) {
    const entries = Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length) m.push(`+kubebuilder:metadata:${key}=${entries.map(([k, val]) => j(`${k}=${val}`)).join(';')}`);
  }
  if (v.deprecated) m.push(v.deprecationWarning !== undefined ? `+kubebuilder:deprecatedversion:warning=${j(v.deprecationWarning)}` : '+kubebuilder:deprecatedversion');
  for (const f of v.selectableFields) m.push(`+kubebuilder:selectablefield:JSONPath=${j(f)}`);
  return m;
}

/** The content of `<group>/<version>/types.ts` with markers. */
export function emitMarkedTypes(gv: GroupVersion, opts: EmitMarkedTypesOptions = {}): string {
  const e = new Emitter(gv.kinds);
  e.used.add('ObjectMeta');
  e.used.add('ListMeta');
  for (const kv of gv.kinds) {
    const kind = kv.resource.names.kind;
    const head = ['  apiVersion?: string;', '  kind?: string;', '  metadata?: ObjectMeta;'];
    e.iface({ type: 'object', ...kv.version.schema }, [kind], true, kind, kindMarkers(kv), head);
    e.decls.push(
      `/** +kubebuilder:object:root=true */\nexport interface ${kind}List {\n  apiVersion?: string;\n  kind?: string;\n  metadata?: ListMeta;\n  items: ${kind}[];\n}\n`,
    );
  }
  const imports = RUNTIME_NAMES.filter((n) => e.used.has(n));
  return [
    HEADER,
    `/**\n * Types for ${gv.group}/${gv.version} with controller-gen markers (codegen --emit-markers).\n *\n * +groupName=${gv.group}\n */`,
    `import type { ${imports.join(', ')} } from ${literal(opts.runtimeImport ?? '@kubegen/runtime')};`,
    '',
    e.decls.join('\n'),
  ].join('\n');
}
