export * from './types.js';
export * from './interfaces.js';
export * from './errors.js';
export * from './resource-client.js';
