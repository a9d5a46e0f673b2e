/**
 * `@kubegen/runtime/multicluster`: many clusters (sigs.k8s.io/multicluster-runtime `mcmanager`, `mcbuilder`,
 * `mcreconcile`, providers).
 */
export { MultiClusterManager } from '../multicluster/manager.js';
export type { ClusterStatus, MultiClusterManagerOptions } from '../multicluster/manager.js';
export { ClusterNotEngagedError } from '../multicluster/provider.js';
export type { ClusterAware, ClusterProvider } from '../multicluster/provider.js';
export {
  clusterRequestFromKey, clusterRequestKey, formatClusterRequest, HUB_CLUSTER
} from '../multicluster/request.js';
export type { ClusterRequest, MaybeClusterRequest } from '../multicluster/request.js';
export { MultiClusterController } from '../multicluster/controller.js';
export type {
  ClusterLaneStatus, ClusterReconcileContext, ClusterReconcileFunc, ClusterReconciler, ClusterRequestSink,
  MultiClusterControllerOptions
} from '../multicluster/controller.js';
export {
  MultiClusterControllerBuilder, multiClusterControllerFor, newMultiClusterControllerManagedBy
} from '../multicluster/builder.js';
export type {
  ClusterEventHandler, ClusterOwnsOptions, ClusterScope, ClusterWatchOptions
} from '../multicluster/builder.js';
export { enqueueInCluster, enqueueInHub } from '../multicluster/handlers.js';
export { ClusterSharder } from '../multicluster/cluster-sharding.js';
export type { ClusterShardingOptions } from '../multicluster/cluster-sharding.js';
export { DEFAULT_MEMBER_REQUEST_TIMEOUT_MS } from '../multicluster/providers/member-cluster.js';
export type { MemberClusterOptions } from '../multicluster/providers/member-cluster.js';
export { StaticKubeconfigProvider } from '../multicluster/providers/static.js';
export type { StaticCluster, StaticKubeconfigProviderOptions } from '../multicluster/providers/static.js';
export {
  KUBECONFIG_SECRET_KEY, KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider
} from '../multicluster/providers/kubeconfig-secrets.js';
export type { KubeconfigSecretProviderOptions } from '../multicluster/providers/kubeconfig-secrets.js';
