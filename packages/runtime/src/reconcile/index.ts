/**
 * The reconcile contract (controller-runtime `pkg/reconcile`): requests, results, the reconciler interface and
 * terminal errors. Imported by `handler` (which produces requests) and `controller` (which runs reconcilers); it
 * imports neither.
 */
export * from './request.js';
export * from './reconciler.js';
export * from './terminal-error.js';
