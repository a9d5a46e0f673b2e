/**
 * `@kubegen/runtime/multicluster`: many clusters (sigs.k8s.io/multicluster-runtime `mcmanager`, `mcbuilder`,
 * `mcreconcile`, providers).
 */
export { MultiClusterManager, type ClusterStatus, type MultiClusterManagerOptions } from '../multicluster/manager.js';
export { ClusterNotEngagedError, type ClusterAware, type ClusterProvider } from '../multicluster/provider.js';
export {
  clusterRequestFromKey, clusterRequestKey, formatClusterRequest, HUB_CLUSTER, type ClusterRequest,
  type MaybeClusterRequest
} from '../multicluster/request.js';
export {
  MultiClusterController, type ClusterLaneStatus, type ClusterReconcileContext, type ClusterReconcileFunc,
  type ClusterReconciler, type ClusterRequestSink, type MultiClusterControllerOptions
} from '../multicluster/controller.js';
export {
  MultiClusterControllerBuilder, multiClusterControllerFor, newMultiClusterControllerManagedBy,
  type ClusterEventHandler, type ClusterOwnsOptions, type ClusterScope, type ClusterWatchOptions
} from '../multicluster/builder.js';
export { enqueueInCluster, enqueueInHub } from '../multicluster/handlers.js';
export { ClusterSharder, type ClusterShardingOptions } from '../multicluster/cluster-sharding.js';
export {
  DEFAULT_MEMBER_REQUEST_TIMEOUT_MS, type MemberClusterOptions
} from '../multicluster/providers/member-cluster.js';
export {
  StaticKubeconfigProvider, type StaticCluster, type StaticKubeconfigProviderOptions
} from '../multicluster/providers/static.js';
export {
  KUBECONFIG_SECRET_KEY, KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider, type KubeconfigSecretProviderOptions
} from '../multicluster/providers/kubeconfig-secrets.js';
