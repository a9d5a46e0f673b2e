/**
 * `@kubegen/runtime`: what generated code and controllers import. Never imports the generator side.
 *
 * This file is the public API, name by name: what generated code, the scaffold's templates, the README and the
 * examples use, and what users need to write and test controllers. Everything else under `src/` is internal
 * (reachable only by the repository's tests, through the `kubegen-internal` export condition), so it can change
 * without a breaking release. Test helpers are the separate entry points `@kubegen/runtime/testing` (all of them),
 * `@kubegen/runtime/testing/fake` and `@kubegen/runtime/testing/envtest`.
 *
 * Each `//` section below is a page of the API reference (docs/api/runtime/, `npm run docs`), titled by its comment.
 */

// Kubernetes object and API types
export { metadataAccept, PATCH_CONTENT_TYPES, toPartialObjectMetadata } from './client/types.js';
export type {
  AssociativeList, IntOrString, KubeList, KubeObject, ListMeta, ObjectMeta, OwnerReference, PatchType, QueryValue, ResourceDescriptor,
  RawRequestInit, RawResponse, ResourceInfo, ResourceRequest, ScalePaths, Status, Transport, Verb, Watch, WatchEvent,
  WatchEventType,
} from './client/types.js';
export type {
  Condition, ConfigMapKeySelector, Duration, float64, int32, int64, integer, JSONValue, LocalObjectReference,
  MicroTime, ObjectReference, Quantity, RawExtension, SecretKeySelector, Time, TypedLocalObjectReference,
} from './api-types.js';

// Clients: transport, kubeconfig, typed resource clients, API errors (client-go `rest`, `clientcmd`, `errors`)
export {
  createTransport, defaultNamespace, loadClientConfig, loadKubeConfig, loadRestConfig,
} from './client/kubeconfig.js';
export type { ClientOptions, LoadOptions } from './client/kubeconfig.js';
export { inClusterAvailable, inClusterRestConfig, SERVICE_ACCOUNT_DIR } from './client/rest-config.js';
export type { Impersonation, RestConfig } from './client/rest-config.js';
export { isRestConfig, KubeConfig, restConfigToKubeConfig } from './client/kubeconfig-model.js';
export type { KubeConfigCluster, KubeConfigContext, KubeConfigUser } from './client/kubeconfig-model.js';
export { ExecPluginError } from './client/exec-config.js';
export type { ExecConfig, ExecEnvVar, ExecInteractiveMode } from './client/exec-config.js';
export { DEFAULT_HTTP_ENGINE, HTTP_ENGINES, HttpTransport } from './client/http-transport.js';
export type { HttpEngine, TransportOptions } from './client/http-transport.js';
export { DEFAULT_PAGE_SIZE, ResourceClient } from './client/resource-client.js';
export type {
  ApplyOptions, CallOptions, CreateOptions, DeleteCollectionOptions, DeleteOptions, GetOptions, JsonPatchOperation,
  ListOptions, Patch, PatchOptions, Preconditions, ResourceInterface, Scale, ScaleInterface, StatusInterface,
  UpdateOptions, WatchOptions, WriteOptions,
} from './client/interfaces.js';
export {
  ApiError, ApplyConflictError, ConnectionStalledError, isAlreadyExists, isApplyConflict, isBadRequest, isConflict,
  isConnectionError, isForbidden, isGone, isInternalError, isInvalid, isMethodNotSupported, isNotFound, isNotServed,
  isStall, isTimeout, isTooLargeResourceVersion, isTooManyRequests, isUnauthorized, newStatus, ResourceNotServedError,
  retryReason,
} from './client/errors.js';
export type { ApplyConflict, FailedRequest, NotServedDetails } from './client/errors.js';
export { describeRequest } from './client/errors.js';
export { describeForbidden, explainError, forbiddenRequestOf, rbacMarkerFor } from './client/forbidden.js';
export type { ForbiddenRequest } from './client/forbidden.js';

