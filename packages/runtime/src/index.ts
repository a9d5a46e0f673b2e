/**
 * `@kubegen/runtime`: the front door, what a controller author imports (controller-runtime's `manager`, `builder`,
 * `reconcile`, `client`, `handler`, `predicate`, `controllerutil`, `record`, `log`, `metrics` registration) — at most
 * 150 names, values and types together (test/unit/front-door.test.ts counts them). Never imports the generator side.
 *
 * Everything else has an entry point by concept, as controller-runtime has packages: `@kubegen/runtime/client`
 * (transport, kubeconfig, errors, selectors, patches), `/cache`, `/workqueue`, `/controller`, `/manager`, `/dynamic`,
 * `/discovery` (with the RESTMapper), `/sharding`, `/multicluster`, `/webhook` (with certificates),
 * `/leaderelection`, `/metrics` (server, auth filter, health probes, metric names), `/log`, `/api/<group>/<version>`,
 * `/validation` and `/testing/*`. What none of them exports is internal (reachable only by the repository's tests,
 * through the `kubegen-internal` export condition), so it can change without a breaking release.
 *
 * Each `//` section below is a page of the API reference (docs/api/runtime/, `npm run docs`), titled by its comment.
 */

// Kubernetes object and API types
export type {
  KubeList, KubeObject, ListMeta, ObjectMeta, OwnerReference, PatchType, ResourceDescriptor, Status, Transport, WatchEvent,
} from './client/types.js';
export type {
  Condition, ConfigMapKeySelector, Duration, float64, int32, int64, integer, JSONValue, LocalObjectReference,
  MicroTime, ObjectReference, Quantity, RawExtension, SecretKeySelector, Time, TypedLocalObjectReference, IntOrString,
} from './api-types.js';

// Clients: transport, kubeconfig, typed resource clients, API errors (client-go `rest`, `clientcmd`, `errors`)
export { createTransport, loadKubeConfig, loadRestConfig } from './client/kubeconfig.js';
export type { ClientOptions } from './client/kubeconfig.js';
export type { RestConfig } from './client/rest-config.js';
export { HttpTransport } from './client/http-transport.js';
export { ResourceClient } from './client/resource-client.js';
export type {
  ApplyOptions, CreateOptions, DeleteOptions, GetOptions, ListOptions, PatchOptions, ResourceInterface, ScaleInterface,
  StatusInterface, UpdateOptions, WatchOptions,
} from './client/interfaces.js';
export {
  ApiError, isAlreadyExists, isBadRequest, isConflict, isForbidden, isGone, isInvalid, isNotFound, isTimeout,
  isTooManyRequests, isUnauthorized,
} from './client/errors.js';
export { withFieldOwner } from './client/field-owner.js';

// Server-side apply and deep copies: what generated `applyconfigurations.ts` and `deepcopy.ts` build on
export type { ApplyConfiguration, ApplyObjectMeta, ListMapEntry } from './client/apply.js';
export { deepCopyJSON } from './deepcopy.js';

// Built-in kinds: the typed clientset and informers of every group version, the kinds the root had before `/api/<group>/<version>` (every kind, its list, its structs)
export type {
  ConfigMap, DaemonSet, Deployment, Event, Job, Lease, Namespace, Pod, ReplicaSet, Secret, Service, ServiceAccount,
  StatefulSet,
} from './builtin/types.js';
export { builtinResources } from './builtin/resources.js';
export { KubeClientset } from './api/clientset.js';
export { KubeInformers } from './builtin/informers.js';

// The reconcile contract (controller-runtime `pkg/reconcile`)
export type { Request } from './reconcile/request.js';
export type { ReconcileContext, ReconcileFunc, Reconciler, Result } from './reconcile/reconciler.js';
export { isTerminalError, TerminalError } from './reconcile/terminal-error.js';
export type { ObjectReconcileFunc } from './builder/object-reconciler.js';

// Controllers, event handlers, predicates, sources, builder (controller-runtime `controller`, `handler`, `predicate`, `source`, `builder`)
export { Controller } from './controller/controller.js';
export type { ControllerOptions } from './controller/controller.js';
export { enqueueForObject, enqueueForOwner, enqueueMapped } from './handler/handler.js';
export type { EventHandler } from './handler/handler.js';
export {
  and, annotationChanged, generationChanged, labelChanged, labelSelector, not, or, predicateFuncs, resourceVersionChanged,
} from './predicate/predicate.js';
export type { Predicate } from './predicate/predicate.js';
export type { Source } from './source/source.js';
export { channelSource, EventChannel, funcSource } from './source/external-sources.js';
export { ControllerBuilder, controllerFor, newControllerManagedBy } from './builder/builder.js';
export type { BuilderControllerOptions, BuilderWatchOptions, OwnsOptions } from './builder/builder.js';

// The manager (controller-runtime `pkg/manager`, `pkg/cluster`), signals and `main`
export { Manager } from './manager/manager.js';
export type { ManagerOptions, Runnable } from './manager/manager.js';
export type { CacheOptions } from './cluster/cluster-cache.js';
export { Cluster } from './cluster/cluster.js';
export { CachedClient } from './cluster/cached-client.js';
export { runMain } from './manager/run-main.js';
export { setupSignalHandler } from './manager/signals.js';

// Helpers for reconcilers (controller-runtime `controllerutil`, `finalizer`; apimachinery `meta`'s status conditions)
export { getControllerOf, isControlledBy, setControllerReference, setOwnerReference } from './controllerutil/owner-references.js';
export { addFinalizer, containsFinalizer, removeFinalizer } from './controllerutil/finalizers.js';
export { FinalizerRegistry } from './controllerutil/finalizer-registry.js';
export { createOrPatch, createOrUpdate } from './controllerutil/create-or-update.js';
export type { OperationResult } from './controllerutil/create-or-update.js';
export {
  findStatusCondition, isStatusConditionFalse, isStatusConditionTrue, removeStatusCondition, setStatusCondition,
} from './conditions/conditions.js';
export type { ConditionInput } from './conditions/conditions.js';

// Events (client-go `tools/record`)
export { createEventRecorder, EventBroadcaster } from './events/event-recorder.js';
export type { EventRecorder } from './events/event-recorder.js';

// Logging, metrics registration and command-line flags (controller-runtime `log`, `metrics`; Go-style `--flag=false`)
export { createLogger, getLogger, LOG_FLAGS, nullLogger, setupLogging } from './log.js';
export type { Logger } from './log.js';
export { metricsRegistry } from './metrics/registry.js';
export { parseFlags } from './flags.js';
