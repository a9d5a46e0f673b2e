/**
 * The core Kubernetes types the runtime exports as plain JSON types (`@kubegen/runtime`'s `PodTemplateSpec`,
 * `Container`, … — each `Wire<V1…>` of a `@kubernetes/client-node` model): every core/v1 struct reachable from
 * PodTemplateSpec, ServiceSpec and PersistentVolumeClaimSpec, and a few more CRDs embed (JobSpec, Condition, …).
 * The generator types matching CRD sub-schemas with them (`generate/types/core-types.ts`); the TypeScript front end
 * expands them to schemas when a user's API type names one (`parse/typescript/type-schema.ts`).
 */

export interface CoreType {
  /** The runtime export generated code names (`@kubegen/runtime`). */
  name: string;
  /** The built-in API definition the runtime type is (`io.k8s.api.core.v1.PodSpec`). */
  definition: string;
  /**
   * Properties (dotted paths for nested ones) a sub-schema must have to be taken for this type. Absent: the type is
   * recognised by the generic rule (how much of it the sub-schema has, field names, descriptions; see the matcher).
   */
  keys?: string[];
  /** How many of the type's properties a sub-schema must have at its own level (default: all of `keys`' heads). */
  minCommon?: number;
}

/** The core types recognised by their own keys, largest first. Every `name` is a type export of `@kubegen/runtime`. */
const KEYED_TYPES: readonly CoreType[] = [
  { name: 'JobSpec', definition: 'io.k8s.api.batch.v1.JobSpec', keys: ['template.spec.containers'] },
  { name: 'PodTemplateSpec', definition: 'io.k8s.api.core.v1.PodTemplateSpec', keys: ['spec.containers'] },
  { name: 'PodSpec', definition: 'io.k8s.api.core.v1.PodSpec', keys: ['containers'], minCommon: 3 },
  { name: 'PersistentVolumeClaim', definition: 'io.k8s.api.core.v1.PersistentVolumeClaim', keys: ['spec.accessModes'] },
  { name: 'PersistentVolumeClaimSpec', definition: 'io.k8s.api.core.v1.PersistentVolumeClaimSpec', keys: ['accessModes'], minCommon: 3 },
  { name: 'Container', definition: 'io.k8s.api.core.v1.Container', keys: ['name', 'image'], minCommon: 4 },
  { name: 'Volume', definition: 'io.k8s.api.core.v1.Volume', keys: ['name'], minCommon: 4 },
  { name: 'ServiceSpec', definition: 'io.k8s.api.core.v1.ServiceSpec', keys: ['ports', 'selector'], minCommon: 3 },
  { name: 'Affinity', definition: 'io.k8s.api.core.v1.Affinity', keys: [], minCommon: 2 },
  { name: 'PodAffinityTerm', definition: 'io.k8s.api.core.v1.PodAffinityTerm', keys: ['labelSelector', 'topologyKey'] },
  { name: 'PodDNSConfig', definition: 'io.k8s.api.core.v1.PodDNSConfig', keys: ['nameservers', 'searches'] },
  { name: 'PodSecurityContext', definition: 'io.k8s.api.core.v1.PodSecurityContext', keys: ['fsGroup', 'runAsUser'] },
  { name: 'SecurityContext', definition: 'io.k8s.api.core.v1.SecurityContext', keys: ['capabilities', 'runAsUser'] },
  { name: 'Probe', definition: 'io.k8s.api.core.v1.Probe', keys: ['httpGet', 'periodSeconds'] },
  { name: 'Lifecycle', definition: 'io.k8s.api.core.v1.Lifecycle', keys: [], minCommon: 2 },
  { name: 'TopologySpreadConstraint', definition: 'io.k8s.api.core.v1.TopologySpreadConstraint', keys: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
  { name: 'ResourceRequirements', definition: 'io.k8s.api.core.v1.ResourceRequirements', keys: ['limits', 'requests'] },
  { name: 'EnvVar', definition: 'io.k8s.api.core.v1.EnvVar', keys: ['name', 'value', 'valueFrom'] },
  { name: 'EnvFromSource', definition: 'io.k8s.api.core.v1.EnvFromSource', keys: ['configMapRef', 'secretRef'] },
  { name: 'VolumeMount', definition: 'io.k8s.api.core.v1.VolumeMount', keys: ['name', 'mountPath'] },
  { name: 'ContainerPort', definition: 'io.k8s.api.core.v1.ContainerPort', keys: ['containerPort'], minCommon: 2 },
  { name: 'Toleration', definition: 'io.k8s.api.core.v1.Toleration', keys: ['key', 'operator', 'effect'] },
  { name: 'LabelSelector', definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', keys: ['matchLabels', 'matchExpressions'] },
  { name: 'Condition', definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.Condition', keys: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
  { name: 'ObjectReference', definition: 'io.k8s.api.core.v1.ObjectReference', keys: ['apiVersion', 'kind', 'name', 'namespace', 'uid'] },
  { name: 'SecretKeySelector', definition: 'io.k8s.api.core.v1.SecretKeySelector', keys: ['name', 'key', 'optional'] },
  { name: 'ConfigMapKeySelector', definition: 'io.k8s.api.core.v1.ConfigMapKeySelector', keys: ['name', 'key', 'optional'] },
  { name: 'TypedLocalObjectReference', definition: 'io.k8s.api.core.v1.TypedLocalObjectReference', keys: ['apiGroup', 'kind', 'name'] },
];

/** The core/v1 types recognised by the generic rule (`LabelSelectorRequirement` is meta/v1's). */
const GENERIC_TYPES: readonly string[] = [
  'NodeAffinity', 'PreferredSchedulingTerm', 'NodeSelectorTerm', 'NodeSelectorRequirement', 'NodeSelector',
  'PodAffinity', 'WeightedPodAffinityTerm', 'PodAntiAffinity', 'EnvVarSource', 'ObjectFieldSelector',
  'FileKeySelector', 'ResourceFieldSelector', 'ConfigMapEnvSource', 'SecretEnvSource', 'LifecycleHandler',
  'ExecAction', 'HTTPGetAction', 'HTTPHeader', 'SleepAction', 'TCPSocketAction', 'GRPCAction',
  'ContainerResizePolicy', 'ResourceClaim', 'ContainerRestartRule', 'ContainerRestartRuleOnExitCodes',
  'AppArmorProfile', 'Capabilities', 'SELinuxOptions', 'SeccompProfile', 'WindowsSecurityContextOptions',
  'VolumeDevice', 'EphemeralContainer', 'PodDNSConfigOption', 'HostAlias', 'PodOS', 'PodReadinessGate',
  'PodResourceClaim', 'PodSchedulingGate', 'PodSchedulingGroup', 'Sysctl', 'ServicePort', 'SessionAffinityConfig',
  'ClientIPConfig', 'AWSElasticBlockStoreVolumeSource', 'AzureDiskVolumeSource', 'AzureFileVolumeSource',
  'CephFSVolumeSource', 'CinderVolumeSource', 'ConfigMapVolumeSource', 'KeyToPath', 'CSIVolumeSource',
  'DownwardAPIVolumeSource', 'DownwardAPIVolumeFile', 'EmptyDirVolumeSource', 'EphemeralVolumeSource',
  'PersistentVolumeClaimTemplate', 'TypedObjectReference', 'VolumeResourceRequirements', 'FCVolumeSource',
  'FlexVolumeSource', 'FlockerVolumeSource', 'GCEPersistentDiskVolumeSource', 'GitRepoVolumeSource',
  'GlusterfsVolumeSource', 'HostPathVolumeSource', 'ImageVolumeSource', 'ISCSIVolumeSource', 'NFSVolumeSource',
  'PersistentVolumeClaimVolumeSource', 'PhotonPersistentDiskVolumeSource', 'PortworxVolumeSource',
  'ProjectedVolumeSource', 'VolumeProjection', 'ClusterTrustBundleProjection', 'ConfigMapProjection',
  'DownwardAPIProjection', 'PodCertificateProjection', 'SecretProjection', 'ServiceAccountTokenProjection',
  'QuobyteVolumeSource', 'RBDVolumeSource', 'ScaleIOVolumeSource', 'SecretVolumeSource', 'StorageOSVolumeSource',
  'VsphereVirtualDiskVolumeSource', 'LocalObjectReference', 'LabelSelectorRequirement',
];

/** Every core type: the keyed ones (tried first, in order), then the generic ones. */
export const CORE_TYPES: readonly CoreType[] = [
  ...KEYED_TYPES,
  ...GENERIC_TYPES.map((name) => ({ name, definition: `${name === 'LabelSelectorRequirement' ? 'io.k8s.apimachinery.pkg.apis.meta.v1' : 'io.k8s.api.core.v1'}.${name}` })),
];