// The dynamic client: kinds known only at run time, unstructured objects and their nested fields, the names and mappings it takes (client-go `dynamic`, apimachinery `unstructured`)
export { DynamicClient, DynamicResourceClient } from './dynamic/dynamic-client.js';
export { DynamicSharedInformerFactory } from './dynamic/dynamic-informer.js';
export type { DynamicInformer, DynamicInformerOptions, DynamicResourceRef } from './dynamic/dynamic-informer.js';
export { fromUnstructured, groupVersionKindOf, isObjectOfKind, setListItemKinds, toUnstructured } from './dynamic/unstructured.js';
export type { Unstructured, UnstructuredList } from './dynamic/unstructured.js';
export {
  nestedBool, nestedField, NestedFieldError, nestedInt64, nestedMap, nestedNumber, nestedSlice, nestedString,
  nestedStringMap, nestedStringSlice, removeNestedField, setNestedField, statusConditionsOf,
} from './dynamic/nested.js';
export type { Nested } from './dynamic/nested.js';
export { isValidPathSegmentName, pathSegmentErrors } from './dynamic/path-segment.js';

// Server-side apply: apply configurations (generated `applyconfigurations.ts` builds on these), default field manager
export { defaultFieldManager, FALLBACK_FIELD_MANAGER } from './client/apply.js';
export type { ApplyConfiguration, ApplyObject, ApplyObjectMeta, ListMapEntry } from './client/apply.js';

// Built-in kinds: typed clientset, informers and resources for core, apps, batch, coordination; core structs CRDs embed
export type {
  ConfigMap, ConfigMapList, DaemonSet, DaemonSetList, Deployment, DeploymentList, Event, EventList, Job, JobList,
  Lease, LeaseList, Namespace, NamespaceList, Pod, PodList, ReplicaSet, ReplicaSetList, Secret, SecretList, Service,
  ServiceAccount, ServiceAccountList, ServiceList, StatefulSet, StatefulSetList,
} from './builtin/types.js';
export type {
  Affinity, AppArmorProfile, Capabilities, ClientIPConfig, ConfigMapEnvSource, Container, ContainerPort,
  ContainerResizePolicy, ContainerRestartRule, ContainerRestartRuleOnExitCodes, EnvFromSource, EnvVar, EnvVarSource,
  EphemeralContainer, ExecAction, FileKeySelector, GRPCAction, HTTPGetAction, HTTPHeader, HostAlias, JobSpec,
  Lifecycle, LifecycleHandler, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
  ObjectFieldSelector, PersistentVolumeClaim, PersistentVolumeClaimSpec, PodAffinity, PodAffinityTerm,
  PodAntiAffinity, PodDNSConfig, PodDNSConfigOption, PodOS, PodReadinessGate, PodResourceClaim, PodSchedulingGate,
  PodSchedulingGroup, PodSecurityContext, PodSpec, PodTemplateSpec, PreferredSchedulingTerm, Probe, ResourceClaim,
  ResourceFieldSelector, ResourceRequirements, SELinuxOptions, SeccompProfile, SecretEnvSource, SecurityContext,
  ServicePort, ServiceSpec, SessionAffinityConfig, SleepAction, Sysctl, TCPSocketAction, Toleration,
  TopologySpreadConstraint, Volume, VolumeDevice, VolumeMount, WeightedPodAffinityTerm,
  WindowsSecurityContextOptions,
} from './builtin/core-types.js';
export type {
  AWSElasticBlockStoreVolumeSource, AzureDiskVolumeSource, AzureFileVolumeSource, CSIVolumeSource,
  CephFSVolumeSource, CinderVolumeSource, ClusterTrustBundleProjection, ConfigMapProjection, ConfigMapVolumeSource,
  DownwardAPIProjection, DownwardAPIVolumeFile, DownwardAPIVolumeSource, EmptyDirVolumeSource, EphemeralVolumeSource,
  FCVolumeSource, FlexVolumeSource, FlockerVolumeSource, GCEPersistentDiskVolumeSource, GitRepoVolumeSource,
  GlusterfsVolumeSource, HostPathVolumeSource, ISCSIVolumeSource, ImageVolumeSource, KeyToPath, NFSVolumeSource,
  PersistentVolumeClaimTemplate, PersistentVolumeClaimVolumeSource, PhotonPersistentDiskVolumeSource,
  PodCertificateProjection, PortworxVolumeSource, ProjectedVolumeSource, QuobyteVolumeSource, RBDVolumeSource,
  ScaleIOVolumeSource, SecretProjection, SecretVolumeSource, ServiceAccountTokenProjection, StorageOSVolumeSource,
  TypedObjectReference, VolumeProjection, VolumeResourceRequirements, VsphereVirtualDiskVolumeSource,
} from './builtin/core-volume-types.js';
export type { Wire } from './builtin/wire.js';
export { builtinResources } from './builtin/resources.js';
export { AppsV1Client, BatchV1Client, CoordinationV1Client, CoreV1Client, KubeClientset } from './builtin/clientset.js';
export { KubeInformers } from './builtin/informers.js';
export type { TypedInformer } from './builtin/informers.js';

