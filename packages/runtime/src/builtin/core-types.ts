import type {
  CoreV1ResourceClaim, V1Affinity, V1AppArmorProfile, V1Capabilities, V1ClientIPConfig, V1ConfigMapEnvSource,
  V1Container, V1ContainerPort, V1ContainerResizePolicy, V1ContainerRestartRule, V1ContainerRestartRuleOnExitCodes,
  V1EnvFromSource, V1EnvVar, V1EnvVarSource, V1EphemeralContainer, V1ExecAction, V1FileKeySelector, V1GRPCAction,
  V1HTTPGetAction, V1HTTPHeader, V1HostAlias, V1JobSpec, V1Lifecycle, V1LifecycleHandler, V1NodeAffinity,
  V1NodeSelector, V1NodeSelectorRequirement, V1NodeSelectorTerm, V1ObjectFieldSelector, V1PersistentVolumeClaim,
  V1PersistentVolumeClaimSpec, V1PodAffinity, V1PodAffinityTerm, V1PodAntiAffinity, V1PodDNSConfig,
  V1PodDNSConfigOption, V1PodOS, V1PodReadinessGate, V1PodResourceClaim, V1PodSchedulingGate, V1PodSchedulingGroup,
  V1PodSecurityContext, V1PodSpec, V1PodTemplateSpec, V1PreferredSchedulingTerm, V1Probe, V1ResourceFieldSelector,
  V1ResourceRequirements, V1SELinuxOptions, V1SeccompProfile, V1SecretEnvSource, V1SecurityContext, V1ServicePort,
  V1ServiceSpec, V1SessionAffinityConfig, V1SleepAction, V1Sysctl, V1TCPSocketAction, V1Toleration,
  V1TopologySpreadConstraint, V1Volume, V1VolumeDevice, V1VolumeMount, V1WeightedPodAffinityTerm,
  V1WindowsSecurityContextOptions,
} from '@kubernetes/client-node';
import type { Wire } from './wire.js';

/*
 * Core Kubernetes structs that custom resources embed (a Deployment-like CRD's `spec.template`, an operator's
 * containers, volumes, affinity, tolerations…), as plain JSON types from `@kubernetes/client-node`'s models.
 * `codegen generate` types the matching parts of a CRD's schema with these (see kubegen's
 * `src/generate/types/core-types.ts`), so a built-in `PodTemplateSpec` can be assigned to a custom resource's
 * `spec.template` without a cast. Generated deep copies copy them with `deepCopyJSON`.
 *
 * Every core/v1 struct reachable from PodTemplateSpec, ServiceSpec and PersistentVolumeClaimSpec is here or in
 * `core-volume-types.ts` (volume sources), so a CRD never carries its own copy of one (kubegen's
 * `test/unit/core-types-coverage.test.ts` checks it against the models).
 */

/** batch/v1 JobSpec: the pod template, parallelism, completions and retry policy of a Job. */
export type JobSpec = Wire<V1JobSpec>;
/** core/v1 ServiceSpec: ports, selector and type of a Service. */
export type ServiceSpec = Wire<V1ServiceSpec>;
/** core/v1 PodAffinityTerm: pods (by label selector) to be co-located with, or kept apart from, on a topology key. */
export type PodAffinityTerm = Wire<V1PodAffinityTerm>;
/** core/v1 PodDNSConfig: nameservers, search domains and resolver options of a pod. */
export type PodDNSConfig = Wire<V1PodDNSConfig>;
/** core/v1 PodTemplateSpec: the metadata and spec of the pods a workload creates. */
export type PodTemplateSpec = Wire<V1PodTemplateSpec>;
/** core/v1 PodSpec: containers, volumes, scheduling and security settings of a pod. */
export type PodSpec = Wire<V1PodSpec>;
/** core/v1 Container: one container of a pod. */
export type Container = Wire<V1Container>;
/** core/v1 ContainerPort: a port a container exposes. */
export type ContainerPort = Wire<V1ContainerPort>;
/** core/v1 EnvVar: one environment variable of a container, a value or a reference. */
export type EnvVar = Wire<V1EnvVar>;
/** core/v1 EnvFromSource: environment variables from every key of a ConfigMap or Secret. */
export type EnvFromSource = Wire<V1EnvFromSource>;
/** core/v1 Volume: a named volume of a pod. */
export type Volume = Wire<V1Volume>;
/** core/v1 VolumeMount: where a volume is mounted in a container. */
export type VolumeMount = Wire<V1VolumeMount>;
/** core/v1 ResourceRequirements: resource requests and limits (quantities as strings, e.g. `"500m"`). */
export type ResourceRequirements = Wire<V1ResourceRequirements>;
/** core/v1 Affinity: node affinity, pod affinity and pod anti-affinity rules. */
export type Affinity = Wire<V1Affinity>;
/** core/v1 Toleration: lets a pod schedule onto nodes with a matching taint. */
export type Toleration = Wire<V1Toleration>;
/** core/v1 TopologySpreadConstraint: how pods spread across a topology domain. */
export type TopologySpreadConstraint = Wire<V1TopologySpreadConstraint>;
/** core/v1 SecurityContext: a container's security settings. */
export type SecurityContext = Wire<V1SecurityContext>;
/** core/v1 PodSecurityContext: pod-level security settings. */
export type PodSecurityContext = Wire<V1PodSecurityContext>;
/** core/v1 Probe: a liveness, readiness or startup check. */
export type Probe = Wire<V1Probe>;
/** core/v1 Lifecycle: postStart and preStop hooks of a container. */
export type Lifecycle = Wire<V1Lifecycle>;
/** core/v1 PersistentVolumeClaim: a claim (e.g. a StatefulSet-like CRD's volume claim template). */
export type PersistentVolumeClaim = Wire<V1PersistentVolumeClaim>;
/** core/v1 PersistentVolumeClaimSpec: access modes, storage class and size of a claim. */
export type PersistentVolumeClaimSpec = Wire<V1PersistentVolumeClaimSpec>;

