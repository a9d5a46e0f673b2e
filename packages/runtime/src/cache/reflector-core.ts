/**
 * The plumbing of a `Reflector` (reflector.ts holds the policy: when to list, stream, watch or retry): its state,
 * opening a watch, feeding one watch's events into the store (or a WatchList's initial events into a temporary
 * store, swapped in at the end bookmark), and reporting errors.
 */
import { realClock, type Clock } from '../clock.js';
import { sleep, withTimeout } from '../deadline.js';
import { ApiError, ConnectionStalledError } from '../client/errors.js';
import type { WatchOptions } from '../client/interfaces.js';
import type { KubeObject, Status, Watch, WatchEvent } from '../client/types.js';
import { getLogger, type Logger } from '../log.js';
import { Backoff, REFLECTOR_BACKOFF } from './backoff.js';
import { ErrorReporter, IdleTimer, PhaseError, VeryShortWatchError } from './reflector-support.js';
import type { ListerWatcher, ReflectorOptions, ReflectorPhase, ReflectorStore } from './reflector-types.js';
import { INITIAL_EVENTS_END_WAIT_MS, type InitialEvents, WatchListChoice } from './watch-list.js';

export const DEFAULT_LIST_PAGE_SIZE = 500;
export const DEFAULT_WATCH_TIMEOUT_SECONDS: [number, number] = [300, 600];
/** Idle timeout once the server is known to send periodic bookmarks (about every minute on recent apiservers). */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;
/** Without periodic bookmarks, a watch may be idle until its server timeout; this much slack is added to it. */
export const IDLE_GRACE_MS = 30_000;
/** Opening a watch must get an answer within this (or `idleTimeoutMs` when set). */
export const DEFAULT_WATCH_OPEN_TIMEOUT_MS = 60_000;
export const DEFAULT_LIST_TIMEOUT_MS = 120_000;
/** A watch that ends sooner than this without an event counts as a failure (client-go `VeryShortWatchError`). */
export const VERY_SHORT_WATCH_MS = 1000;
/** The relist that answers a 410 waits only a random jitter below this (many informers do not relist in lockstep). */
export const EXPIRED_RELIST_JITTER_MS = 500;

/**
 * How a watch ended: `ended` by the server or a stop, `failed` on a stream error (reported), `idle` (silent too
 * long), `expired` (410), `ignored` (a WatchList the server did not honour, in `'auto'` mode).
 */
export type WatchOutcome = 'ended' | 'failed' | 'idle' | 'expired' | 'ignored';

/** State and mechanics shared by the reflector's phases; see `Reflector` for the contract. */
export abstract class ReflectorCore<T extends KubeObject> {
  readonly name: string;
  protected readonly lw: ListerWatcher<T>;
  protected readonly store: ReflectorStore<T>;
  protected readonly clock: Clock;
  protected readonly log: Logger;
  /** Waits between attempts to open a watch that failed on the network or with 429. */
  protected readonly watchBackoff: Backoff;
  /** Waits before a relist that follows an error. */
  protected readonly relistBackoff: Backoff;
  protected readonly opts: ReflectorOptions;
  protected readonly choice: WatchListChoice;
  protected readonly abort = new AbortController();
  protected lastRV = '';
  protected lastRVUnavailable = false;
  protected periodicBookmarks = false;
  protected currentWatch: Watch<T> | undefined;
  private readonly reporter: ErrorReporter;
  /** Since when (clock ms) nothing has arrived, once a watch was stopped for silence; cleared by the next event, bookmark or list. */
  private stalledAt: number | undefined;