// Discovery and the RESTMapper: what the server serves, kinds to resources and back, kubectl's names
// (client-go `discovery`, `discovery/cached/memory`, `restmapper`; controller-runtime's dynamic RESTMapper)
export { DiscoveryClient, discoveryFailure, GroupDiscoveryFailedError, preferredResources } from './discovery/discovery-client.js';
export type { DiscoveryClientOptions, DiscoveryResult, GroupsAndMaybeResources, ServerVersionInfo } from './discovery/discovery-client.js';
export { CachedDiscoveryClient, CacheNotFoundError, isTransientDiscoveryError } from './discovery/cached-discovery.js';
export { StaleGroupVersionError } from './discovery/discovery-formats.js';
export { compareVersionPriority, sortByVersionPriority } from './discovery/version-priority.js';
export { groupVersionString, parseGroupVersion, resourceInfoOf } from './discovery/types.js';
export type {
  APIGroupInfo, APIResourceInfo, APISubresourceInfo, GroupKind, GroupResource, GroupVersionKind, GroupVersionResource,
} from './discovery/types.js';
export { DynamicRESTMapper } from './restmapper/dynamic-mapper.js';
export type { DynamicRESTMapperOptions } from './restmapper/dynamic-mapper.js';
export { AmbiguousResourceError, isNoMatchError, mappingOf, NoKindMatchError, NoResourceMatchError } from './restmapper/types.js';
export type { PartialResource, RESTMapper, RESTMapping } from './restmapper/types.js';

// Deep copy helpers used by generated code
export { deepCopyJSON, setOwnKey } from './deepcopy.js';

// The cache: shared informers, informer factory, indexers, listers, keys (client-go `tools/cache`)
export { CacheSyncError, informerKey, SharedInformerFactory } from './cache/factory.js';
export type {
  InformerKeyOptions, InformerLease, InformerOptions, SharedInformerFactoryOptions, StalledWatch, WaitForCacheSyncOptions,
} from './cache/factory.js';
export {
  INFORMER_PROCESSING_LATENCY_BUCKETS, INFORMER_PROCESSING_LATENCY_SECONDS, INFORMER_QUEUED_ITEMS, INFORMER_STORE_RESOURCE_VERSION,
  INFORMER_WATCH_STALLED, INFORMER_WATCH_STALLS_TOTAL,
} from './cache/informer-metrics.js';
export { InformerStoppedError, MIN_RESYNC_PERIOD_MS, SharedIndexInformer } from './cache/shared-informer.js';
export type { HandlerOptions, HandlerRegistration, SharedIndexInformerOptions } from './cache/shared-informer.js';
export type { ResourceEventHandler } from './cache/listener.js';
export type { ListerWatcher, ReflectorOptions, WatchListMode } from './cache/reflector-types.js';
export type { BackoffOptions } from './cache/backoff.js';
export { stripManagedFields } from './cache/transform.js';
export { compareResourceVersions } from './cache/store-waiters.js';
export type { TransformFunc } from './cache/transform.js';
export { Indexer, metaNamespaceIndexFunc, NAMESPACE_INDEX } from './cache/indexer.js';
export type { Indexers, IndexFunc, KeyFunc } from './cache/indexer.js';
export { Lister, NamespaceLister } from './cache/lister.js';
export type { SelectorInput } from './cache/lister.js';
export {
  DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKey, isTombstone, metaNamespaceKey, objectFromDeleted,
  splitMetaNamespaceKey,
} from './cache/keys.js';

