/**
 * `@kubegen/runtime/manager`: the manager beyond the front door (controller-runtime `pkg/manager`, `pkg/cluster`,
 * `manager/signals`): its errors and defaults, `runMain`'s options, events' broadcaster options, Go-style flags.
 */
export {
  DEFAULT_CACHE_SYNC_TIMEOUT_MS, DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS, LeaderElectionLostError, RunnableError,
  ShardLostError
} from '../manager/manager.js';
export { DEFAULT_EXIT_GRACE_MS } from '../manager/run-main.js';
export type { RunMainOptions } from '../manager/run-main.js';
export type { ManagerShardingOptions, ShardingMode } from '../manager/manager.js';
export type { ClusterOptions } from '../cluster/cluster.js';
export { installSignalHandler } from '../manager/signals.js';
export type { EventBroadcasterOptions, EventType } from '../events/event-recorder.js';
export { goBooleanFlags } from '../flags.js';
export type { FlagOptions } from '../flags.js';
