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
export type PodList = Wire<V1PodList>;
export type Service = Wire<V1Service>;
export type ServiceList = Wire<V1ServiceList>;
export type ConfigMap = Wire<V1ConfigMap>;
export type ConfigMapList = Wire<V1ConfigMapList>;
export type Secret = Wire<V1Secret>;
export type SecretList = Wire<V1SecretList>;
export type Namespace = Wire<V1Namespace>;
export type NamespaceList = Wire<V1NamespaceList>;
export type Event = Wire<CoreV1Event>;
export type EventList = Wire<CoreV1EventList>;
export type ServiceAccount = Wire<V1ServiceAccount>;
export type ServiceAccountList = Wire<V1ServiceAccountList>;
export type Deployment = Wire<V1Deployment>;
export type DeploymentList = Wire<V1DeploymentList>;
export type StatefulSet = Wire<V1StatefulSet>;
export type StatefulSetList = Wire<V1StatefulSetList>;
export type DaemonSet = Wire<V1DaemonSet>;
export type DaemonSetList = Wire<V1DaemonSetList>;
export type ReplicaSet = Wire<V1ReplicaSet>;
export type ReplicaSetList = Wire<V1ReplicaSetList>;
export type Job = Wire<V1Job>;
export type JobList = Wire<V1JobList>;
export type Lease = Wire<V1Lease>;
export type LeaseList = Wire<V1LeaseList>;