// Work queues (client-go `util/workqueue`) and their pluggable metrics
export { WorkQueue } from './workqueue/queue.js';
export type { QueueGetResult, QueueInterface, QueueOptions } from './workqueue/queue.js';
export { DelayingQueue } from './workqueue/delaying-queue.js';
export type { DelayingQueueInterface } from './workqueue/delaying-queue.js';
export { RateLimitingQueue } from './workqueue/rate-limiting-queue.js';
export type { RateLimitingQueueInterface, RateLimitingQueueOptions } from './workqueue/rate-limiting-queue.js';
export { defaultPriorityQueueRateLimiter, LOW_PRIORITY, PriorityQueue } from './workqueue/priority-queue.js';
export type { AddOptions, PriorityGetResult, PriorityQueueInterface } from './workqueue/priority-queue.js';
export {
  defaultControllerRateLimiter, defaultItemBasedRateLimiter, ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter, MaxOfRateLimiter, WithMaxWaitRateLimiter,
} from './workqueue/rate-limiter.js';
export type { RateLimiter } from './workqueue/rate-limiter.js';
export { BucketRateLimiter } from './workqueue/bucket-rate-limiter.js';
export type {
  CounterMetric, DepthMetricWithPriority, GaugeMetric, HistogramMetric, SettableGaugeMetric, WorkqueueMetricsProvider,
} from './workqueue/metrics.js';
export { prometheusMetricsProvider } from './workqueue/prometheus-metrics.js';

// The reconcile contract (controller-runtime `pkg/reconcile`)
export { requestFromKey, requestKey } from './reconcile/request.js';
export type { Request } from './reconcile/request.js';
export type { ReconcileContext, ReconcileFunc, Reconciler, Result } from './reconcile/reconciler.js';
export { isTerminalError, TerminalError } from './reconcile/terminal-error.js';

// Controllers, event handlers, predicates, builder (controller-runtime `controller`, `handler`, `predicate`, `builder`)
export { Controller, DEFAULT_SOURCE_SYNC_TIMEOUT_MS, ReconcileTimeoutError } from './controller/controller.js';
export type { ControllerOptions } from './controller/controller.js';
export type { SyncStatus } from './controller/source-sync.js';
export { InformerSource } from './source/source.js';
export type { Source } from './source/source.js';
export { controllerMetrics, initControllerMetrics } from './controller/metrics.js';
export type { ControllerMetrics, ReconcileResultLabel } from './controller/metrics.js';
export {
  addWithOpts, enqueueForObject, enqueueForOwner, enqueueMapped, sinkWithDefaultPriority, withLowPriorityWhenUnchanged,
} from './handler/handler.js';
export type { CreateEventInfo, EnqueueForOwnerOptions, EventHandler, OwnerType, RequestSink } from './handler/handler.js';
export {
  admits, admitsAll, and, annotationChanged, generationChanged, labelChanged, labelSelector, not, or, predicateFuncs,
  resourceVersionChanged,
} from './predicate/predicate.js';
export type { EventKind, Predicate } from './predicate/predicate.js';
export { BuilderSettings, ControllerBuilder, controllerFor, newControllerManagedBy } from './builder/builder.js';
export type { BuilderControllerOptions, BuilderWatchOptions, OwnsOptions } from './builder/builder.js';

