/**
 * `LeaderElector`: leader election on a coordination.k8s.io/v1 Lease with client-go's algorithm
 * (`tools/leaderelection`) and controller-runtime's defaults (15 s lease, 10 s renew deadline, 2 s retry).
 *
 * - **Acquire**: every `retryPeriod` (jittered by up to 1.2×), read the Lease. It is free when it has no holder or
 *   when it has not changed for `leaseDuration` *as measured on this process's clock since it was last seen to
 *   change* (the remote `renewTime` is never compared with local time, so clock skew between hosts does not matter).
 *   Then write it, at the resourceVersion just read (optimistic concurrency: of two candidates one gets a Conflict).
 *   `leaseTransitions` is incremented whenever the holder changes.
 * - **Renew**: while leading, every `retryPeriod` rewrite `renewTime`; a renewal round that cannot succeed within
 *   `renewDeadline` (retrying every `retryPeriod`, each request bounded) gives leadership up.
 * - **Stop**: aborting `run`'s signal (or losing the lease) aborts the signal given to `onStartedLeading`, waits for the
 *   promise it returned, then, with `releaseOnCancel`, writes the Lease with no holder and a 1 s duration so another
 *   candidate takes over on its next retry, and finally calls `onStoppedLeading`.
 *
 * Errors are logged and retried on the next period — network errors, conflicts, 5xx — except one: while
 * campaigning, a Lease request refused as 403 Forbidden or 401 Unauthorized makes `run` reject with a
 * {@link LeaderElectionAccessError} naming the verb, the Lease and the identity (and the RBAC marker that grants
 * it): retrying cannot fix permissions, and a process that campaigns forever looks healthy while it does nothing.
 * Callbacks that throw or reject are logged. There is no fencing: work may overlap briefly when a leader is
 * partitioned (as in client-go).
 */
