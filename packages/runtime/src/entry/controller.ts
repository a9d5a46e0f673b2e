/**
 * `@kubegen/runtime/controller`: controllers and what they are made of beyond the front door (controller-runtime
 * `controller`, `handler`, `predicate`, `source`, `builder`, `controllerutil`, `reconcile`).
 */
export { requestFromKey, requestKey } from '../reconcile/request.js';
export { DEFAULT_SOURCE_SYNC_TIMEOUT_MS, ReconcileTimeoutError } from '../controller/controller.js';
export { type SyncStatus } from '../controller/source-sync.js';
export { InformerSource } from '../source/source.js';
export {
  controllerMetrics, initControllerMetrics, type ControllerMetrics, type ReconcileResultLabel
} from '../controller/metrics.js';
export {
  addWithOpts, sinkWithDefaultPriority, withLowPriorityWhenUnchanged, type CreateEventInfo,
  type EnqueueForOwnerOptions, type OwnerType, type RequestSink
} from '../handler/handler.js';
export { admits, admitsAll, type EventKind } from '../predicate/predicate.js';
export { BuilderSettings } from '../builder/builder.js';
export {
  describeKind, isResourceInfo, KindSource, type KindRef, type KindSourceCluster, type KindSourceOptions
} from '../source/kind-source.js';
export {
  AlreadyOwnedError, hasControllerReference, hasOwnerReference, removeOwnerReference, type OwnerReferenceOptions
} from '../controllerutil/owner-references.js';
export { isBeingDeleted } from '../controllerutil/finalizers.js';
export { type FinalizeResult, type FinalizerFn, type FinalizerResult } from '../controllerutil/finalizer-registry.js';
export {
  type CreateOrPatchClient, type CreateOrUpdateClient, type MutateFn
} from '../controllerutil/create-or-update.js';
export { type EventSource } from '../source/external-sources.js';
