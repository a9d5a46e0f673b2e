/**
 * `@kubegen/runtime/workqueue`: work queues (client-go `util/workqueue`, controller-runtime's priority queue), their
 * rate limiters and pluggable metrics.
 */
export { WorkQueue } from '../workqueue/queue.js';
export type { QueueGetResult, QueueInterface, QueueOptions } from '../workqueue/queue.js';
export { DelayingQueue } from '../workqueue/delaying-queue.js';
export type { DelayingQueueInterface } from '../workqueue/delaying-queue.js';
export { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
export type { RateLimitingQueueInterface, RateLimitingQueueOptions } from '../workqueue/rate-limiting-queue.js';
export { defaultPriorityQueueRateLimiter, LOW_PRIORITY, PriorityQueue } from '../workqueue/priority-queue.js';
export type { AddOptions, PriorityGetResult, PriorityQueueInterface } from '../workqueue/priority-queue.js';
export {
  defaultControllerRateLimiter, defaultItemBasedRateLimiter, ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter, MaxOfRateLimiter, WithMaxWaitRateLimiter
} from '../workqueue/rate-limiter.js';
export type { RateLimiter } from '../workqueue/rate-limiter.js';
export { BucketRateLimiter } from '../workqueue/bucket-rate-limiter.js';
export type {
  CounterMetric, DepthMetricWithPriority, GaugeMetric, HistogramMetric, SettableGaugeMetric, WorkqueueMetricsProvider
} from '../workqueue/metrics.js';
export { prometheusMetricsProvider } from '../workqueue/prometheus-metrics.js';
