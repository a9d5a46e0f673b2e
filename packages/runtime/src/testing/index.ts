/**
 * `@kubegen/runtime/testing`: every test helper, the envtest control plane (`./testing/envtest`), the in-memory
 * fakes (`./testing/fake`) and the garbage collector the `crd-only` envtest profile runs (`GarbageCollector`). Import
 * a part directly to load only that part (e.g. a unit test that must not load envtest's process code).
 */
export {
  binaryVersion, CLUSTER_CONTROLLERS, clusterOf, CRD_RESOURCE, crdResourceInfo, createTestNamespace,
  DEFAULT_CLUSTER_NODES, DEFAULT_START_TIMEOUT_MS, DEFAULT_STOP_TIMEOUT_MS, DEFAULT_TOKEN_EXPIRATION_SECONDS,
  defaultAssetDirs, deleteTestNamespace, envAttachOutput, envStartTimeoutMs, envStopTimeoutMs, Envtest, eventually,
  findAssets, ForbiddenRecorder, ForbiddenRequestsError, freePort, freePorts, installCrds, installRbac,
  installWebhooks, ManagedProcess, mergeFlags, MUTATING_WEBHOOK_RESOURCE, NAMESPACE_RESOURCE, parseCrds,
  parseDuration, parseVersionOutput, pointWebhooksAt, PROFILE_CAPABILITIES, PROFILE_DESCRIPTIONS, profileServes,
  RBAC_KINDS, rbacFromObjects, readCrdPaths, readProjectRbac, recordForbidden, requestServiceAccountToken,
  requireCapabilities, runAsServiceAccount, setConversionWebhook, testNamespaceName, VALIDATING_WEBHOOK_RESOURCE,
  VERSIONED_FLAGS, versionedFlags, waitForWebhook, writeTokenKubeconfig, type BinaryVersion, type ClusterAssets,
  type ClusterConfig, type ClusterOptions, type CrdObject, type EnvtestAssets, type EnvtestCapability,
  type EnvtestOptions, type EnvtestProcessInfo, type EnvtestProfile, type EventuallyOptions,
  type ManagedProcessOptions, type ProjectRbac, type ProjectRbacOptions, type RecordedForbidden,
  type ServiceAccountIdentity, type ServiceAccountRef, type VersionedBinary, type VersionedFlag, type WebhookEndpoint,
  type WebhookInstallOptions
} from './envtest/index.js';
export {
  actionFor, actionMatches, allBuiltinResources, crdValidation, FakeDynamicClient, FakeEventRecorder,
  FakeListerWatcher, FakeRecorder, fakeResourcesFromCrd, fakeResourcesFromCrds, FakeTransport, FakeWatch,
  newFakeDynamicClient, newFakeTransport, newFakeTransportFromCrds, newFakeTransportWithOptions, ObjectTracker,
  type CommitObserver, type FakeAction, type FakeDiscoveryFormat, type FakeFromCrdsOptions,
  type FakeListerWatcherOptions, type FakeResource, type FakeScaleSpec, type FakeWatchListSupport,
  type ObjectTrackerOptions, type RawRequestRecord, type Reaction, type ReactionFunc, type Reactor,
  type RecordedEvent, type TrackerCommit, type TrackerDeleteOptions, type TrackerListOptions,
  type TrackerPatchOptions, type TrackerValidation, type TrackerWatchOptions, type TrackerWriteOptions
} from './fake/index.js';
export { GarbageCollector, type GarbageCollectorOptions } from './gc/index.js';
export {
  consistently, eventuallyObject, objectList, type Condition, type ObjectGetter, type ObjectLister, type WaitOptions
} from './matchers.js';
export { readObjects } from './manifests.js';
