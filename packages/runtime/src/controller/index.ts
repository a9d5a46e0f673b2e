/** Controllers: reconcile contract, worker pool and metrics (controller-runtime `pkg/controller`, `pkg/reconcile`). */
export * from './reconcile.js';
export * from './metrics.js';
export * from './controller.js';
