/**
 * The core Kubernetes types the runtime exports as plain JSON types (`@kubegen/runtime`'s `PodTemplateSpec`,
 * `Container`, … — each `Wire<V1…>` of a `@kubernetes/client-node` model). The generator types matching CRD
 * sub-schemas with them (`generate/types/core-types.ts`); the TypeScript front end expands them to schemas when a
 * user's API type names one (`parse/typescript/type-schema.ts`).
 */

export interface CoreType {
  /** The runtime export generated code names (`@kubegen/runtime`). */
  name: string;
  /** The `@kubernetes/client-node` model the runtime type is `Wire<…>` of. */
  model: string;
  /** Properties (dotted paths for nested ones) a sub-schema must have to be taken for this type. */
  keys: string[];
  /** How many of the type's properties a sub-schema must have at its own level (default: all of `keys`' heads). */
  minCommon?: number;
}

/** The core types recognised, largest first. Every `name` is a type export of `@kubegen/runtime`. */
export const CORE_TYPES: readonly CoreType[] = [
  { name: 'JobSpec', model: 'V1JobSpec', keys: ['template.spec.containers'] },
  { name: 'PodTemplateSpec', model: 'V1PodTemplateSpec', keys: ['spec.containers'] },
  { name: 'PodSpec', model: 'V1PodSpec', keys: ['containers'], minCommon: 3 },
  { name: 'PersistentVolumeClaim', model: 'V1PersistentVolumeClaim', keys: ['spec.accessModes'] },
  { name: 'PersistentVolumeClaimSpec', model: 'V1PersistentVolumeClaimSpec', keys: ['accessModes'], minCommon: 3 },
  { name: 'Container', model: 'V1Container', keys: ['name', 'image'], minCommon: 4 },
  { name: 'Volume', model: 'V1Volume', keys: ['name'], minCommon: 4 },
  { name: 'ServiceSpec', model: 'V1ServiceSpec', keys: ['ports', 'selector'], minCommon: 3 },
  { name: 'Affinity', model: 'V1Affinity', keys: [], minCommon: 2 },
  { name: 'PodAffinityTerm', model: 'V1PodAffinityTerm', keys: ['labelSelector', 'topologyKey'] },
  { name: 'PodDNSConfig', model: 'V1PodDNSConfig', keys: ['nameservers', 'searches'] },
  { name: 'PodSecurityContext', model: 'V1PodSecurityContext', keys: ['fsGroup', 'runAsUser'] },
  { name: 'SecurityContext', model: 'V1SecurityContext', keys: ['capabilities', 'runAsUser'] },
  { name: 'Probe', model: 'V1Probe', keys: ['httpGet', 'periodSeconds'] },
  { name: 'Lifecycle', model: 'V1Lifecycle', keys: [], minCommon: 2 },
  { name: 'TopologySpreadConstraint', model: 'V1TopologySpreadConstraint', keys: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
  { name: 'ResourceRequirements', model: 'V1ResourceRequirements', keys: ['limits', 'requests'] },
  { name: 'EnvVar', model: 'V1EnvVar', keys: ['name', 'value', 'valueFrom'] },
  { name: 'EnvFromSource', model: 'V1EnvFromSource', keys: ['configMapRef', 'secretRef'] },
  { name: 'VolumeMount', model: 'V1VolumeMount', keys: ['name', 'mountPath'] },
  { name: 'ContainerPort', model: 'V1ContainerPort', keys: ['containerPort'], minCommon: 2 },
  { name: 'Toleration', model: 'V1Toleration', keys: ['key', 'operator', 'effect'] },
  { name: 'LabelSelector', model: 'V1LabelSelector', keys: ['matchLabels', 'matchExpressions'] },
  { name: 'Condition', model: 'V1Condition', keys: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
  { name: 'ObjectReference', model: 'V1ObjectReference', keys: ['apiVersion', 'kind', 'name', 'namespace', 'uid'] },
  { name: 'SecretKeySelector', model: 'V1SecretKeySelector', keys: ['name', 'key', 'optional'] },
  { name: 'ConfigMapKeySelector', model: 'V1ConfigMapKeySelector', keys: ['name', 'key', 'optional'] },
  { name: 'TypedLocalObjectReference', model: 'V1TypedLocalObjectReference', keys: ['apiGroup', 'kind', 'name'] },
];

