/**
 * The controller-gen markers `--emit-markers` writes (see `emit-marked-types.ts`): a schema's keywords as markers,
 * a kind's facts as kind markers, and JSDoc blocks that carry them.
 */
import type { JSONSchemaProps, KindVersion } from '../../model/index.js';
import { literal } from '../emit-util.js';

/**
 * JSON for a marker value, safe inside a JSDoc comment: the star-slash that would end the comment gets its slash as
 * a unicode escape (backslash u002f), which JSON and Go string literals both read back as a slash; a backslash-slash
 * escape would not survive Go's regexp syntax in a Pattern.
 */
export function j(v: unknown): string {
  return literal(v).replace(/\*\//g, '*\\u002f');
}

export function docLines(description: string | undefined, markers: string[], indent: string): string {
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

/** Markers for the keywords of `s` itself (not its children). `skip` lists keywords the TS type already says. */
export function schemaMarkers(s: JSONSchemaProps, skip: ReadonlySet<string> = new Set()): string[] {
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
  // controller-gen has no markers for these: kubegen's own keep them through the round trip.
  if (s.oneOf !== undefined) m.push(`+kubegen:validation:OneOf=${j(s.oneOf)}`);
  // (int-or-string's own anyOf comes back with the IntOrString type)
  if (s.anyOf !== undefined && !(s['x-kubernetes-int-or-string'] && isIntOrStringAnyOf(s.anyOf))) m.push(`+kubegen:validation:AnyOf=${j(s.anyOf)}`);
  if (s.allOf !== undefined) m.push(`+kubegen:validation:AllOf=${j(s.allOf)}`);
  if (s.not !== undefined) m.push(`+kubegen:validation:Not=${j(s.not)}`);
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

/** The kind markers of a root type: resource, subresources, printer columns, storage, labels and annotations. */
export function kindMarkers(kindVersion: KindVersion): string[] {
  const { resource: r, version: v } = kindVersion;
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


/** Whether `anyOf` is the one an int-or-string carries: `[{type: integer}, {type: string}]`. */
function isIntOrStringAnyOf(anyOf: readonly JSONSchemaProps[]): boolean {
  return JSON.stringify(anyOf) === JSON.stringify([{ type: 'integer' }, { type: 'string' }]);
}
