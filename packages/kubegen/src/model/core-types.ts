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
  /** The `@kubernetes/client-node` model the runtime type is `Wire<…>` of. */
  model: string;
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

/** The core/v1 types recognised by the generic rule; each is `V1<name>` in `@kubernetes/client-node`. */
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
  ...GENERIC_TYPES.map((name) => ({ name, model: name === 'ResourceClaim' ? 'CoreV1ResourceClaim' : `V1${name}` })),
];
