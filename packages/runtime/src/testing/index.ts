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
  VERSIONED_FLAGS, versionedFlags, waitForWebhook, writeTokenKubeconfig,
} from './envtest/index.js';
export type {
  BinaryVersion, ClusterAssets, ClusterConfig, ClusterOptions, CrdObject, EnvtestAssets, EnvtestCapability,
  EnvtestOptions, EnvtestProcessInfo, EnvtestProfile, EventuallyOptions, ManagedProcessOptions, ProjectRbac,
  ProjectRbacOptions, RecordedForbidden, ServiceAccountIdentity, ServiceAccountRef, VersionedBinary, VersionedFlag,
  WebhookEndpoint, WebhookInstallOptions,
} from './envtest/index.js';
export {
  actionFor, actionMatches, allBuiltinResources, crdValidation, FakeDynamicClient, FakeEventRecorder,
  FakeListerWatcher, FakeRecorder, fakeResourcesFromCrd, fakeResourcesFromCrds, FakeTransport, FakeWatch,
  newFakeDynamicClient, newFakeTransport, newFakeTransportFromCrds, newFakeTransportWithOptions, ObjectTracker,
} from './fake/index.js';
export type {
  CommitObserver, FakeAction, FakeDiscoveryFormat, FakeFromCrdsOptions, FakeListerWatcherOptions, FakeResource,
  FakeScaleSpec, FakeWatchListSupport, ObjectTrackerOptions, RawRequestRecord, Reaction, ReactionFunc, Reactor,
  RecordedEvent, TrackerCommit, TrackerDeleteOptions, TrackerListOptions, TrackerPatchOptions, TrackerValidation,
  TrackerWatchOptions, TrackerWriteOptions,
} from './fake/index.js';
export { GarbageCollector } from './gc/index.js';
export type { GarbageCollectorOptions } from './gc/index.js';
export { consistently, eventuallyObject, objectList } from './matchers.js';
export { readObjects } from './manifests.js';
export type { Condition, ObjectGetter, ObjectLister, WaitOptions } from './matchers.js';
