/** Fluent controller wiring (controller-runtime `pkg/builder`). */
export * from './builder.js';
