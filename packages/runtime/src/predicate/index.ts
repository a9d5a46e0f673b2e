/** Event filters for controllers (controller-runtime `pkg/predicate`). */
export * from './predicate.js';
