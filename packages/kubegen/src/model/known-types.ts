/**
 * Schemas of the apimachinery types with a JSON form of their own that the TypeScript front end knows by name,
 * mapped exactly as controller-gen maps their Go counterparts (controller-tools `pkg/crd/known_types.go`). Structs
 * (Condition, LabelSelector, the core types) come from the built-in API (`builtin-api/schemas.ts`). Each call returns
 * a fresh object: callers may mutate it.
 */
import type { JSONSchemaProps } from './schema.js';

/** The pattern controller-gen puts on every `resource.Quantity`. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const intOrString = (): JSONSchemaProps => ({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
const str = (extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'string', ...extra });


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
};

/** The schema of runtime type `name` (exported by `@kubegen/runtime`), or undefined when it is not a known type. */
export function runtimeTypeSchema(name: string): JSONSchemaProps | undefined {
  return FACTORIES[name]?.();
}


/** Whether a module specifier is the kubegen runtime (the package or one of its entry points, or a relative path to its source or build). */
export function isRuntimeModule(spec: string): boolean {
  return spec === '@kubegen/runtime' || spec.startsWith('@kubegen/runtime/') || /(^|\/)runtime(\/(index|api-types))?(\.js|\.ts)?$/.test(spec);
}