// Scheduling: node and pod affinity
/** core/v1 NodeAffinity: node affinity: required and preferred rules on the labels of the nodes a pod may run on. */
export type NodeAffinity = Wire<V1NodeAffinity>;
/** core/v1 PreferredSchedulingTerm: a weighted node selector term: nodes matching it are preferred by `weight`. */
export type PreferredSchedulingTerm = Wire<V1PreferredSchedulingTerm>;
/** core/v1 NodeSelectorTerm: one term of a node selector: label expressions and field expressions that must all match. */
export type NodeSelectorTerm = Wire<V1NodeSelectorTerm>;
/** core/v1 NodeSelectorRequirement: a key, an operator (`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`) and values over node labels or fields. */
export type NodeSelectorRequirement = Wire<V1NodeSelectorRequirement>;
/** core/v1 NodeSelector: a list of node selector terms, any one of which a node must match. */
export type NodeSelector = Wire<V1NodeSelector>;
/** core/v1 PodAffinity: rules that place a pod on the same topology domain as other pods. */
export type PodAffinity = Wire<V1PodAffinity>;
/** core/v1 WeightedPodAffinityTerm: a pod affinity term with a weight (1-100) for preferred scheduling. */
export type WeightedPodAffinityTerm = Wire<V1WeightedPodAffinityTerm>;
/** core/v1 PodAntiAffinity: rules that keep a pod off the topology domains of other pods. */
export type PodAntiAffinity = Wire<V1PodAntiAffinity>;

