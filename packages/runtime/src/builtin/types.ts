/** The built-in kinds the runtime exported before the whole API was generated, under their names (wire-true types). */
export type {
  ConfigMap, ConfigMapList, Event, EventList, Namespace, NamespaceList, Pod, PodList, Secret, SecretList, Service, ServiceAccount,
  ServiceAccountList, ServiceList,
} from '../api/core/v1/types.js';
export type { DaemonSet, DaemonSetList, Deployment, DeploymentList, ReplicaSet, ReplicaSetList, StatefulSet, StatefulSetList } from '../api/apps/v1/types.js';
export type { Job, JobList } from '../api/batch/v1/types.js';
export type { Lease, LeaseList } from '../api/coordination/v1/types.js';
