/**
 * The built-in API's clientset and the group/version clients that existed before it was generated, under their
 * names. `KubeClientset` has every group/version client-go's `kubernetes.Interface` has (built on first use).
 */
export { KubeClientset } from '../api/clientset.js';
export { AppsV1Client } from '../api/apps/v1/client.js';
export { BatchV1Client } from '../api/batch/v1/client.js';
export { CoordinationV1Client } from '../api/coordination/v1/client.js';
export { CoreV1Client } from '../api/core/v1/client.js';
