/**
 * The markers the TypeScript front end understands (spelled as controller-gen spells them, see
 * go-anchors.md A1) and their extraction from JSDoc comments. A JSDoc line starting with `+name` is a marker;
 * every other line up to the first `@tag` is description. An unknown marker or a marker with a malformed value is an
 * `InputError` at the marker's file:line:column.
 */
import { InputError } from '../../model/index.js';
import type { SourceLocation } from '../../model/index.js';
import { MarkerSyntaxError, parseValue, splitArgs } from './marker-syntax.js';
import type { ValueType } from './marker-syntax.js';

interface MarkerDef {
  /** A single value after `=` (or a flag when 'flag'). */
  value?: ValueType;
  /** Named arguments after `:` and their types. */
  args?: Record<string, ValueType>;
  /** Arguments that must be present. */
  required?: string[];
}

const V = 'kubebuilder:validation:';
const CEL_ARGS: Record<string, ValueType> = {
  rule: 'string', message: 'string', messageExpression: 'string', reason: 'string', fieldPath: 'string', optionalOldSelf: 'bool',
};

/**
 * controller-gen's `ValidationMarkers`: valid on fields and types, and each also exists as
 * `+kubebuilder:validation:items:<Name>` applying to the items of an array (CT `pkg/crd/markers/validation.go`).
 */
const VALIDATION_MARKERS: Readonly<Record<string, MarkerDef>> = {
  Minimum: { value: 'number' },
  Maximum: { value: 'number' },
  ExclusiveMinimum: { value: 'bool' },
  ExclusiveMaximum: { value: 'bool' },
  MultipleOf: { value: 'number' },
  MinLength: { value: 'int' },
  MaxLength: { value: 'int' },
  Pattern: { value: 'string' },
  Format: { value: 'string' },
  Enum: { value: 'anys' },
  MinItems: { value: 'int' },
  MaxItems: { value: 'int' },
  UniqueItems: { value: 'bool' },
  MinProperties: { value: 'int' },
  MaxProperties: { value: 'int' },
  Type: { value: 'string' },
  XPreserveUnknownFields: { value: 'flag' },
  XEmbeddedResource: { value: 'flag' },
  XIntOrString: { value: 'flag' },
  XValidation: { args: CEL_ARGS, required: ['rule'] },
};

/** The prefix of the array item variants of the validation markers. */
export const ITEMS_PREFIX = `${V}items:`;

/** Type-level union markers (a `;` list of JSON field names), emitted as CEL rules on the object. */
export const UNION_MARKERS = [`${V}AtMostOneOf`, `${V}ExactlyOneOf`, `${V}AtLeastOneOf`] as const;

/** Every known marker by name. Markers that only matter to Go tools (deepcopy-gen, openapi-gen) are accepted and ignored. */
export const MARKERS: Readonly<Record<string, MarkerDef>> = {
  ...Object.fromEntries(Object.entries(VALIDATION_MARKERS).flatMap(([n, d]) => [[`${V}${n}`, d], [`${ITEMS_PREFIX}${n}`, d]])),
  ...Object.fromEntries(UNION_MARKERS.map((n) => [n, { value: 'strings' } satisfies MarkerDef])),
  [`${V}Optional`]: { value: 'flag' },
  [`${V}Required`]: { value: 'flag' },
  [`${V}EmbeddedResource`]: { value: 'flag' },
  [`${V}Schemaless`]: { value: 'flag' },
  'kubebuilder:default': { value: 'any' },
  default: { value: 'any' },
  'kubebuilder:example': { value: 'any' },
  'kubebuilder:title': { value: 'string' },
  // kubegen's own: what controller-gen has no marker for, so a CRD → TS → CRD round trip keeps it (JSON values).
  'kubegen:validation:OneOf': { value: 'any' },
  'kubegen:validation:AnyOf': { value: 'any' },
  'kubegen:validation:AllOf': { value: 'any' },
  'kubegen:validation:Not': { value: 'any' },
  'kubebuilder:pruning:PreserveUnknownFields': { value: 'flag' },
  optional: { value: 'flag' },
  required: { value: 'flag' },
  'k8s:optional': { value: 'flag' },
  'k8s:required': { value: 'flag' },
  nullable: { value: 'flag' },
  listType: { value: 'string' },
  listMapKey: { value: 'string' },
  mapType: { value: 'string' },
  structType: { value: 'string' },
  'k8s:listType': { value: 'string' },
  'k8s:listMapKey': { value: 'string' },
  'kubebuilder:object:root': { value: 'bool' },
  'kubebuilder:object:generate': { value: 'bool' },
  genclient: { value: 'flag' },
  'genclient:nonNamespaced': { value: 'flag' },
  'genclient:noStatus': { value: 'flag' },
  'k8s:deepcopy-gen': { value: 'string' },
  'k8s:deepcopy-gen:interfaces': { value: 'string' },
  'k8s:openapi-gen': { value: 'string' },
  groupName: { value: 'string' },
  groupGoName: { value: 'string' },
  versionName: { value: 'string' },
  'kubebuilder:skip': { value: 'flag' },
  'kubebuilder:resource': {
    args: { path: 'string', shortName: 'strings', categories: 'strings', singular: 'string', scope: 'string' },
  },
  'kubebuilder:subresource:status': { value: 'flag' },
  'kubebuilder:subresource:scale': { args: { specpath: 'string', statuspath: 'string', selectorpath: 'string' }, required: ['specpath', 'statuspath'] },
  'kubebuilder:printcolumn': {
    args: { name: 'string', type: 'string', JSONPath: 'string', description: 'string', format: 'string', priority: 'int' },
    required: ['name', 'type', 'JSONPath'],
  },
  'kubebuilder:storageversion': { value: 'flag' },
  'kubebuilder:deprecatedversion': { args: { warning: 'string' } },
  'kubebuilder:unservedversion': { value: 'flag' },
  'kubebuilder:skipversion': { value: 'flag' },
  'kubebuilder:selectablefield': { args: { JSONPath: 'string' }, required: ['JSONPath'] },
  'kubebuilder:metadata': { args: { annotations: 'strings', labels: 'strings' } },
  'kubegen:conversion': { args: { path: 'string' }, required: ['path'] },
  'kubebuilder:webhook': {
    args: {
      path: 'string', url: 'string', mutating: 'bool', failurePolicy: 'string', sideEffects: 'string', groups: 'strings',
      resources: 'strings', verbs: 'strings', versions: 'strings', name: 'string', admissionReviewVersions: 'strings',
      matchPolicy: 'string', timeoutSeconds: 'int', reinvocationPolicy: 'string',
    },
    required: ['mutating', 'failurePolicy', 'groups', 'resources', 'verbs', 'versions', 'name', 'admissionReviewVersions'],
  },
  'kubebuilder:rbac': {
    args: { groups: 'strings', resources: 'strings', resourceNames: 'strings', verbs: 'strings', urls: 'strings', namespace: 'string' },
    required: ['verbs'],
  },
};

