/**
 * Core Kubernetes structs that custom resources embed (a Deployment-like CRD's `spec.template`, an operator's
 * containers, volumes, affinity, tolerations…): the generated core/v1 (and batch/v1 `JobSpec`) types. `kubegen
 * generate` types the matching parts of a CRD's schema with these (see kubegen's `src/generate/types/core-types.ts`),
 * so a built-in `PodTemplateSpec` can be assigned to a custom resource's `spec.template` without a cast.
 */
export type { JobSpec } from '../api/batch/v1/types.js';
export type {
  Affinity, AppArmorProfile, Capabilities, ClientIPConfig, ConfigMapEnvSource, Container, ContainerPort,
  ContainerResizePolicy, ContainerRestartRule, ContainerRestartRuleOnExitCodes, EnvFromSource, EnvVar, EnvVarSource,
  EphemeralContainer, ExecAction, FileKeySelector, GRPCAction, HTTPGetAction, HTTPHeader, HostAlias, Lifecycle,
  LifecycleHandler, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, ObjectFieldSelector,
  PersistentVolumeClaim, PersistentVolumeClaimSpec, PodAffinity, PodAffinityTerm, PodAntiAffinity, PodDNSConfig,
  PodDNSConfigOption, PodOS, PodReadinessGate, PodResourceClaim, PodSchedulingGate, PodSchedulingGroup,
  PodSecurityContext, PodSpec, PodTemplateSpec, PreferredSchedulingTerm, Probe, ResourceClaim, ResourceFieldSelector,
  ResourceRequirements, SELinuxOptions, SeccompProfile, SecretEnvSource, SecurityContext, ServicePort, ServiceSpec,
  SessionAffinityConfig, SleepAction, Sysctl, TCPSocketAction, Toleration, TopologySpreadConstraint, Volume,
  VolumeDevice, VolumeMount, WeightedPodAffinityTerm, WindowsSecurityContextOptions,
} from '../api/core/v1/types.js';
