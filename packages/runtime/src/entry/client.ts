/**
 * `@kubegen/runtime/client`: clients beyond the front door (client-go `rest`, `clientcmd`, `api/errors`; apimachinery
 * `labels`, `fields`): kubeconfig and rest config loading, the HTTP transport's options, every API error predicate,
 * server-side apply types, label and field selectors, JSON Patch and Merge Patch.
 */
export {
  metadataAccept, PATCH_CONTENT_TYPES, toPartialObjectMetadata, type AssociativeList, type QueryValue,
  type RawRequestInit, type RawResponse, type ResourceInfo, type ResourceRequest, type ScalePaths, type Verb,
  type Watch, type WatchEventType
} from '../client/types.js';
export { defaultNamespace, loadClientConfig, type LoadOptions } from '../client/kubeconfig.js';
export {
  inClusterAvailable, inClusterRestConfig, SERVICE_ACCOUNT_DIR, type Impersonation
} from '../client/rest-config.js';
export {
  isRestConfig, KubeConfig, restConfigToKubeConfig, type KubeConfigCluster, type KubeConfigContext,
  type KubeConfigUser
} from '../client/kubeconfig-model.js';
export { ExecPluginError, type ExecConfig, type ExecEnvVar, type ExecInteractiveMode } from '../client/exec-config.js';
export { DEFAULT_HTTP_ENGINE, HTTP_ENGINES, type HttpEngine, type TransportOptions } from '../client/http-transport.js';
export { DEFAULT_PAGE_SIZE } from '../client/resource-client.js';
export {
  type CallOptions, type DeleteCollectionOptions, type JsonPatchOperation, type Patch, type Preconditions, type Scale,
  type WriteOptions
} from '../client/interfaces.js';
export {
  ApplyConflictError, ConnectionStalledError, describeRequest, isApplyConflict, isConnectionError, isInternalError,
  isMethodNotSupported, isNotServed, isStall, isTooLargeResourceVersion, newStatus, ResourceNotServedError,
  retryReason, type ApplyConflict, type FailedRequest, type NotServedDetails
} from '../client/errors.js';
export {
  describeForbidden, explainError, forbiddenRequestOf, rbacMarkerFor, type ForbiddenRequest
} from '../client/forbidden.js';
export { defaultFieldManager, FALLBACK_FIELD_MANAGER, type ApplyObject } from '../client/apply.js';
export { type Wire } from '../builtin/wire.js';
export { AppsV1Client, BatchV1Client, CoordinationV1Client, CoreV1Client } from '../builtin/clientset.js';
export { type TypedInformer } from '../builtin/informers.js';
export { setOwnKey } from '../deepcopy.js';
export {
  everything, newRequirement, nothing, requirementMatches, requirementToString, selectorFromRequirements,
  selectorFromSet, type Labels, type Requirement, type Selector, type SelectorOperator
} from '../labels/selector.js';
export { parseSelector } from '../labels/parse-selector.js';
export {
  selectorFromLabelSelector, type LabelSelector, type LabelSelectorOperator, type LabelSelectorRequirement
} from '../labels/label-selector.js';
export {
  escapeFieldValue, fieldValue, parseFieldSelector, type FieldRequirement, type FieldSelector,
  type FieldSelectorOperator
} from '../labels/field-selector.js';
export {
  isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateDNS1123Label,
  validateDNS1123Subdomain, validateLabelValue, validateQualifiedName
} from '../labels/validation.js';
export { applyJsonPatch, jsonEqual, validateJsonPatch } from '../patch/json-patch.js';
export { escapePointerToken, formatPointer, parsePointer, PatchError } from '../patch/json-pointer.js';
export { applyMergePatch, createMergePatch } from '../patch/merge-patch.js';
export { createJsonPatch } from '../patch/json-patch-diff.js';
