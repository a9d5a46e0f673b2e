import type {
  V1Affinity,
  V1JobSpec,
  V1PodAffinityTerm,
  V1PodDNSConfig,
  V1ServiceSpec,
  V1Container,
  V1ContainerPort,
  V1EnvFromSource,
  V1EnvVar,
  V1Lifecycle,
  V1PersistentVolumeClaim,
  V1PersistentVolumeClaimSpec,
  V1PodSecurityContext,
  V1PodSpec,
  V1PodTemplateSpec,
  V1Probe,
  V1ResourceRequirements,
  V1SecurityContext,
  V1Toleration,
  V1TopologySpreadConstraint,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import type { Wire } from './wire.js';

/*
 * Core Kubernetes structs that custom resources embed (a Deployment-like CRD's `spec.template`, an operator's
 * containers, volumes, affinity, tolerations…), as plain JSON types from `@kubernetes/client-node`'s models.
 * `codegen generate` types the matching parts of a CRD's schema with these (see kubegen's
 * `src/generate/types/core-types.ts`), so a built-in `PodTemplateSpec` can be assigned to a custom resource's
 * `spec.template` without a cast. Generated deep copies copy them with `deepCopyJSON`.
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