// Containers: environment, lifecycle hooks and probes, security, resources
/** core/v1 EnvVarSource: where an environment variable's value comes from: a ConfigMap or Secret key, a pod field, a container resource or a file. */
export type EnvVarSource = Wire<V1EnvVarSource>;
/** core/v1 ObjectFieldSelector: a field of the pod (`metadata.name`, `status.podIP`, …) by its path, for the downward API. */
export type ObjectFieldSelector = Wire<V1ObjectFieldSelector>;
/** core/v1 FileKeySelector: a key of an env file in a volume. */
export type FileKeySelector = Wire<V1FileKeySelector>;
/** core/v1 ResourceFieldSelector: a container's resource (limits.cpu, requests.memory, …) in a given unit, for the downward API. */
export type ResourceFieldSelector = Wire<V1ResourceFieldSelector>;
/** core/v1 ConfigMapEnvSource: a ConfigMap whose keys all become environment variables. */
export type ConfigMapEnvSource = Wire<V1ConfigMapEnvSource>;
/** core/v1 SecretEnvSource: a Secret whose keys all become environment variables. */
export type SecretEnvSource = Wire<V1SecretEnvSource>;
/** core/v1 LifecycleHandler: what a lifecycle hook does: run a command, an HTTP GET, a TCP check or a sleep. */
export type LifecycleHandler = Wire<V1LifecycleHandler>;
/** core/v1 ExecAction: a command run in the container. */
export type ExecAction = Wire<V1ExecAction>;
/** core/v1 HTTPGetAction: an HTTP GET request: path, port, host, scheme and headers. */
export type HTTPGetAction = Wire<V1HTTPGetAction>;
/** core/v1 HTTPHeader: one header of a probe's HTTP request. */
export type HTTPHeader = Wire<V1HTTPHeader>;
/** core/v1 SleepAction: a pause of a number of seconds. */
export type SleepAction = Wire<V1SleepAction>;
/** core/v1 TCPSocketAction: a TCP connection to a port. */
export type TCPSocketAction = Wire<V1TCPSocketAction>;
/** core/v1 GRPCAction: a gRPC health check on a port. */
export type GRPCAction = Wire<V1GRPCAction>;
/** core/v1 ContainerResizePolicy: whether resizing a resource in place restarts the container. */
export type ContainerResizePolicy = Wire<V1ContainerResizePolicy>;
/** core/v1 ResourceClaim: one entry of the pod's resource claims a container uses (dynamic resource allocation). */
export type ResourceClaim = Wire<CoreV1ResourceClaim>;
/** core/v1 ContainerRestartRule: what to do when a container exits with given exit codes. */
export type ContainerRestartRule = Wire<V1ContainerRestartRule>;
/** core/v1 ContainerRestartRuleOnExitCodes: the exit codes a container restart rule applies to. */
export type ContainerRestartRuleOnExitCodes = Wire<V1ContainerRestartRuleOnExitCodes>;
/** core/v1 AppArmorProfile: the AppArmor profile of a pod or container. */
export type AppArmorProfile = Wire<V1AppArmorProfile>;
/** core/v1 Capabilities: POSIX capabilities added to and dropped from a container. */
export type Capabilities = Wire<V1Capabilities>;
/** core/v1 SELinuxOptions: the SELinux labels of a container. */
export type SELinuxOptions = Wire<V1SELinuxOptions>;
/** core/v1 SeccompProfile: the seccomp profile of a pod or container. */
export type SeccompProfile = Wire<V1SeccompProfile>;
/** core/v1 WindowsSecurityContextOptions: Windows-specific security settings (GMSA, run-as user, host process). */
export type WindowsSecurityContextOptions = Wire<V1WindowsSecurityContextOptions>;
/** core/v1 VolumeDevice: where a raw block volume appears in a container. */
export type VolumeDevice = Wire<V1VolumeDevice>;
/** core/v1 EphemeralContainer: a container added to a running pod, for debugging. */
export type EphemeralContainer = Wire<V1EphemeralContainer>;

// Pods: DNS, hosts, OS, readiness, resource claims, scheduling gates, sysctls
/** core/v1 PodDNSConfigOption: one resolver option of a pod's DNS config. */
export type PodDNSConfigOption = Wire<V1PodDNSConfigOption>;
/** core/v1 HostAlias: an IP address and the host names written for it into the pod's hosts file. */
export type HostAlias = Wire<V1HostAlias>;
/** core/v1 PodOS: the operating system a pod's containers need. */
export type PodOS = Wire<V1PodOS>;
/** core/v1 PodReadinessGate: a pod condition that must be true for the pod to be ready. */
export type PodReadinessGate = Wire<V1PodReadinessGate>;
/** core/v1 PodResourceClaim: a resource claim of a pod, by name or by template (dynamic resource allocation). */
export type PodResourceClaim = Wire<V1PodResourceClaim>;
/** core/v1 PodSchedulingGate: a gate that holds a pod back from scheduling until it is removed. */
export type PodSchedulingGate = Wire<V1PodSchedulingGate>;
/** core/v1 PodSchedulingGroup: the scheduling group a pod belongs to. */
export type PodSchedulingGroup = Wire<V1PodSchedulingGroup>;
/** core/v1 Sysctl: a kernel parameter set for a pod. */
export type Sysctl = Wire<V1Sysctl>;

// Services
/** core/v1 ServicePort: one port of a Service: name, protocol, port, target port and node port. */
export type ServicePort = Wire<V1ServicePort>;
/** core/v1 SessionAffinityConfig: the session affinity settings of a Service. */
export type SessionAffinityConfig = Wire<V1SessionAffinityConfig>;
/** core/v1 ClientIPConfig: the timeout of client-IP session affinity. */
export type ClientIPConfig = Wire<V1ClientIPConfig>;
