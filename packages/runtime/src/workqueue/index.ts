/** Rate-limited work queues with client-go `util/workqueue` semantics, plus their Prometheus metrics. */
export * from './queue.js';
export * from './delaying-queue.js';
export * from './rate-limiting-queue.js';
export * from './rate-limiter.js';
export * from './bucket-rate-limiter.js';
export * from './metrics.js';
export * from './prometheus-metrics.js';
export * from './waiting-heap.js';
