/**
 * `@kubegen/runtime/manager`: the manager beyond the front door (controller-runtime `pkg/manager`, `pkg/cluster`,
 * `manager/signals`): its errors and defaults, `runMain`'s options, events' broadcaster options, Go-style flags.
 */
export {
  DEFAULT_CACHE_SYNC_TIMEOUT_MS, DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS, LeaderElectionLostError, RunnableError,
  ShardLostError, type ManagerShardingOptions, type ShardingMode
} from '../manager/manager.js';
export { DEFAULT_EXIT_GRACE_MS, type RunMainOptions } from '../manager/run-main.js';
export { type ClusterOptions } from '../cluster/cluster.js';
export { installSignalHandler } from '../manager/signals.js';
export { type EventBroadcasterOptions, type EventType } from '../events/event-recorder.js';
export { goBooleanFlags, type FlagOptions } from '../flags.js';
