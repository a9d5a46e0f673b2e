/** The manager: shared cache, cache-backed client, probes, metrics, leader election (controller-runtime `pkg/manager`). */
export * from './cached-client.js';
export * from './signals.js';
export * from './manager.js';
