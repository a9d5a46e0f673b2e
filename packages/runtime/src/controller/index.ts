/** Controllers: worker pool and metrics (controller-runtime `pkg/controller`); the reconcile contract is `../reconcile`. */
export * from './metrics.js';
export * from './controller.js';
