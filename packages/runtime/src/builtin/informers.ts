import type { KubeObject, ResourceDescriptor } from '../client/types.js';
import type { InformerOptions, SharedInformerFactory } from '../cache/factory.js';
import type { Lister } from '../cache/lister.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { builtinResources as r } from './resources.js';
import type * as t from './types.js';

/** A shared informer and a lister over its cache (objects from both are shared: read-only). */
export interface TypedInformer<T extends KubeObject> {
  readonly informer: SharedIndexInformer<T>;
  readonly lister: Lister<T>;
}

function typed<T extends KubeObject>(factory: SharedInformerFactory, d: ResourceDescriptor, opts: InformerOptions<T>): TypedInformer<T> {
  const informer = factory.informerFor<T>(d, opts);
  return { informer, lister: informer.lister() };
}

/**
 * Typed informers for the built-in kinds a controller typically owns or reads, from a runtime
 * `SharedInformerFactory` (the same factory generated `InformerFactory`s use, so caches are shared).
 */
export class KubeInformers {
  constructor(readonly factory: SharedInformerFactory) {}
  readonly coreV1 = {
    pods: (o: InformerOptions<t.Pod> = {}) => typed(this.factory, r.pods, o),
    services: (o: InformerOptions<t.Service> = {}) => typed(this.factory, r.services, o),
    configMaps: (o: InformerOptions<t.ConfigMap> = {}) => typed(this.factory, r.configMaps, o),
    secrets: (o: InformerOptions<t.Secret> = {}) => typed(this.factory, r.secrets, o),
    namespaces: (o: InformerOptions<t.Namespace> = {}) => typed(this.factory, r.namespaces, o),
    events: (o: InformerOptions<t.Event> = {}) => typed(this.factory, r.events, o),
    serviceAccounts: (o: InformerOptions<t.ServiceAccount> = {}) => typed(this.factory, r.serviceAccounts, o),
  };
  readonly appsV1 = {
    deployments: (o: InformerOptions<t.Deployment> = {}) => typed(this.factory, r.deployments, o),
    statefulSets: (o: InformerOptions<t.StatefulSet> = {}) => typed(this.factory, r.statefulSets, o),
    daemonSets: (o: InformerOptions<t.DaemonSet> = {}) => typed(this.factory, r.daemonSets, o),
    replicaSets: (o: InformerOptions<t.ReplicaSet> = {}) => typed(this.factory, r.replicaSets, o),
  };
  readonly batchV1 = {
    jobs: (o: InformerOptions<t.Job> = {}) => typed(this.factory, r.jobs, o),
  };
  readonly coordinationV1 = {
    leases: (o: InformerOptions<t.Lease> = {}) => typed(this.factory, r.leases, o),
  };
}
