/** Leader election on a coordination.k8s.io/v1 Lease (client-go `tools/leaderelection`). */
export * from './leader-elector.js';
export * from './lease-lock.js';
export * from './identity.js';
export * from './metrics.js';
