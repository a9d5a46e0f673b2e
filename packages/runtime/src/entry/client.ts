/**
 * `@kubegen/runtime/client`: clients beyond the front door (client-go `rest`, `clientcmd`, `api/errors`; apimachinery
 * `labels`, `fields`): kubeconfig and rest config loading, the HTTP transport's options, every API error predicate,
 * server-side apply types, label and field selectors, JSON Patch and Merge Patch.
 */
export { metadataAccept, PATCH_CONTENT_TYPES, toPartialObjectMetadata } from '../client/types.js';
export type {
  AssociativeList, QueryValue, RawRequestInit, RawResponse, ResourceInfo, ResourceRequest, ScalePaths, Verb, Watch,
  WatchEventType
} from '../client/types.js';
export { defaultNamespace, loadClientConfig } from '../client/kubeconfig.js';
export type { LoadOptions } from '../client/kubeconfig.js';
export { inClusterAvailable, inClusterRestConfig, SERVICE_ACCOUNT_DIR } from '../client/rest-config.js';
export type { Impersonation } from '../client/rest-config.js';
export { isRestConfig, KubeConfig, restConfigToKubeConfig } from '../client/kubeconfig-model.js';
export type { KubeConfigCluster, KubeConfigContext, KubeConfigUser } from '../client/kubeconfig-model.js';
export { ExecPluginError } from '../client/exec-config.js';
export type { ExecConfig, ExecEnvVar, ExecInteractiveMode } from '../client/exec-config.js';
export { DEFAULT_HTTP_ENGINE, HTTP_ENGINES } from '../client/http-transport.js';
export type { HttpEngine, TransportOptions } from '../client/http-transport.js';
export { DEFAULT_PAGE_SIZE } from '../client/resource-client.js';
export type {
  CallOptions, DeleteCollectionOptions, JsonPatchOperation, Patch, Preconditions, Scale, WriteOptions
} from '../client/interfaces.js';
export {
  ApplyConflictError, ConnectionStalledError, describeRequest, isApplyConflict, isConnectionError, isInternalError,
  isMethodNotSupported, isNotServed, isStall, isTooLargeResourceVersion, newStatus, ResourceNotServedError,
  retryReason
} from '../client/errors.js';
export type { ApplyConflict, FailedRequest, NotServedDetails } from '../client/errors.js';
export { describeForbidden, explainError, forbiddenRequestOf, rbacMarkerFor } from '../client/forbidden.js';
export type { ForbiddenRequest } from '../client/forbidden.js';
export { defaultFieldManager, FALLBACK_FIELD_MANAGER } from '../client/apply.js';
export type { ApplyObject } from '../client/apply.js';
export type { Wire } from '../builtin/wire.js';
export { AppsV1Client, BatchV1Client, CoordinationV1Client, CoreV1Client } from '../builtin/clientset.js';
export type { TypedInformer } from '../builtin/informers.js';
export { setOwnKey } from '../deepcopy.js';
export {
  everything, newRequirement, nothing, requirementMatches, requirementToString, selectorFromRequirements,
  selectorFromSet
} from '../labels/selector.js';
export type { Labels, Requirement, Selector, SelectorOperator } from '../labels/selector.js';
export { parseSelector } from '../labels/parse-selector.js';
export { selectorFromLabelSelector } from '../labels/label-selector.js';
export type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from '../labels/label-selector.js';
export { escapeFieldValue, fieldValue, parseFieldSelector } from '../labels/field-selector.js';
export type { FieldRequirement, FieldSelector, FieldSelectorOperator } from '../labels/field-selector.js';
export {
  isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateDNS1123Label,
  validateDNS1123Subdomain, validateLabelValue, validateQualifiedName
} from '../labels/validation.js';
export { applyJsonPatch, jsonEqual, validateJsonPatch } from '../patch/json-patch.js';
export { escapePointerToken, formatPointer, parsePointer, PatchError } from '../patch/json-pointer.js';
export { applyMergePatch, createMergePatch } from '../patch/merge-patch.js';
export { createJsonPatch } from '../patch/json-patch-diff.js';
