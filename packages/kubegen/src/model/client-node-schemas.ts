/**
 * Expansion of `@kubernetes/client-node` model classes (e.g. `V1PodTemplateSpec`) used inside a spec into
 * structural schemas, from the OpenAPI type map each model class carries (`attributeTypeMap`: name, type, format).
 * Each model module is loaded lazily, only when a spec uses that type. Quantities (typed `string` there) get the
 * Quantity schema as controller-gen gives them; recursive models (JSONSchemaProps) end in a preserve-unknown object.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { JSONSchemaProps } from './schema.js';
import { runtimeTypeSchema } from './known-types.js';

interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}
type Model = { attributeTypeMap?: Attribute[] };

const models = new Map<string, Model | undefined>();
const requireFromHere = createRequire(import.meta.url);

/**
 * Model class `name`, loaded from its own module (`dist/gen/models/<name>.js`, about 0.3 ms each) rather than the
 * package index, which takes about 0.5 s to load. Names that are not model class names are never looked up.
 */
function load(name: string): Model | undefined {
  if (models.has(name)) return models.get(name);
  let model: Model | undefined;
  if (/^[A-Z][A-Za-z0-9]*$/.test(name)) {
    try {
      const mod = requireFromHere(`@kubernetes/client-node/dist/gen/models/${name}.js`) as Record<string, Model | undefined>;
      model = mod[name];
    } catch {
      model = undefined;
    }
  }
  models.set(name, model);
  return model;
}

/** What a model's declaration file says of its fields beyond their types. */
export interface ClientNodeDeclaration {
  /** The description of each field (by JSON name): the OpenAPI descriptions controller-gen copies into CRDs. */
  descriptions: ReadonlyMap<string, string>;
  /** The fields (by JSON name) declared without `?`: required in the API. */
  required: ReadonlySet<string>;
}

const declarations = new Map<string, ClientNodeDeclaration>();

/** Descriptions and required fields of model `name`, read from its declaration file; empty when there is none. */
export function clientNodeDeclaration(name: string): ClientNodeDeclaration {
  let found = declarations.get(name);
  if (found) return found;
  const descriptions = new Map<string, string>();
  const required = new Set<string>();
  const attrs = load(name)?.attributeTypeMap ?? [];
  try {
    const file = requireFromHere.resolve(`@kubernetes/client-node/dist/gen/models/${name}.js`).replace(/\.js$/, '.d.ts');
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\/\*\*\n((?:[ \t]*\*(?!\/).*\n)+?)[ \t]*\*\/\n[ \t]*'([^']+)'(\??):/g)) {
      const attr = attrs.find((a) => a.name === m[2]);
      if (!attr) continue;
      const doc = m[1]!.split('\n').map((l) => l.replace(/^[ \t]*\* ?/, '')).join(' ');
      descriptions.set(attr.baseName, doc.replace(/\\(.)/g, '$1').replace(/\s+/g, ' ').trim());
      if (m[3] === '') required.add(attr.baseName);
    }
  } catch {
    // no declaration file: nothing known
  }
  found = { descriptions, required };
  declarations.set(name, found);
  return found;
}

/** Fields typed `string` (or a map of strings) in the client that are Quantities on the wire. */
const QUANTITY_FIELDS = new Set([
  'V1ResourceRequirements.limits', 'V1ResourceRequirements.requests', 'V1VolumeResourceRequirements.limits',
  'V1VolumeResourceRequirements.requests', 'V1EmptyDirVolumeSource.sizeLimit', 'V1ResourceFieldSelector.divisor',
  'V1PersistentVolumeClaimStatus.capacity', 'V1PersistentVolumeClaimStatus.allocatedResources',
]);

/** The fields of model `name` as the package declares them (JSON name, TypeScript type), or none. */
export function clientNodeAttributes(name: string): readonly { baseName: string; type: string }[] {
  return load(name)?.attributeTypeMap ?? [];
}

/** True when `name` is a model class of `@kubernetes/client-node`. */
export function isClientNodeModel(name: string): boolean {
  return Array.isArray(load(name)?.attributeTypeMap);
}

/** The schema of model `name`; undefined when the package has no such model. */
export function clientNodeSchema(name: string): JSONSchemaProps | undefined {
  if (!isClientNodeModel(name)) return undefined;
  return modelSchema(name, []);
}

function modelSchema(name: string, stack: string[]): JSONSchemaProps {
  if (name === 'V1ObjectMeta') return { type: 'object' };
  if (stack.includes(name)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const attrs = load(name)?.attributeTypeMap ?? [];
  const properties: Record<string, JSONSchemaProps> = {};
  for (const a of attrs) {
    const quantity = QUANTITY_FIELDS.has(`${name}.${a.name}`);
    properties[a.baseName] = typeSchema(a.type, a.format, [...stack, name], quantity);
  }
  return { type: 'object', properties };
}

function typeSchema(type: string, format: string, stack: string[], quantity: boolean): JSONSchemaProps {
  const t = type.trim();
  const arr = /^Array<(.*)>$/.exec(t);
  if (arr) return { type: 'array', items: typeSchema(arr[1]!, format, stack, quantity) };
  const map = /^\{ \[key: string\]: (.*); \}$/.exec(t);
  if (map) return { type: 'object', additionalProperties: typeSchema(map[1]!, format, stack, quantity) };
  switch (t) {
    case 'string':
      if (quantity) return runtimeTypeSchema('Quantity')!;
      return format ? { type: 'string', format } : { type: 'string' };
    case 'number':
      if (format === 'int32' || format === 'int64') return { type: 'integer', format };
      return format ? { type: 'number', format } : { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'Date':
      return { type: 'string', format: 'date-time' };
    case 'IntOrString':
      return runtimeTypeSchema('IntOrString')!;
    case 'any':
    case 'object':
      return { 'x-kubernetes-preserve-unknown-fields': true };
  }
  if (isClientNodeModel(t)) return modelSchema(t, stack);
  return { 'x-kubernetes-preserve-unknown-fields': true };
}