export { whenAborted } from './abort.js';
// The manager (controller-runtime `pkg/manager`)
export {
  DEFAULT_CACHE_SYNC_TIMEOUT_MS, DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS, LeaderElectionLostError, Manager, RunnableError,
  ShardLostError,
} from './manager/manager.js';
export { DEFAULT_EXIT_GRACE_MS, runMain } from './manager/run-main.js';
export type { RunMainOptions } from './manager/run-main.js';
export type { ManagerOptions, ManagerShardingOptions, Runnable, ShardingMode } from './manager/manager.js';
export type { ByObjectCacheOptions, CacheOptions, FieldExtractFunc, InformerRequest, ObjectCacheOptions } from './cluster/cluster-cache.js';
export { CachedClient, CachedResourceClient } from './cluster/cached-client.js';
export { Cluster } from './cluster/cluster.js';
export type { ClusterOptions } from './cluster/cluster.js';
export {
  awaitOwnWrites, DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS, READ_YOUR_WRITES_FALLBACKS_TOTAL, READ_YOUR_WRITES_WAIT_SECONDS,
  READ_YOUR_WRITES_WAITS_TOTAL, ReadYourWrites,
} from './cluster/read-your-writes.js';
export type { ReadYourWritesOperation, ReadYourWritesOptions } from './cluster/read-your-writes.js';
export { describeKind, isResourceInfo, KindSource } from './source/kind-source.js';
export type { KindRef, KindSourceCluster, KindSourceOptions } from './source/kind-source.js';
export type { InformerLookup } from './cluster/cached-client.js';
export { installSignalHandler, setupSignalHandler } from './manager/signals.js';

// Many clusters (sigs.k8s.io/multicluster-runtime `mcmanager`, `mcbuilder`, providers)
export { MultiClusterManager } from './multicluster/manager.js';
export type { ClusterStatus, MultiClusterManagerOptions } from './multicluster/manager.js';
export { ClusterNotEngagedError } from './multicluster/provider.js';
export type { ClusterAware, ClusterProvider } from './multicluster/provider.js';
export { clusterRequestFromKey, clusterRequestKey, formatClusterRequest, HUB_CLUSTER } from './multicluster/request.js';
export type { ClusterRequest, MaybeClusterRequest } from './multicluster/request.js';
export { MultiClusterController } from './multicluster/controller.js';
export type {
  ClusterLaneStatus, ClusterReconcileContext, ClusterReconcileFunc, ClusterReconciler, ClusterRequestSink,
  MultiClusterControllerOptions,
} from './multicluster/controller.js';
export {
  multiClusterControllerFor, MultiClusterControllerBuilder, newMultiClusterControllerManagedBy,
} from './multicluster/builder.js';
export type { ClusterEventHandler, ClusterOwnsOptions, ClusterScope, ClusterWatchOptions } from './multicluster/builder.js';
export { enqueueInCluster, enqueueInHub } from './multicluster/handlers.js';
export { ClusterSharder } from './multicluster/cluster-sharding.js';
export type { ClusterShardingOptions } from './multicluster/cluster-sharding.js';
export {
  MC_CLUSTER_ENGAGED, MC_CLUSTER_OWNED, MC_CLUSTER_SYNCED, MC_RECONCILE_TIME_SECONDS, MC_RECONCILE_TOTAL,
} from './multicluster/metrics.js';
export { DEFAULT_MEMBER_REQUEST_TIMEOUT_MS } from './multicluster/providers/member-cluster.js';
export type { MemberClusterOptions } from './multicluster/providers/member-cluster.js';
export { StaticKubeconfigProvider } from './multicluster/providers/static.js';
export type { StaticCluster, StaticKubeconfigProviderOptions } from './multicluster/providers/static.js';
export {
  KUBECONFIG_SECRET_KEY, KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider,
} from './multicluster/providers/kubeconfig-secrets.js';
export type { KubeconfigSecretProviderOptions } from './multicluster/providers/kubeconfig-secrets.js';

