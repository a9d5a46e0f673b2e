export * from './schema.js';
export * from './resource.js';
export * from './errors.js';
export * from './groups.js';
export * from './rbac.js';
export * from './webhook.js';
export * from './definitions.js';
