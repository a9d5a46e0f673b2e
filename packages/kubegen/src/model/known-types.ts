/**
 * Schemas of the API types the TypeScript front end knows by name, mapped exactly as controller-gen maps their Go
 * counterparts (controller-tools `pkg/crd/known_types.go`, and the markers on the apimachinery structs it expands).
 * Each call returns a fresh object: callers may mutate it.
 */
import type { JSONSchemaProps } from './schema.js';

/** The pattern controller-gen puts on every `resource.Quantity`. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const intOrString = (): JSONSchemaProps => ({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
const str = (extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'string', ...extra });

const CONDITION_TYPE_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';

const FACTORIES: Record<string, () => JSONSchemaProps> = {
  int32: () => ({ type: 'integer', format: 'int32' }),
  int64: () => ({ type: 'integer', format: 'int64' }),
  integer: () => ({ type: 'integer' }),
  float64: () => ({ type: 'number' }),
  IntOrString: intOrString,
  Quantity: () => ({ ...intOrString(), pattern: QUANTITY_PATTERN }),
  Time: () => str({ format: 'date-time' }),
  MicroTime: () => str({ format: 'date-time' }),
  Duration: () => str(),
  RawExtension: () => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
  JSONValue: () => ({ 'x-kubernetes-preserve-unknown-fields': true }),
  ObjectMeta: () => ({ type: 'object' }),
  ListMeta: () => ({ type: 'object' }),
  Condition: () => ({
    description: 'Condition contains details for one aspect of the current state of this API Resource.',
    type: 'object',
    properties: {
      lastTransitionTime: str({ format: 'date-time', description: 'lastTransitionTime is the last time the condition transitioned from one status to another.' }),
      message: str({ maxLength: 32768, description: 'message is a human readable message indicating details about the transition.' }),
      observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'observedGeneration represents the .metadata.generation that the condition was set based upon.' },
      reason: str({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$', description: "reason contains a programmatic identifier indicating the reason for the condition's last transition." }),
      status: str({ enum: ['True', 'False', 'Unknown'], description: 'status of the condition, one of True, False, Unknown.' }),
      type: str({ maxLength: 316, pattern: CONDITION_TYPE_PATTERN, description: 'type of condition in CamelCase or in foo.example.com/CamelCase.' }),
    },
    required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  }),
  LabelSelector: () => ({
    description: 'A label selector is a label query over a set of resources.',
    type: 'object',
    properties: {
      matchExpressions: {
        type: 'array',
        items: {
          type: 'object',
          properties: { key: str(), operator: str(), values: { type: 'array', items: str(), 'x-kubernetes-list-type': 'atomic' } },
          required: ['key', 'operator'],
        },
        'x-kubernetes-list-type': 'atomic',
      },
      matchLabels: { type: 'object', additionalProperties: str() },
    },
    'x-kubernetes-map-type': 'atomic',
  }),
  ObjectReference: () => ({
    type: 'object',
    properties: {
      apiVersion: str(), fieldPath: str(), kind: str(), name: str(), namespace: str(), resourceVersion: str(), uid: str(),
    },
    'x-kubernetes-map-type': 'atomic',
  }),
  LocalObjectReference: () => ({ type: 'object', properties: { name: str({ default: '' }) }, 'x-kubernetes-map-type': 'atomic' }),
  TypedLocalObjectReference: () => ({
    type: 'object',
    properties: { apiGroup: str(), kind: str(), name: str() },
    required: ['kind', 'name'],
    'x-kubernetes-map-type': 'atomic',
  }),
  SecretKeySelector: () => ({
    type: 'object',
    properties: { key: str(), name: str({ default: '' }), optional: { type: 'boolean' } },
    required: ['key'],
    'x-kubernetes-map-type': 'atomic',
  }),
  ConfigMapKeySelector: () => ({
    type: 'object',
    properties: { key: str(), name: str({ default: '' }), optional: { type: 'boolean' } },
    required: ['key'],
    'x-kubernetes-map-type': 'atomic',
  }),
};

/** The schema of runtime type `name` (exported by `@kubegen/runtime`), or undefined when it is not a known type. */
export function runtimeTypeSchema(name: string): JSONSchemaProps | undefined {
  return FACTORIES[name]?.();
}

/** Names `runtimeTypeSchema` knows. */
export const RUNTIME_TYPES: readonly string[] = Object.keys(FACTORIES);

/** Whether a module specifier is the kubegen runtime (the package, or a relative path to its source or build). */
export function isRuntimeModule(spec: string): boolean {
  return spec === '@kubegen/runtime' || /(^|\/)runtime(\/(index|api-types))?(\.js|\.ts)?$/.test(spec);
}