const NAMES = Object.keys(MARKERS).sort((a, b) => b.length - a.length);

/** One marker occurrence. `value` for value markers, `args` for argument markers. */
export interface Marker {
  name: string;
  value?: unknown;
  args: Record<string, unknown>;
  loc: SourceLocation;
  /** The marker as written, for messages. */
  text: string;
}

export interface DocComment {
  description: string;
  markers: Marker[];
}

const MARKER_LINE = /^\+[A-Za-z][\w.-]*(?:[:=]|\s*$)/;

/** Parses one marker text (without the leading `+`) found at `loc`. */
export function parseMarker(text: string, loc: SourceLocation): Marker {
  const name = NAMES.find((n) => text === n || text.startsWith(`${n}=`) || text.startsWith(`${n}:`));
  const shown = `+${text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
  if (name === undefined) {
    const head = text.split(/[=\s]/)[0];
    throw new InputError(loc, `unknown marker +${head}`);
  }
  const def = MARKERS[name]!;
  const rest = text.slice(name.length);
  try {
    if (def.args) {
      if (rest.startsWith('=')) throw new MarkerSyntaxError(`takes named arguments (+${name}:arg=value,...)`);
      const raw = rest.startsWith(':') ? splitArgs(rest.slice(1)) : new Map<string, string | undefined>();
      const args: Record<string, unknown> = {};
      for (const [k, v] of raw) {
        const type = def.args[k];
        if (type === undefined) throw new MarkerSyntaxError(`unknown argument ${k} (known: ${Object.keys(def.args).join(', ')})`);
        try {
          args[k] = parseValue(v, type);
        } catch (e) {
          if (e instanceof MarkerSyntaxError) throw new MarkerSyntaxError(`argument ${k}: ${e.message}`);
          throw e;
        }
      }
      for (const r of def.required ?? []) if (!(r in args)) throw new MarkerSyntaxError(`missing argument ${r}`);
      return { name, args, loc, text };
    }
    if (rest.startsWith(':')) throw new MarkerSyntaxError('takes no arguments');
    const value = parseValue(rest.startsWith('=') ? rest.slice(1) : undefined, def.value ?? 'flag');
    return { name, value, args: {}, loc, text };
  } catch (e) {
    if (e instanceof MarkerSyntaxError) throw new InputError(loc, `malformed marker ${shown}: ${e.message}`);
    throw e;
  }
}

/**
 * Splits a JSDoc comment's text (`/** ... *\/`, starting at 1-based `line`, `column`) into description and markers.
 * Reverses the escapes the types emitter applies (`*\/`, a leading `\@` or `\+`).
 */
export function parseDocComment(text: string, file: string, line: number, column: number): DocComment {
  const lines = text.split('\n');
  const desc: string[] = [];
  const markers: Marker[] = [];
  let inTags = false;
  lines.forEach((full, i) => {
    let l = full.replace(/\r$/, '');
    let offset = 0;
    if (i === 0) {
      l = l.replace(/^\/\*\*/, '');
      offset = full.length - full.replace(/^\/\*\*/, '').length;
    }
    if (i === lines.length - 1) l = l.replace(/\*\/\s*$/, '');
    const prefix = /^\s*(?:\*(?!\/)\s?)?/.exec(i === 0 ? l.replace(/\S[\s\S]*$/, '') : l)![0];
    const body = l.slice(prefix.length).trimEnd();
    const trimmed = body.trimStart();
    const startCol = offset + prefix.length + (body.length - trimmed.length);
    if (MARKER_LINE.test(trimmed)) {
      const loc = { file, line: line + i, column: i === 0 ? column + startCol : startCol + 1 };
      markers.push(parseMarker(trimmed.slice(1).trim(), loc));
      return;
    }
    if (/^@[A-Za-z]/.test(trimmed)) inTags = true;
    if (!inTags) desc.push(body.replace(/^(\s*)\\([@+])/, '$1$2').replace(/\*\\\//g, '*/'));
  });
  return { description: desc.join('\n').trim(), markers };
}

/** The markers named `name` (in order). */
export function markersNamed(markers: readonly Marker[], ...names: string[]): Marker[] {
  return markers.filter((m) => names.includes(m.name));
}

/** The last marker named `name`, if any. */
export function lastMarker(markers: readonly Marker[], ...names: string[]): Marker | undefined {
  const found = markersNamed(markers, ...names);
  return found[found.length - 1];
}
