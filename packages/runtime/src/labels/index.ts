/** Label and field selectors with Kubernetes' syntax and matching rules. */
export * from './validation.js';
export * from './selector.js';
export * from './parse-selector.js';
export * from './label-selector.js';
export * from './field-selector.js';