// Helpers for reconcilers (controller-runtime `controllerutil`, `finalizer`)
export {
  AlreadyOwnedError, getControllerOf, hasControllerReference, hasOwnerReference, isControlledBy, removeOwnerReference,
  setControllerReference, setOwnerReference,
} from './controllerutil/owner-references.js';
export type { OwnerReferenceOptions } from './controllerutil/owner-references.js';
export { addFinalizer, containsFinalizer, isBeingDeleted, removeFinalizer } from './controllerutil/finalizers.js';
export { FinalizerRegistry } from './controllerutil/finalizer-registry.js';
export type { FinalizeResult, FinalizerFn, FinalizerResult } from './controllerutil/finalizer-registry.js';
export { createOrPatch, createOrUpdate } from './controllerutil/create-or-update.js';
export type {
  CreateOrPatchClient, CreateOrUpdateClient, MutateFn, OperationResult,
} from './controllerutil/create-or-update.js';

export {
  findStatusCondition, isStatusConditionFalse, isStatusConditionTrue, removeStatusCondition, setStatusCondition,
} from './conditions/conditions.js';
export type { ConditionInput } from './conditions/conditions.js';

// Events (client-go `tools/record`)
export { createEventRecorder, EventBroadcaster } from './events/event-recorder.js';
export type { EventBroadcasterOptions, EventRecorder, EventType } from './events/event-recorder.js';

// Leader election on a Lease (client-go `tools/leaderelection`)
export {
  DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS, LeaderElectionAccessError, LeaderElector,
} from './leaderelection/leader-elector.js';
export type { LeaderCallbacks, LeaderElectorOptions } from './leaderelection/leader-elector.js';
export { LeaseLock } from './leaderelection/lease-lock.js';
export type { LeaderElectionRecord, LeaseLockOptions, ObservedLease } from './leaderelection/lease-lock.js';
export { defaultLeaderElectionIdentity } from './leaderelection/identity.js';

// Sharding: replicas as shards of a consistent-hash ring, objects assigned by label, drain handshake (issue 14)
export { defaultShardIdentity, Shard } from './sharding/shard.js';
export type { ShardOptions } from './sharding/shard.js';
export { labelShardSelector } from './sharding/shard-selector.js';
export type { SelectableOptions, ShardSelector } from './sharding/shard-selector.js';
export { DEFAULT_LOAD_FACTOR, DEFAULT_VIRTUAL_NODES, HashRing } from './sharding/ring.js';
export {
  bucketOfHash, HASH_SPACE_END, inRanges, rangesOfBuckets, SHARD_BUCKETS, shardHash, shardRangeSelector,
} from './sharding/shard-hash.js';
export type { HashRange, ShardField } from './sharding/shard-hash.js';
export type { HashRingOptions } from './sharding/ring.js';
export { shardLeaseTimings } from './sharding/shard-lease.js';
export type { ShardLeaseTimings } from './sharding/shard-lease.js';
export { FENCE_HOLDER_PREFIX } from './sharding/lease-tracker.js';
export type { SharderTuning } from './sharding/sharder.js';
export {
  DRAIN_LABEL_PREFIX, DRAIN_LABEL_VALUE, drainLabel, RING_LEASE_LABEL, SHARD_LABEL_PREFIX, sharderLeaseName, shardingKey,
  shardLabel, shardLeaseName, validateRingName, validateShardIdentity,
} from './sharding/labels.js';

// Metrics and health endpoints (controller-runtime `pkg/metrics`, `pkg/healthz`)
export { metricsRegistry } from './metrics/registry.js';
export { registerRestClientMetrics } from './client/metrics.js';
export { DEFAULT_METRICS_BIND_ADDRESS, METRICS_PATH, MetricsServer } from './metrics/server/server.js';
export type { MetricsServerOptions } from './metrics/server/server.js';
// Secured metrics: authn (TokenReview) + authz (SubjectAccessReview) of scrapes (controller-runtime `pkg/metrics/filters`)
export { bearerToken, withAuthenticationAndAuthorization } from './metrics/server/auth-filter.js';
export type { AuthFilterOptions, MetricsFilter, MetricsFilterResult, ReviewedUser } from './metrics/server/auth-filter.js';
export { HealthCheckSet, ping } from './healthz/checks.js';
export type { HealthChecker } from './healthz/checks.js';
export { HealthProbeServer } from './healthz/health-probe-server.js';
export type { HealthProbeServerOptions } from './healthz/health-probe-server.js';

