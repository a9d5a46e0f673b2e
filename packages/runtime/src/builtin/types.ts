import type {
  CoreV1Event,
  CoreV1EventList,
  V1ConfigMap,
  V1ConfigMapList,
  V1DaemonSet,
  V1DaemonSetList,
  V1Deployment,
  V1DeploymentList,
  V1Job,
  V1JobList,
  V1Lease,
  V1LeaseList,
  V1Namespace,
  V1NamespaceList,
  V1Pod,
  V1PodList,
  V1ReplicaSet,
  V1ReplicaSetList,
  V1Secret,
  V1SecretList,
  V1Service,
  V1ServiceAccount,
  V1ServiceAccountList,
  V1ServiceList,
  V1StatefulSet,
  V1StatefulSetList,
} from '@kubernetes/client-node';
import type { Wire } from './wire.js';

/** Built-in kinds as plain JSON objects, typed with `@kubernetes/client-node`'s models (timestamps as strings). */
export type Pod = Wire<V1Pod>;
/** A core/v1 `PodList` as JSON. */
export type PodList = Wire<V1PodList>;
/** A core/v1 `Service` as JSON: a stable virtual IP and DNS name in front of the pods its selector matches. */
export type Service = Wire<V1Service>;
/** A core/v1 `ServiceList` as JSON. */
export type ServiceList = Wire<V1ServiceList>;
/** A core/v1 `ConfigMap` as JSON: non-secret configuration as string (`data`) or base64 (`binaryData`) values. */
export type ConfigMap = Wire<V1ConfigMap>;
/** A core/v1 `ConfigMapList` as JSON. */
export type ConfigMapList = Wire<V1ConfigMapList>;
/** A core/v1 `Secret` as JSON: `data` values are base64-encoded on the wire; `stringData` is write-only plain text. */
export type Secret = Wire<V1Secret>;
/** A core/v1 `SecretList` as JSON. */
export type SecretList = Wire<V1SecretList>;
/** A core/v1 `Namespace` as JSON (cluster-scoped). */
export type Namespace = Wire<V1Namespace>;
/** A core/v1 `NamespaceList` as JSON. */
export type NamespaceList = Wire<V1NamespaceList>;
/** A core/v1 `Event` as JSON (what `EventRecorder` writes; not the events.k8s.io/v1 kind). */
export type Event = Wire<CoreV1Event>;
/** A core/v1 `EventList` as JSON. */
export type EventList = Wire<CoreV1EventList>;
/** A core/v1 `ServiceAccount` as JSON: the identity pods run as. */
export type ServiceAccount = Wire<V1ServiceAccount>;
/** A core/v1 `ServiceAccountList` as JSON. */
export type ServiceAccountList = Wire<V1ServiceAccountList>;
/** An apps/v1 `Deployment` as JSON: declarative rollouts of a pod template through ReplicaSets. */
export type Deployment = Wire<V1Deployment>;
/** An apps/v1 `DeploymentList` as JSON. */
export type DeploymentList = Wire<V1DeploymentList>;
/** An apps/v1 `StatefulSet` as JSON: pods with stable names and per-pod volume claims. */
export type StatefulSet = Wire<V1StatefulSet>;
/** An apps/v1 `StatefulSetList` as JSON. */
export type StatefulSetList = Wire<V1StatefulSetList>;
/** An apps/v1 `DaemonSet` as JSON: one pod per (matching) node. */
export type DaemonSet = Wire<V1DaemonSet>;
/** An apps/v1 `DaemonSetList` as JSON. */
export type DaemonSetList = Wire<V1DaemonSetList>;
/** An apps/v1 `ReplicaSet` as JSON: keeps a number of identical pods running (usually owned by a Deployment). */
export type ReplicaSet = Wire<V1ReplicaSet>;
/** An apps/v1 `ReplicaSetList` as JSON. */
export type ReplicaSetList = Wire<V1ReplicaSetList>;
/** A batch/v1 `Job` as JSON: runs pods until a number of them complete. */
export type Job = Wire<V1Job>;
/** A batch/v1 `JobList` as JSON. */
export type JobList = Wire<V1JobList>;
/** A coordination.k8s.io/v1 `Lease` as JSON: what leader election (`LeaseLock`) holds and renews. */
export type Lease = Wire<V1Lease>;
/** A coordination.k8s.io/v1 `LeaseList` as JSON. */
export type LeaseList = Wire<V1LeaseList>;
