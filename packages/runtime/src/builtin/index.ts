export * from './wire.js';
export type * from './types.js';
export * from './resources.js';
export * from './clientset.js';
export * from './informers.js';
