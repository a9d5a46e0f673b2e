/** Helpers for reconcilers (controller-runtime `controllerutil` and `finalizer`). */
export * from './owner-references.js';
export * from './finalizers.js';
export * from './finalizer-registry.js';
export * from './create-or-update.js';
