/** core/v1 Event recording with aggregation of repeats (client-go `tools/record`). */
export * from './event-recorder.js';
export * from './event-correlator.js';
export * from './event-time.js';
export * from './fake-recorder.js';
export * from './lru-cache.js';
