/**
 * Requests of a multi-cluster controller (multicluster-runtime's `mcreconcile.Request`): the namespace/name of an
 * object plus the name of the cluster it lives in. The hub (the manager's own cluster) is {@link HUB_CLUSTER}, `''`.
 *
 * Queue keys are `<cluster>/<namespace>/<name>` with the cluster percent-encoded (`encodeURIComponent`), so a
 * cluster name may hold any character, `/` included, and every key decodes to exactly one request.
 */
import type { Request } from '../reconcile/request.js';

/** The name of the hub, the manager's own cluster, in requests and `getCluster` (multicluster-runtime's `""`). */
export const HUB_CLUSTER = '';

/** What to reconcile, and in which cluster. `namespace` is `''` for cluster-scoped objects. */
export interface ClusterRequest extends Request {
  /** The engaged cluster's name; {@link HUB_CLUSTER} (`''`) for the hub. */
  cluster: string;
}

/**
 * A request as handlers may produce it: without `cluster` it is for the cluster whose event produced it (for a
 * fan-out watch, the member the source feeds), with `cluster` for that cluster.
 */
export type MaybeClusterRequest = Request & { cluster?: string };

/** The queue key of `req` (see the module comment). */
export function clusterRequestKey(req: ClusterRequest): string {
  return `${encodeURIComponent(req.cluster)}/${req.namespace}/${req.name}`;
}

/** Inverse of {@link clusterRequestKey}; throws a `TypeError` naming the key when it is not one. */
export function clusterRequestFromKey(key: string): ClusterRequest {
  const a = key.indexOf('/');
  const b = a < 0 ? -1 : key.indexOf('/', a + 1);
  if (b < 0) throw new TypeError(`not a cluster request key (want <cluster>/<namespace>/<name>): ${JSON.stringify(key)}`);
  return { cluster: decodeURIComponent(key.slice(0, a)), namespace: key.slice(a + 1, b), name: key.slice(b + 1) };
}

/** `cluster://<cluster>/<namespace>/<name>` (`cluster:///ns/name` for the hub): a request in log lines and errors. */
export function formatClusterRequest(req: ClusterRequest): string {
  return `cluster://${req.cluster}/${req.namespace ? `${req.namespace}/` : ''}${req.name}`;
}
