import type { PrinterColumn, ResourceModel, Subresources, VersionModel } from '../../model/index.js';
import { checkGroup, checkKind, checkLabel, checkVersion } from './names.js';
import { checkSchema } from './schema.js';
import type { JsonPath, SourceDoc } from './yaml-source.js';

type Obj = Record<string, unknown>;

/**
 * Turns one parsed document into the resources it defines: a v1 CustomResourceDefinition gives one, a `List`
 * of CRDs gives one per item. Anything else is an `InputError` pointing at the offending node.
 */
export function documentToResources(doc: SourceDoc): ResourceModel[] {
  const root = doc.value;
  if (!isObj(root)) throw doc.error([], 'expected a mapping (a CustomResourceDefinition)');
  if (isResourceList(root)) {
    const items = root['items'];
    if (!Array.isArray(items)) throw doc.error(['items'], 'a List needs an items array');
    return items.map((item, i) => crdToResource(doc, item, ['items', i]));
  }
  return [crdToResource(doc, root, [])];
}

/** A `List` document (kind `List`, or `<Kind>List` with an items array) whose items are read one by one. */
export function isResourceList(value: unknown): boolean {
  if (!isObj(value)) return false;
  const kind = value['kind'];
  return kind === 'List' || (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(value['items']));
}

function crdToResource(doc: SourceDoc, crd: unknown, at: JsonPath): ResourceModel {
  if (!isObj(crd)) throw doc.error(at, 'expected a mapping (a CustomResourceDefinition)');
  const apiVersion = crd['apiVersion'];
  const kind = crd['kind'];
  if (kind !== 'CustomResourceDefinition') {
    throw doc.error([...at, 'kind'], `expected kind CustomResourceDefinition, found ${JSON.stringify(kind ?? null)}; only CRDs are accepted`);
  }
  if (apiVersion === 'apiextensions.k8s.io/v1beta1') {
    throw doc.error([...at, 'apiVersion'], 'apiextensions.k8s.io/v1beta1 CRDs are not supported: convert the CRD to apiextensions.k8s.io/v1 (removed from Kubernetes in 1.22)');
  }
  if (apiVersion !== 'apiextensions.k8s.io/v1') {
    throw doc.error([...at, 'apiVersion'], `unsupported apiVersion ${JSON.stringify(apiVersion ?? null)}; expected apiextensions.k8s.io/v1`);
  }
  const spec = obj(doc, crd['spec'], [...at, 'spec']);
  const sp = [...at, 'spec'];
  const group = spec['group'];
  fail(doc, [...sp, 'group'], checkGroup(group));

  const n = obj(doc, spec['names'], [...sp, 'names']);
  const np = [...sp, 'names'];
  fail(doc, [...np, 'kind'], checkKind('kind', n['kind']));
  const kindName = n['kind'] as string;
  fail(doc, [...np, 'plural'], checkLabel('plural', n['plural']));
  const singular = n['singular'] ?? kindName.toLowerCase();
  fail(doc, [...np, 'singular'], checkLabel('singular', singular));
  const listKind = n['listKind'] ?? `${kindName}List`;
  fail(doc, [...np, 'listKind'], checkKind('listKind', listKind));
  const shortNames = strings(doc, n['shortNames'], [...np, 'shortNames']);
  shortNames.forEach((s, i) => fail(doc, [...np, 'shortNames', i], checkLabel('short name', s)));
  const categories = strings(doc, n['categories'], [...np, 'categories']);

  const scope = spec['scope'];
  if (scope !== 'Namespaced' && scope !== 'Cluster') throw doc.error([...sp, 'scope'], `scope must be Namespaced or Cluster, found ${JSON.stringify(scope ?? null)}`);

  const rawVersions = spec['versions'];
  if (!Array.isArray(rawVersions) || rawVersions.length === 0) throw doc.error([...sp, 'versions'], 'versions must be a non-empty list');
  const versions = rawVersions.map((v, i) => toVersion(doc, v, [...sp, 'versions', i]));
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v.name)) throw doc.error([...sp, 'versions', i, 'name'], `version ${v.name} is listed twice`);
    seen.add(v.name);
  });
  const storage = versions.filter((v) => v.storage);
  if (storage.length !== 1) {
    throw doc.error([...sp, 'versions'], `exactly one version must have storage: true, found ${storage.length}${storage.length ? ` (${storage.map((v) => v.name).join(', ')})` : ''}`);
  }

  const metadata = isObj(crd['metadata']) ? crd['metadata'] : {};
  const resource: ResourceModel = {
    group: group as string,
    names: { kind: kindName, plural: n['plural'] as string, singular: singular as string, listKind: listKind as string, shortNames, categories },
    scope,
    versions,
    source: doc.lazyLocate(at),
  };
  if (isObj(spec['conversion'])) resource.conversion = spec['conversion'];
  const labels = stringMap(metadata['labels']);
  const annotations = stringMap(metadata['annotations']);
  if (labels) resource.labels = labels;
  if (annotations) resource.annotations = annotations;
  return resource;
}

