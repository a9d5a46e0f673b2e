/**
 * Plain TypeScript types for the Kubernetes API types users put in their own `apis/` folder (the TypeScript front
 * end of `codegen` maps each one exactly as controller-gen maps its Go counterpart: see
 * `kubegen`'s `src/model/known-types.ts`). No runtime code: these only name the wire shapes.
 *
 * `ObjectMeta`, `ListMeta` (client/types.ts) and `LabelSelector` (labels/label-selector.ts) are
 * exported from their own modules and mapped the same way.
 */

/** A 32-bit integer (`type: integer, format: int32`), Go `int32`. */
export type int32 = number;
/** A 64-bit integer (`type: integer, format: int64`), Go `int64`. Values above 2^53 lose precision in JSON.parse. */
export type int64 = number;
/** An integer with no declared width (`type: integer`), Go `int`. */
export type integer = number;
/** A floating-point number (`type: number`), Go `float64`. */
export type float64 = number;

/** A value that is either an integer or a string (`x-kubernetes-int-or-string`), e.g. a port or `25%`. */
export type IntOrString = number | string;
/** resource.Quantity: `"100m"`, `"1Gi"`, `2` (int-or-string with the quantity pattern). */
export type Quantity = number | string;
/** metav1.Time: an RFC 3339 timestamp string (`format: date-time`). */
export type Time = string;
/** metav1.MicroTime: an RFC 3339 timestamp with microseconds (`format: date-time`). */
export type MicroTime = string;
/** metav1.Duration: a Go duration string such as `"1h30m"`. */
export type Duration = string;
/** runtime.RawExtension: any embedded JSON object (`x-kubernetes-preserve-unknown-fields`). */
export type RawExtension = { [key: string]: unknown };
/** apiextensionsv1.JSON: any JSON value (`x-kubernetes-preserve-unknown-fields`, no type). */
export type JSONValue = unknown;

/** metav1.Condition: one aspect of an object's current state (`status.conditions`). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** corev1.ObjectReference: a reference to any object. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** corev1.LocalObjectReference: a reference to an object in the same namespace, by name. */
export interface LocalObjectReference {
  name?: string;
}

/** corev1.TypedLocalObjectReference: a typed reference to an object in the same namespace. */
export interface TypedLocalObjectReference {
  apiGroup?: string;
  kind: string;
  name: string;
}

/** corev1.SecretKeySelector: one key of a Secret in the same namespace. */
export interface SecretKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

/** corev1.ConfigMapKeySelector: one key of a ConfigMap in the same namespace. */
export interface ConfigMapKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}
