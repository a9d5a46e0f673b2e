/**
 * `@kubegen/runtime/leaderelection`: leader election on a Lease (client-go `tools/leaderelection`,
 * `tools/leaderelection/resourcelock`).
 */
export {
  DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS, LeaderElectionAccessError,
  LeaderElector, type LeaderCallbacks, type LeaderElectorOptions
} from '../leaderelection/leader-elector.js';
export {
  LeaseLock, type LeaderElectionRecord, type LeaseLockOptions, type ObservedLease
} from '../leaderelection/lease-lock.js';
export { defaultLeaderElectionIdentity } from '../leaderelection/identity.js';
