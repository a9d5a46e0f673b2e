/**
 * `@kubegen/runtime/workqueue`: work queues (client-go `util/workqueue`, controller-runtime's priority queue), their
 * rate limiters and pluggable metrics.
 */
export { WorkQueue, type QueueGetResult, type QueueInterface, type QueueOptions } from '../workqueue/queue.js';
export { DelayingQueue, type DelayingQueueInterface } from '../workqueue/delaying-queue.js';
export {
  RateLimitingQueue, type RateLimitingQueueInterface, type RateLimitingQueueOptions
} from '../workqueue/rate-limiting-queue.js';
export {
  defaultPriorityQueueRateLimiter, LOW_PRIORITY, PriorityQueue, type AddOptions, type PriorityGetResult,
  type PriorityQueueInterface
} from '../workqueue/priority-queue.js';
export {
  defaultControllerRateLimiter, defaultItemBasedRateLimiter, ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter, MaxOfRateLimiter, WithMaxWaitRateLimiter, type RateLimiter
} from '../workqueue/rate-limiter.js';
export { BucketRateLimiter } from '../workqueue/bucket-rate-limiter.js';
export {
  type CounterMetric, type DepthMetricWithPriority, type GaugeMetric, type HistogramMetric, type SettableGaugeMetric,
  type WorkqueueMetricsProvider
} from '../workqueue/metrics.js';
export { prometheusMetricsProvider } from '../workqueue/prometheus-metrics.js';