// Webhooks: admission (defaulting, validation) and conversion, served over HTTPS (controller-runtime `pkg/webhook`)
export {
  DEFAULT_MAX_REQUEST_BYTES, DEFAULT_WEBHOOK_CERT_DIR, DEFAULT_WEBHOOK_PORT, WebhookServer,
} from './webhook/server.js';
export type { WebhookServerOptions } from './webhook/server.js';
export {
  admissionWebhook, allowed, defaultingWebhook, denied, errored, patched, validatingWebhook,
} from './webhook/admission.js';
export type {
  AdmissionHandler, AdmissionRequest, AdmissionResponse, Defaulter, Validator, Warnings,
} from './webhook/admission.js';
/** Runs a CRD's own validation (schema and CEL rules) in a validating webhook, for apiservers older than its rules. */
export { crdValidationWebhook } from './webhook/crd-validation.js';
export type { CrdValidationWebhookOptions } from './webhook/crd-validation.js';
export { ConversionHandler, conversionWebhook } from './webhook/conversion.js';
export type { ConversionOptions, ConversionRequest, ConversionResponse, SpokeConversion } from './webhook/conversion.js';
export { generateCertificateSet, generateClientCertificate, generateServingCertificate, writeServingCertificate } from './certs/self-signed.js';
export { CertWatcher } from './certs/cert-watcher.js';
export type { CertificatePair, CertWatcherOptions } from './certs/cert-watcher.js';
export type {
  CertificateFileNames, CertificateRequest, CertificateSet, ClientCertificateOptions, ServingCertificate, ServingCertificateOptions,
} from './certs/self-signed.js';

// Label and field selectors (apimachinery `labels`, `fields`)
export {
  everything, newRequirement, nothing, requirementMatches, requirementToString, selectorFromRequirements,
  selectorFromSet,
} from './labels/selector.js';
export type { Labels, Requirement, Selector, SelectorOperator } from './labels/selector.js';
export { parseSelector } from './labels/parse-selector.js';
export { selectorFromLabelSelector } from './labels/label-selector.js';
export type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from './labels/label-selector.js';
export { escapeFieldValue, fieldValue, parseFieldSelector } from './labels/field-selector.js';
export type { FieldRequirement, FieldSelector, FieldSelectorOperator } from './labels/field-selector.js';
export {
  isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateDNS1123Label,
  validateDNS1123Subdomain, validateLabelValue, validateQualifiedName,
} from './labels/validation.js';

// JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386)
export { applyJsonPatch, jsonEqual, validateJsonPatch } from './patch/json-patch.js';
export { escapePointerToken, formatPointer, parsePointer, PatchError } from './patch/json-pointer.js';
export { applyMergePatch, createMergePatch } from './patch/merge-patch.js';
export { createJsonPatch } from './patch/json-patch-diff.js';

// Logging and time
export { createLogger, getLogger, JsonLogger, LOG_FLAGS, nullLogger, parseLogLevel, pinoLogger, setLogger, setupLogging } from './log.js';
export { RepeatFilter } from './log-repeats.js';
export type { LogFormat, Logger, LoggerOptions, LogLevel, PinoLike } from './log.js';
export { FakeClock, RealClock, realClock } from './clock.js';
export { sleep } from './deadline.js';
export type { Clock, TimerHandle } from './clock.js';

// Command-line flags: Go-style `--flag=false` for node:util parseArgs
export { goBooleanFlags, parseFlags } from './flags.js';
export type { FlagOptions } from './flags.js';

// Everyday controller-runtime API: field owners, object reconcilers, sources from outside the cluster
export { withFieldOwner } from './client/field-owner.js';
export type { ObjectReconcileFunc } from './builder/object-reconciler.js';
export { channelSource, EventChannel, funcSource } from './source/external-sources.js';
export type { EventSource } from './source/external-sources.js';
