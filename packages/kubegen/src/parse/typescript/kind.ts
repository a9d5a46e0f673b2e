/**
 * A root kind (an exported interface marked `+kubebuilder:object:root=true` or `+genclient`) in one version folder
 * → its `VersionModel` and the resource-level facts its markers give (names, scope, CRD metadata).
 */
import { InputError } from '../../model/index.js';
import type { JSONSchemaProps, PrinterColumn, ResourceNames, SourceLocation, VersionModel } from '../../model/index.js';
import { checkKind, checkLabel } from '../crd/names.js';
import { lastMarker, markersNamed } from './markers.js';
import type { Marker } from './markers.js';

const API_VERSION_DOC =
  'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DOC =
  'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

export interface KindFacts {
  names: ResourceNames;
  scope: 'Namespaced' | 'Cluster';
  /** Whether the version is left out of the CRD (`+kubebuilder:skipversion`). */
  skip: boolean;
  /** Whether resource-level markers were given (names/scope from this version win over defaults elsewhere). */
  hasResourceMarker: boolean;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  storageMarker?: Marker;
  /** `+kubegen:conversion:path=…` on this version's root type: the CRD converts through that webhook path. */
  conversionMarker?: Marker;
  version: VersionModel;
}

/** Builds the version model of root kind `kind` whose interface schema is `schema`. */
export function kindFacts(kind: string, versionName: string, schema: JSONSchemaProps, markers: Marker[], loc: SourceLocation): KindFacts {
  const kindErr = checkKind('kind', kind);
  if (kindErr) throw new InputError(loc, kindErr);
  for (const f of ['apiVersion', 'kind', 'metadata']) {
    if (!schema.properties?.[f]) throw new InputError(loc, `root kind ${kind} must declare apiVersion, kind and metadata (missing ${f})`);
  }
  const props = schema.properties!;
  props['apiVersion'] = { description: API_VERSION_DOC, type: 'string' };
  props['kind'] = { description: KIND_DOC, type: 'string' };
  props['metadata'] = { type: 'object' };

  const resource = lastMarker(markers, 'kubebuilder:resource');
  const args = resource?.args ?? {};
  const plural = (args['path'] as string | undefined) ?? pluralize(kind.toLowerCase());
  const singular = (args['singular'] as string | undefined) ?? kind.toLowerCase();
  const shortNames = (args['shortName'] as string[] | undefined) ?? [];
  const categories = (args['categories'] as string[] | undefined) ?? [];
  for (const [what, v] of [['plural', plural], ['singular', singular], ...shortNames.map((s) => ['short name', s])] as [string, string][]) {
    const e = checkLabel(what, v);
    if (e) throw new InputError(resource?.loc ?? loc, e);
  }
  let scope: 'Namespaced' | 'Cluster' = 'Namespaced';
  if (lastMarker(markers, 'genclient:nonNamespaced')) scope = 'Cluster';
  if (args['scope'] !== undefined) {
    if (args['scope'] !== 'Namespaced' && args['scope'] !== 'Cluster') throw new InputError(resource!.loc, `malformed marker +${resource!.text}: scope must be Namespaced or Cluster`);
    scope = args['scope'];
  }

  const version: VersionModel = {
    name: versionName,
    served: !lastMarker(markers, 'kubebuilder:unservedversion'),
    storage: false,
    deprecated: false,
    schema,
    subresources: { status: lastMarker(markers, 'kubebuilder:subresource:status') !== undefined },
    printerColumns: markersNamed(markers, 'kubebuilder:printcolumn').map(printerColumn),
    selectableFields: markersNamed(markers, 'kubebuilder:selectablefield').map((m) => m.args['JSONPath'] as string),
    source: loc,
  };
  const scale = lastMarker(markers, 'kubebuilder:subresource:scale');
  if (scale) {
    version.subresources.scale = { specReplicasPath: scale.args['specpath'] as string, statusReplicasPath: scale.args['statuspath'] as string };
    if (scale.args['selectorpath'] !== undefined) version.subresources.scale.labelSelectorPath = scale.args['selectorpath'] as string;
  }
  const deprecated = lastMarker(markers, 'kubebuilder:deprecatedversion');
  if (deprecated) {
    version.deprecated = true;
    if (deprecated.args['warning'] !== undefined) version.deprecationWarning = deprecated.args['warning'] as string;
  }
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  for (const m of markersNamed(markers, 'kubebuilder:metadata')) {
    for (const [key, target] of [['labels', labels], ['annotations', annotations]] as const) {
      for (const kv of (m.args[key] as string[] | undefined) ?? []) {
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new InputError(m.loc, `malformed marker +${m.text}: ${key} entries must be key=value`);
        target[kv.slice(0, eq)] = kv.slice(eq + 1);
      }
    }
  }
  const facts: KindFacts = {
    names: { kind, plural, singular, listKind: `${kind}List`, shortNames, categories },
    scope,
    skip: lastMarker(markers, 'kubebuilder:skipversion') !== undefined,
    hasResourceMarker: resource !== undefined,
    labels,
    annotations,
    version,
  };
  const storage = lastMarker(markers, 'kubebuilder:storageversion');
  if (storage) facts.storageMarker = storage;
  const conversion = lastMarker(markers, 'kubegen:conversion');
  if (conversion) facts.conversionMarker = conversion;
  return facts;
}

function printerColumn(m: Marker): PrinterColumn {
  const col: PrinterColumn = { name: m.args['name'] as string, type: m.args['type'] as string, jsonPath: m.args['JSONPath'] as string };
  if (m.args['description'] !== undefined) col.description = m.args['description'] as string;
  if (m.args['format'] !== undefined) col.format = m.args['format'] as string;
  if (m.args['priority'] !== undefined) col.priority = m.args['priority'] as number;
  return col;
}

/** English plural of a lower-case kind, as controller-gen (flect) makes it for the common cases. */
export function pluralize(s: string): string {
  if (/(s|x|z|ch|sh)$/.test(s)) return `${s}es`;
  if (/[^aeiou]y$/.test(s)) return `${s.slice(0, -1)}ies`;
  return `${s}s`;
}
