/**
 * Handlers that map across clusters (multicluster-runtime's `mchandler`): a request a handler adds may name the
 * cluster it is for; these build such handlers.
 */
import { objectFromDeleted, type DeletedFinalStateUnknown } from '../cache/keys.js';
import type { KubeObject } from '../client/types.js';
import type { EventHandler } from '../handler/handler.js';
import type { Request } from '../reconcile/request.js';
import type { ClusterRequestSink } from './controller.js';
import { HUB_CLUSTER, type MaybeClusterRequest } from './request.js';

/**
 * Requests for cluster `cluster`: the object's own namespace/name, or what `map` returns for it (old and new object
 * on update). For a member object reporting back to its owner in the hub use {@link enqueueInHub}.
 */
export function enqueueInCluster<T extends KubeObject = KubeObject>(cluster: string, map?: (obj: T) => Request[]): EventHandler<T> {
  const requests = (obj: T): MaybeClusterRequest[] => {
    if (map) return map(obj).map((r) => ({ cluster, namespace: r.namespace, name: r.name }));
    const name = obj.metadata?.name;
    return name ? [{ cluster, namespace: obj.metadata?.namespace ?? '', name }] : [];
  };
  const put = (obj: T, sink: ClusterRequestSink): void => requests(obj).forEach((r) => sink.add(r));
  return {
    create: (o, sink) => put(o, sink),
    update: (o, n, sink) => {
      if (map) put(o, sink);
      put(n, sink);
    },
    delete: (o: T | DeletedFinalStateUnknown<T>, sink) => put(objectFromDeleted(o), sink),
    generic: (o, sink) => put(o, sink),
  };
}

/**
 * Requests in the hub: a member object reporting back to its owner there — by default the hub object of the same
 * namespace and name (what a fan-out controller writes), else what `map` returns.
 */
export function enqueueInHub<T extends KubeObject = KubeObject>(map?: (obj: T) => Request[]): EventHandler<T> {
  return enqueueInCluster(HUB_CLUSTER, map);
}
