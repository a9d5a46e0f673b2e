/** Event handlers mapping watch events to reconcile requests (controller-runtime `pkg/handler`). */
export * from './handler.js';
