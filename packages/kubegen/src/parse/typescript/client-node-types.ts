/**
 * Expansion of `@kubernetes/client-node` model classes (e.g. `V1PodTemplateSpec`) used inside a spec into
 * structural schemas, from the OpenAPI type map each model class carries (`attributeTypeMap`: name, type, format).
 * The package is loaded lazily, only when a spec uses one of its types. Quantities (typed `string` there) get the
 * Quantity schema as controller-gen gives them; recursive models (JSONSchemaProps) end in a preserve-unknown object.
 */
import { createRequire } from 'node:module';
import type { JSONSchemaProps } from '../../model/index.js';
import { runtimeTypeSchema } from './known-types.js';

interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}
type Models = Record<string, { attributeTypeMap?: Attribute[] } | undefined>;

let models: Models | undefined;

function load(): Models {
  if (!models) {
    const require = createRequire(import.meta.url);
    models = require('@kubernetes/client-node') as Models;
  }
  return models;
}

/** Fields typed `string` (or a map of strings) in the client that are Quantities on the wire. */
const QUANTITY_FIELDS = new Set([
  'V1ResourceRequirements.limits', 'V1ResourceRequirements.requests', 'V1VolumeResourceRequirements.limits',
  'V1VolumeResourceRequirements.requests', 'V1EmptyDirVolumeSource.sizeLimit', 'V1ResourceFieldSelector.divisor',
  'V1PersistentVolumeClaimStatus.capacity', 'V1PersistentVolumeClaimStatus.allocatedResources',
]);

/** True when `name` is a model class of `@kubernetes/client-node`. */
export function isClientNodeModel(name: string): boolean {
  return Array.isArray(load()[name]?.attributeTypeMap);
}

/** The schema of model `name`; undefined when the package has no such model. */
export function clientNodeSchema(name: string): JSONSchemaProps | undefined {
  if (!isClientNodeModel(name)) return undefined;
  return modelSchema(name, []);
}

function modelSchema(name: string, stack: string[]): JSONSchemaProps {
  if (name === 'V1ObjectMeta') return { type: 'object' };
  if (stack.includes(name)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const attrs = load()[name]?.attributeTypeMap ?? [];
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