  constructor(lw: ListerWatcher<T>, store: ReflectorStore<T>, opts: ReflectorOptions = {}) {
    this.lw = lw;
    this.store = store;
    this.opts = opts;
    this.name = opts.name ?? 'reflector';
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ reflector: this.name });
    this.watchBackoff = new Backoff(this.clock, opts.backoff, REFLECTOR_BACKOFF);
    this.relistBackoff = new Backoff(this.clock, opts.backoff, REFLECTOR_BACKOFF);
    this.reporter = new ErrorReporter(this.log, this.clock, opts.onError);
    this.choice = new WatchListChoice(opts.watchList, lw, this.log);
  }

  /** The resourceVersion of the last list, event or bookmark seen (`''` before the first list). */
  get lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * Once a watch of this reflector was stopped for delivering nothing — no event, no bookmark — for its idle timeout
   * (or did not open within it): since when (clock ms) nothing has arrived. The next event or bookmark on any watch, or a list, clears it
   * (undefined). Replacement watches that fail to open, or stay silent too, leave it set. What the informer's
   * `kubegen_informer_watch_stalled` metric and the manager's `informer-watches` readiness check report.
   */
  get watchStalledSince(): number | undefined {
    return this.stalledAt;
  }

  /**
   * Opens a watch with the reflector's selectors and bookmarks; bounded, as a dead pooled connection must not hang
   * it. No answer within the bound is a stall, as a watch that delivers nothing.
   */
  protected async openWatch(extra: Pick<WatchOptions, 'resourceVersion' | 'resourceVersionMatch' | 'sendInitialEvents'>, timeoutSeconds: number): Promise<Watch<T>> {
    const limit = this.opts.idleTimeoutMs ?? DEFAULT_WATCH_OPEN_TIMEOUT_MS;
    const started = this.clock.now();
    try {
      return await this.withTimeout(
        limit,
        'opening the watch',
        (signal) =>
          this.lw.watch({
            labelSelector: this.opts.labelSelector,
            fieldSelector: this.opts.fieldSelector,
            shardSelector: this.opts.shardSelector,
            ...extra,
            allowWatchBookmarks: true,
            timeoutSeconds,
            signal,
          }),
        (w) => w.stop(),
      );
    } catch (err) {
      const waited = this.clock.now() - started;
      if (!this.stopped && waited >= limit) this.stalled(waited);
      throw err;
    }
  }

  /** A watch stayed silent, or did not open, for `quietMs`: remember since when nothing has arrived, and say so. */
  private stalled(quietMs: number): void {
    this.stalledAt ??= this.clock.now() - quietMs;
    try {
      this.opts.onWatchStall?.(quietMs);
    } catch (err) {
      this.log.error('reflector stall handler threw', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  protected watchTimeoutSeconds(): number {
    const [min, max] = this.opts.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS;
    return Math.floor(min + (this.opts.random ?? Math.random)() * (max - min));
  }

  protected idleMs(timeoutSeconds: number): number {
    return this.opts.idleTimeoutMs ?? (this.periodicBookmarks ? DEFAULT_IDLE_TIMEOUT_MS : timeoutSeconds * 1000 + IDLE_GRACE_MS);
  }

  /**
   * Feeds one watch's events into the store until it ends. With `initial` (a WatchList stream), events up to the
   * initial-events-end bookmark go to it instead, and the store is replaced with them when the bookmark arrives.
   */
  protected async consume(watch: Watch<T>, timeoutSeconds: number, initial?: InitialEvents<T>): Promise<WatchOutcome> {
    this.currentWatch = watch;
    if (this.stopped) watch.stop();
    const idleMs = this.idleMs(timeoutSeconds);
    const serverTimeoutMs = timeoutSeconds * 1000;
    // In 'auto' mode, a WatchList stream that falls silent before its end bookmark is taken for an ignored request.
    const awaitingEnd = (): boolean => this.choice.auto && initial !== undefined && !initial.complete;
    const limit = (): number => (awaitingEnd() ? Math.min(idleMs, INITIAL_EVENTS_END_WAIT_MS) : idleMs);
    const started = this.clock.now();
    let events = 0;
    let outcome: WatchOutcome = 'ended';
    const idle = new IdleTimer(this.clock, limit, (quiet) => {
      if (awaitingEnd() && quiet < idleMs) {
        outcome = 'ignored';
        watch.stop();
      } else {
        outcome = 'idle';
        this.stalled(quiet);
        watch.stop(new ConnectionStalledError(`the watch delivered nothing for ${idleMs} ms`));
      }
    });
    const phase = (): ReflectorPhase => (initial && !initial.complete ? 'list' : 'watch');
    let streamError: unknown;
    try {
      for await (const event of watch) {
        const last = idle.touch();
        events++;
        this.stalledAt = undefined;
        if (event.type === 'ERROR') {
          const status = event.object as unknown as Status;
          if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') return 'expired';
          throw new PhaseError(phase(), new ApiError(status));
        }
        if (initial && !initial.complete) {
          const verdict = initial.accept(event);
          if (verdict === 'complete') this.swap(initial);
          else if (verdict === 'unexpected' && this.choice.auto) return 'ignored';
        } else {
          this.apply(event);
          // A bookmark well before the server timeout means the server sends them periodically (not just at the end).
          if (event.type === 'BOOKMARK' && last - started < serverTimeoutMs - 5000) this.periodicBookmarks = true;
        }
        if (this.stopped) break;
      }
    } catch (err) {
      if (err instanceof PhaseError) throw err;
      streamError = err;
    } finally {
      idle.stop();
      this.currentWatch = undefined;
      watch.stop();
    }
    if (this.stopped || outcome !== 'ended') return outcome;
    if (streamError !== undefined) this.report(streamError, phase());
    if (events === 0 && this.clock.now() - started < VERY_SHORT_WATCH_MS) throw new PhaseError(phase(), new VeryShortWatchError());
    return streamError === undefined ? 'ended' : 'failed';
  }

  /** A WatchList's initial state is whole: it replaces the store's content, as a list would. */
  protected swap(initial: InitialEvents<T>): void {
    const rv = initial.resourceVersion;
    const items = initial.take();
    this.log.debug('streamed the initial state', { items: items.length, skipped: initial.skipped, resourceVersion: rv });
    this.replace(items, rv);
    this.lastRVUnavailable = false;
    this.choice.synced(items.length, rv);
  }

  protected replace(items: T[], rv: string): void {
    this.stalledAt = undefined;
    try {
      this.store.replace(items, rv);
    } catch (err) {
      this.report(err, 'list');
    }
    this.lastRV = rv;
  }

  protected apply(event: WatchEvent<T>): void {
    const obj = event.object;
    try {
      switch (event.type) {
        case 'ADDED':
          this.store.add(obj);
          break;
        case 'MODIFIED':
          this.store.update(obj);
          break;
        case 'DELETED':
          this.store.delete(obj);
          break;
        case 'BOOKMARK':
          this.store.setResourceVersion?.(obj.metadata?.resourceVersion ?? '');
          break;
        default:
          this.log.error('unknown watch event type', { type: event.type });
      }
    } catch (err) {
      this.report(err, 'watch');
    }
    const rv = obj?.metadata?.resourceVersion;
    if (rv) this.lastRV = rv;
  }

  /** `withTimeout` bound to this reflector's clock and stop signal. */
  protected withTimeout<R>(ms: number, what: string, fn: (signal: AbortSignal) => Promise<R>, dispose?: (value: R) => void): Promise<R> {
    return withTimeout(this.clock, ms, fn, {
      signal: this.abort.signal,
      timeoutError: () => new ConnectionStalledError(`${what} timed out after ${ms} ms`),
      ...(dispose ? { dispose } : {}),
    });
  }

  /** Sleeps on the clock; false when stopped meanwhile. */
  protected async sleep(ms: number): Promise<boolean> {
    try {
      await sleep(this.clock, ms, this.abort.signal);
      return true;
    } catch {
      return false;
    }
  }

  protected report(err: unknown, phase: ReflectorPhase): void {
    this.reporter.report(err, phase, this.lastRV);
  }
}