import { isConflict, isForbidden, isNotFound, isUnauthorized, ConnectionStalledError } from '../client/errors.js';
import { describeForbidden, forbiddenRequestOf } from '../client/forbidden.js';
import type { Transport } from '../client/types.js';
import { realClock, type Clock } from '../clock.js';
import { sleep } from '../deadline.js';
import { getLogger, type Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import { defaultLeaderElectionIdentity } from './identity.js';
import { LeaseLock, type LeaderElectionRecord, type ObservedLease } from './lease-lock.js';
import { leaderElectionStatusGauge } from './metrics.js';

/** controller-runtime's defaults (`pkg/manager/internal.go`). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/** Default `renewDeadlineMs`: a leader that cannot renew within 10 s gives leadership up (controller-runtime's). */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/** Default `retryPeriodMs`: candidates and the leader retry every 2 s (controller-runtime's). */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** client-go's `JitterFactor`: acquire attempts wait `retryPeriod × (1 + 1.2 × random)`. */
export const LEADER_ELECTION_JITTER_FACTOR = 1.2;

/** `LeaderElector.run` rejected: the Lease API refused this identity (403 or 401) while it campaigned. */
export class LeaderElectionAccessError extends Error {
  constructor(lease: string, cause: unknown) {
    const refused = forbiddenRequestOf(cause);
    const what = refused ? `forbidden: ${describeForbidden(refused)}` : cause instanceof Error ? cause.message : String(cause);
    super(`leader election cannot use the Lease ${lease}: ${what}`, { cause });
    this.name = 'LeaderElectionAccessError';
  }
}

/** What a {@link LeaderElector} calls as leadership changes (client-go's `LeaderCallbacks`); all optional. */
export interface LeaderCallbacks {
  /**
   * Called (asynchronously) once this process becomes leader. `signal` aborts when leadership ends for any reason;
   * the returned promise, if any, is awaited before the lease is released and `onStoppedLeading` runs, so it should
   * settle soon after `signal` aborts.
   */
  onStartedLeading?: (signal: AbortSignal) => void | Promise<void>;
  /** Called once when a `run` that had become leader ends (lease lost or stopped), after the lease was released. */
  onStoppedLeading?: () => void;
  /** Called when the observed holder changes, including to this process. Not called for an empty holder. */
  onNewLeader?: (identity: string) => void;
}

/**
 * Settings of a {@link LeaderElector} (client-go's `LeaderElectionConfig`) plus its callbacks. Required: `transport`
 * and the Lease's `namespace` and `name`; the constructor throws on durations out of order.
 */
export interface LeaderElectorOptions extends LeaderCallbacks {
  /** Where the Lease is read and written. */
  transport: Transport;
  /** Namespace and name of the Lease (controller-runtime's `LeaderElectionNamespace` / `LeaderElectionID`). */
  namespace: string;
  name: string;
  /** Default `<hostname>_<uuid>`. Must be unique among candidates. */
  identity?: string;
  /** Default 15 s. Must exceed `renewDeadlineMs`. */
  leaseDurationMs?: number;
  /** Default 10 s. Must exceed 1.2 × `retryPeriodMs`. */
  renewDeadlineMs?: number;
  /** Default 2 s. */
  retryPeriodMs?: number;
  /** Bound on each Lease request. Default max(renewDeadline / 2, 1 s), as controller-runtime sets its client. */
  requestTimeoutMs?: number;
  /** Release the lease when `run`'s signal aborts (default false: only safe if the process stops working). */
  releaseOnCancel?: boolean;
  /** Labels set on the Lease when this elector creates it. */
  labels?: Record<string, string>;
  clock?: Clock;
  logger?: Logger;
  /** Registry of `leader_election_master_status` (default the runtime's `metricsRegistry`). */
  registry?: Registry;
  /** Source of jitter in [0, 1) (default `Math.random`). */
  random?: () => number;
}

/**
 * One candidate in leader election on a Lease (client-go's `leaderelection.LeaderElector`; algorithm in the module
 * comment). `run(signal)` campaigns, leads while it can, and resolves once leadership ended or `signal` aborted.
 */
export class LeaderElector {
  readonly identity: string;
  readonly lock: LeaseLock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly requestTimeoutMs: number;
  private readonly releaseOnCancel: boolean;
  private readonly callbacks: LeaderCallbacks;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly random: () => number;
  private readonly gauge;
  private readonly metricName: string;

  /** The record last read or written, the raw spec it came from, and when (local clock) it was seen to change. */
  private observedRecord: LeaderElectionRecord | undefined;
  private observedRaw: string | undefined;
  private observedTime = 0;
  private reportedLeader = '';
  private leading = false;
  private running = false;

  constructor(opts: LeaderElectorOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = opts.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) throw new RangeError('leaseDuration must be greater than renewDeadline');
    if (!(this.renewDeadlineMs > LEADER_ELECTION_JITTER_FACTOR * this.retryPeriodMs)) {
      throw new RangeError('renewDeadline must be greater than retryPeriod*JitterFactor');
    }
    if (!(this.retryPeriodMs >= 1)) throw new RangeError('retryPeriod must be positive');
    if (!opts.namespace || !opts.name) throw new TypeError('leader election needs the Lease namespace and name');
    this.identity = opts.identity ?? defaultLeaderElectionIdentity();
    if (!this.identity) throw new TypeError('leader election identity must not be empty');
    this.requestTimeoutMs = opts.requestTimeoutMs ?? Math.max(this.renewDeadlineMs / 2, 1000);
    this.releaseOnCancel = opts.releaseOnCancel ?? false;
    this.callbacks = { onStartedLeading: opts.onStartedLeading, onStoppedLeading: opts.onStoppedLeading, onNewLeader: opts.onNewLeader };
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
    this.lock = new LeaseLock({ transport: opts.transport, namespace: opts.namespace, name: opts.name, ...(opts.labels ? { labels: opts.labels } : {}) });
    this.log = (opts.logger ?? getLogger()).child({ component: 'leaderelection', lease: this.lock.describe(), identity: this.identity });
    this.metricName = opts.name;
    this.gauge = leaderElectionStatusGauge(opts.registry);
    this.gauge.set({ name: this.metricName }, 0);
  }

  /** True from the moment this process acquired the lease until it stopped leading. */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed on the Lease ('' if none or never read). */
  getLeader(): string {
    return this.observedRecord?.holderIdentity ?? '';
  }

  /**
   * Campaigns for the lease until `signal` aborts; once leader, renews until the signal aborts or renewal fails.
   * Resolves when done; rejects only with a {@link LeaderElectionAccessError} (see the module comment). One `run` at
   * a time per elector.
   */
  async run(signal?: AbortSignal): Promise<void> {
    if (this.running) throw new Error('LeaderElector.run is already running');
    this.running = true;
    try {
      if (!(await this.acquire(signal))) return;
      const leadership = new AbortController();
      const stop = (): void => leadership.abort(signal?.reason);
      signal?.addEventListener('abort', stop, { once: true });
      this.leading = true;
      this.gauge.set({ name: this.metricName }, 1);
      const work = this.startLeading(leadership.signal);
      await this.renew(leadership.signal);
      signal?.removeEventListener('abort', stop);
      this.leading = false;
      this.gauge.set({ name: this.metricName }, 0);
      leadership.abort(new Error('leader election lost or stopped'));
      await work;
      if (this.releaseOnCancel) await this.release();
      this.log.info('stopped leading');
      this.safeCall('onStoppedLeading', () => this.callbacks.onStoppedLeading?.());
    } finally {
      this.running = false;
    }
  }

  private async acquire(signal: AbortSignal | undefined): Promise<boolean> {
    this.log.info('attempting to acquire leader lease');
    for (;;) {
      if (signal?.aborted) return false;
      const ok = await this.tryAcquireOrRenew(signal, true);
      this.maybeReportTransition();
      if (ok) {
        this.log.info('successfully acquired lease');
        return true;
      }
      const wait = this.retryPeriodMs * (1 + LEADER_ELECTION_JITTER_FACTOR * this.random());
      if (!(await this.pause(wait, signal))) return false;
    }
  }

  /** Renewal rounds every retryPeriod; returns when `signal` aborts or a round misses the renew deadline. */
  private async renew(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) return;
      const deadline = new AbortController();
      const timer = this.clock.setTimeout(() => deadline.abort(new Error('renew deadline exceeded')), this.renewDeadlineMs);
      const round = AbortSignal.any([signal, deadline.signal]);
      let renewed = false;
      try {
        for (;;) {
          if (round.aborted) break;
          if (await this.tryAcquireOrRenew(round)) {
            renewed = true;
            break;
          }
          if (!(await this.pause(this.retryPeriodMs, round))) break;
        }
      } finally {
        this.clock.clearTimeout(timer);
      }
      this.maybeReportTransition();
      if (!renewed) {
        if (!signal.aborted) this.log.error('failed to renew lease within the renew deadline, giving up leadership', { renewDeadlineMs: this.renewDeadlineMs });
        return;
      }
      if (!(await this.pause(this.retryPeriodMs, signal))) return;
    }
  }

  /**
   * One attempt (client-go `tryAcquireOrRenew`): true when this process holds the lease afterwards. With
   * `denialIsFatal`, a 403/401 throws a {@link LeaderElectionAccessError} instead of counting as a failed attempt.
   */
  private async tryAcquireOrRenew(signal: AbortSignal | undefined, denialIsFatal = false): Promise<boolean> {
    const denied = (err: unknown): void => {
      if (denialIsFatal && !signal?.aborted && (isForbidden(err) || isUnauthorized(err))) throw new LeaderElectionAccessError(this.lock.describe(), err);
    };
    const now = this.clock.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.floor(this.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };
    let current: ObservedLease;
    try {
      current = await this.bounded(signal, (s) => this.lock.get(s));
    } catch (err) {
      denied(err);
      if (!isNotFound(err)) {
        if (!signal?.aborted) this.log.error('error retrieving resource lock', { error: err });
        return false;
      }
      try {
        this.setObserved(await this.bounded(signal, (s) => this.lock.create(desired, s)));
        return true;
      } catch (createErr) {
        denied(createErr);
        if (!signal?.aborted) this.log.error('error initially creating leader election record', { error: createErr });
        return false;
      }
    }
    if (current.raw !== this.observedRaw) this.setObserved(current);
    const old = current.record;
    if (old.holderIdentity !== '' && this.observedTime + old.leaseDurationSeconds * 1000 > this.clock.now() && !this.holdsObservedLease()) {
      this.log.debug('lock is held by another candidate and has not yet expired', { holder: old.holderIdentity });
      return false;
    }
    if (this.holdsObservedLease()) {
      desired.acquireTime = old.acquireTime;
      desired.leaderTransitions = old.leaderTransitions;
    } else {
      desired.leaderTransitions = old.leaderTransitions + 1;
    }
    try {
      this.setObserved(await this.bounded(signal, (s) => this.lock.update(desired, s)));
      return true;
    } catch (err) {
      denied(err);
      if (!signal?.aborted) this.log.error('failed to update lock', { error: err });
      return false;
    }
  }

  /**
   * Gives the lease up (client-go `release`): no holder, 1 s duration, same transition count. A renewal cut short by
   * the stop may still have reached the apiserver, so the Lease can have moved past the version last seen: on a
   * Conflict the Lease is read again and, while this process still holds it, released at that version.
   */
  private async release(): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      if (!this.holdsObservedLease() || this.observedRecord === undefined) return true;
      const now = this.clock.now();
      const record: LeaderElectionRecord = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaderTransitions: this.observedRecord.leaderTransitions,
      };
      try {
        this.setObserved(await this.bounded(undefined, (s) => this.lock.update(record, s)));
        this.log.info('released leader lease');
        return true;
      } catch (err) {
        if (attempt === 1 && isConflict(err)) {
          try {
            this.setObserved(await this.bounded(undefined, (s) => this.lock.get(s)));
            continue;
          } catch {
            // fall through: report the conflict
          }
        }
        this.log.error('failed to release lock', { error: err });
        return false;
      }
    }
  }

  private holdsObservedLease(): boolean {
    return this.observedRecord?.holderIdentity === this.identity;
  }

  private setObserved(observed: ObservedLease): void {
    this.observedRecord = observed.record;
    this.observedRaw = observed.raw;
    this.observedTime = this.clock.now();
  }

  private maybeReportTransition(): void {
    const holder = this.observedRecord?.holderIdentity ?? '';
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder === '') return;
    this.log.info('new leader elected', { leader: holder });
    this.safeCall('onNewLeader', () => this.callbacks.onNewLeader?.(holder));
  }

  private startLeading(signal: AbortSignal): Promise<void> {
    const cb = this.callbacks.onStartedLeading;
    if (cb === undefined) return Promise.resolve();
    return Promise.resolve()
      .then(() => cb(signal))
      .catch((err: unknown) => this.log.error('onStartedLeading failed', { error: err }));
  }

  /** Runs `fn` with a signal that also aborts after `requestTimeoutMs` on the elector's clock. */
  private async bounded<T>(signal: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeout = new AbortController();
    const timer = this.clock.setTimeout(() => timeout.abort(new ConnectionStalledError('leader election request timed out')), this.requestTimeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    let onAbort: (() => void) | undefined;
    // Race the abort too, in case a transport does not honour the signal: a hung request must not pin leadership.
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(combined.reason);
      if (combined.aborted) onAbort();
      else combined.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([fn(combined), aborted]);
    } finally {
      this.clock.clearTimeout(timer);
      if (onAbort) combined.removeEventListener('abort', onAbort);
      aborted.catch(() => undefined);
    }
  }

  /** Sleeps on the clock; false when `signal` aborted first. */
  private async pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await sleep(this.clock, ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  private safeCall(name: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error(`${name} callback threw`, { error: err });
    }
  }
}
