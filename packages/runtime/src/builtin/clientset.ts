import type { ResourceInterface, ScaleInterface, StatusInterface } from '../client/interfaces.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeObject, ResourceDescriptor, Transport } from '../client/types.js';
import { builtinResources as r } from './resources.js';
import type * as t from './types.js';

type Client<T extends KubeObject, L extends { items: T[] }> = ResourceInterface<T, L & { items: T[] }> & StatusInterface<T>;
type Scalable<T extends KubeObject, L extends { items: T[] }> = Client<T, L> & ScaleInterface;

function client<T extends KubeObject, L extends { items: T[] }>(transport: Transport, d: ResourceDescriptor, ns?: string): Scalable<T, L> {
  return new ResourceClient<T, L & { items: T[] }>(transport, d, ns);
}

/** core/v1 */
export class CoreV1Client {
  constructor(readonly transport: Transport) {}
  pods(namespace: string): Client<t.Pod, t.PodList> {
    return client(this.transport, r.pods, namespace);
  }
  services(namespace: string): Client<t.Service, t.ServiceList> {
    return client(this.transport, r.services, namespace);
  }
  configMaps(namespace: string): ResourceInterface<t.ConfigMap, t.ConfigMapList> {
    return client(this.transport, r.configMaps, namespace);
  }
  secrets(namespace: string): ResourceInterface<t.Secret, t.SecretList> {
    return client(this.transport, r.secrets, namespace);
  }
  namespaces(): Client<t.Namespace, t.NamespaceList> {
    return client(this.transport, r.namespaces);
  }
  events(namespace: string): ResourceInterface<t.Event, t.EventList> {
    return client(this.transport, r.events, namespace);
  }
  serviceAccounts(namespace: string): ResourceInterface<t.ServiceAccount, t.ServiceAccountList> {
    return client(this.transport, r.serviceAccounts, namespace);
  }
}

/** apps/v1 */
export class AppsV1Client {
  constructor(readonly transport: Transport) {}
  deployments(namespace: string): Scalable<t.Deployment, t.DeploymentList> {
    return client(this.transport, r.deployments, namespace);
  }
  statefulSets(namespace: string): Scalable<t.StatefulSet, t.StatefulSetList> {
    return client(this.transport, r.statefulSets, namespace);
  }
  daemonSets(namespace: string): Client<t.DaemonSet, t.DaemonSetList> {
    return client(this.transport, r.daemonSets, namespace);
  }
  replicaSets(namespace: string): Scalable<t.ReplicaSet, t.ReplicaSetList> {
    return client(this.transport, r.replicaSets, namespace);
  }
}

/** batch/v1 */
export class BatchV1Client {
  constructor(readonly transport: Transport) {}
  jobs(namespace: string): Client<t.Job, t.JobList> {
    return client(this.transport, r.jobs, namespace);
  }
}

/** coordination.k8s.io/v1 */
export class CoordinationV1Client {
  constructor(readonly transport: Transport) {}
  leases(namespace: string): ResourceInterface<t.Lease, t.LeaseList> {
    return client(this.transport, r.leases, namespace);
  }
}

/** Typed clients for the built-in kinds controllers use most, over any `Transport` (real or fake). */
export class KubeClientset {
  readonly coreV1: CoreV1Client;
  readonly appsV1: AppsV1Client;
  readonly batchV1: BatchV1Client;
  readonly coordinationV1: CoordinationV1Client;
  constructor(readonly transport: Transport) {
    this.coreV1 = new CoreV1Client(transport);
    this.appsV1 = new AppsV1Client(transport);
    this.batchV1 = new BatchV1Client(transport);
    this.coordinationV1 = new CoordinationV1Client(transport);
  }
}