function toVersion(doc: SourceDoc, raw: unknown, at: JsonPath): VersionModel {
  const v = obj(doc, raw, at);
  fail(doc, [...at, 'name'], checkVersion(v['name']));
  const name = v['name'] as string;
  const served = bool(doc, v['served'], [...at, 'served'], false);
  const storage = bool(doc, v['storage'], [...at, 'storage'], false);
  const deprecated = bool(doc, v['deprecated'], [...at, 'deprecated'], false);
  const schemaHolder = v['schema'];
  if (!isObj(schemaHolder) || schemaHolder['openAPIV3Schema'] === undefined) {
    throw doc.error([...at, 'schema'], `version ${name} has no schema.openAPIV3Schema; every version needs a structural schema`);
  }
  const schema = checkSchema(doc, schemaHolder['openAPIV3Schema'], [...at, 'schema', 'openAPIV3Schema']);
  const version: VersionModel = {
    name,
    served,
    storage,
    deprecated,
    schema,
    subresources: toSubresources(doc, v['subresources'], [...at, 'subresources']),
    printerColumns: toPrinterColumns(doc, v['additionalPrinterColumns'], [...at, 'additionalPrinterColumns']),
    selectableFields: toSelectableFields(doc, v['selectableFields'], [...at, 'selectableFields']),
    source: doc.lazyLocate(at),
  };
  if (v['deprecationWarning'] !== undefined) {
    if (typeof v['deprecationWarning'] !== 'string') throw doc.error([...at, 'deprecationWarning'], 'deprecationWarning must be a string');
    version.deprecationWarning = v['deprecationWarning'];
  }
  return version;
}

function toSubresources(doc: SourceDoc, raw: unknown, at: JsonPath): Subresources {
  if (raw === undefined || raw === null) return { status: false };
  const s = obj(doc, raw, at);
  const out: Subresources = { status: s['status'] !== undefined && s['status'] !== null };
  if (s['scale'] !== undefined && s['scale'] !== null) {
    const sc = obj(doc, s['scale'], [...at, 'scale']);
    const path = (k: string, required: boolean): string | undefined => {
      const val = sc[k];
      if (val === undefined && !required) return undefined;
      if (typeof val !== 'string' || !val.startsWith('.')) throw doc.error([...at, 'scale', k], `${k} must be a JSON path such as .spec.replicas`);
      return val;
    };
    out.scale = { specReplicasPath: path('specReplicasPath', true)!, statusReplicasPath: path('statusReplicasPath', true)! };
    const sel = path('labelSelectorPath', false);
    if (sel !== undefined) out.scale.labelSelectorPath = sel;
  }
  return out;
}

function toPrinterColumns(doc: SourceDoc, raw: unknown, at: JsonPath): PrinterColumn[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw doc.error(at, 'additionalPrinterColumns must be a list');
  return raw.map((c, i) => {
    const o = obj(doc, c, [...at, i]);
    for (const k of ['name', 'type', 'jsonPath']) {
      if (typeof o[k] !== 'string') throw doc.error([...at, i, k], `printer column ${k} must be a string`);
    }
    const col: PrinterColumn = { name: o['name'] as string, type: o['type'] as string, jsonPath: o['jsonPath'] as string };
    if (typeof o['description'] === 'string') col.description = o['description'];
    if (typeof o['format'] === 'string') col.format = o['format'];
    if (typeof o['priority'] === 'number') col.priority = o['priority'];
    return col;
  });
}

function toSelectableFields(doc: SourceDoc, raw: unknown, at: JsonPath): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw doc.error(at, 'selectableFields must be a list');
  return raw.map((f, i) => {
    const o = obj(doc, f, [...at, i]);
    if (typeof o['jsonPath'] !== 'string') throw doc.error([...at, i, 'jsonPath'], 'selectable field jsonPath must be a string');
    return o['jsonPath'];
  });
}

function fail(doc: SourceDoc, path: JsonPath, message: string | undefined): void {
  if (message !== undefined) throw doc.error(path, message);
}

function obj(doc: SourceDoc, v: unknown, at: JsonPath): Obj {
  if (!isObj(v)) throw doc.error(at, `expected a mapping at ${at.length ? at.join('.') : 'the document root'}`);
  return v;
}

function bool(doc: SourceDoc, v: unknown, at: JsonPath, dflt: boolean): boolean {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw doc.error(at, `expected true or false, found ${JSON.stringify(v)}`);
  return v;
}

function strings(doc: SourceDoc, v: unknown, at: JsonPath): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw doc.error(at, 'expected a list of strings');
  return v as string[];
}

function stringMap(v: unknown): Record<string, string> | undefined {
  if (!isObj(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
