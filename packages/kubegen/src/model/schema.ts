/**
 * The structural schema as the apiserver stores it: apiextensions.k8s.io/v1 JSONSchemaProps.
 *
 * Both front ends (CRD YAML and TypeScript types) produce this shape, and every generator reads it.
 * Keys are spelled exactly as on the wire, `x-kubernetes-*` extensions included, so a schema read from a CRD
 * can be written back unchanged.
 */
export interface JSONSchemaProps {
  /**
   * A reference to a named schema of the model (`ApiModel.definitions`, the built-in API's types). Never on the
   * wire: CRD input refuses it, CRD output writes the definition out in its place (`expandRefs`).
   */
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  title?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  nullable?: boolean;

  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  /** `true`/`false` or a schema for the values of a map. */
  additionalProperties?: JSONSchemaProps | boolean;
  minProperties?: number;
  maxProperties?: number;

  items?: JSONSchemaProps;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;

  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;

  minLength?: number;
  maxLength?: number;
  pattern?: string;

  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;

  externalDocs?: { description?: string; url?: string };

  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** A CEL rule (`x-kubernetes-validations` entry). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** Every key a JSONSchemaProps may carry; anything else in an input schema is an error. */
export const SCHEMA_KEYS: ReadonlySet<string> = new Set([
  'type', 'format', 'title', 'description', 'default', 'example', 'enum', 'nullable',
  'properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties',
  'items', 'minItems', 'maxItems', 'uniqueItems',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern',
  'allOf', 'anyOf', 'oneOf', 'not', 'externalDocs',
  'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations',
]);
