/**
 * The reflector (client-go `tools/cache/reflector.go`): keeps a store equal to the server's state of one resource by
 * listing (cache/pager.ts) or streaming it (WatchList, cache/watch-list.ts), then watching from there. Its options
 * and their defaults are in reflector-types.ts, its errors and how it reports them in reflector-errors.ts.
 */
import { realClock, type Clock } from '../clock.js';
import { sleep, withTimeout } from '../deadline.js';
import { ApiError, ConnectionStalledError, isGone, isTooLargeResourceVersion, isTooManyRequests } from '../client/errors.js';
import type { ListOptions, WatchOptions } from '../client/interfaces.js';
import type { KubeList, KubeObject, Watch } from '../client/types.js';
import { getLogger, type Logger } from '../log.js';
import { startListSpan, startWatchSpan, type ListReason, type WatchSpan } from '../tracing/informer-span.js';
import { Backoff, REFLECTOR_BACKOFF } from './backoff.js';
import { listPages, type PagedList } from './pager.js';
import { causeOf, ErrorReporter, PhaseError, VeryShortWatchError } from './reflector-errors.js';
import {
  DEFAULT_LIST_PAGE_SIZE,
  DEFAULT_LIST_TIMEOUT_MS,
  DEFAULT_WATCH_OPEN_TIMEOUT_MS,
  DEFAULT_WATCH_TIMEOUT_SECONDS,
  EXPIRED_RELIST_JITTER_MS,
  type ListerWatcher,
  type ReflectorOptions,
  type ReflectorPhase,
  type ReflectorStore,
} from './reflector-types.js';
import { WatchHandler, type WatchOutcome } from './watch-handler.js';
import { InitialEvents, isWatchListRejected, WatchListChoice } from './watch-list.js';

export type { ListerWatcher, ReflectorOptions, ReflectorPhase, ReflectorStore, WatchListMode } from './reflector-types.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_LIST_PAGE_SIZE,
  DEFAULT_LIST_TIMEOUT_MS,
  DEFAULT_WATCH_OPEN_TIMEOUT_MS,
  DEFAULT_WATCH_TIMEOUT_SECONDS,
  EXPIRED_RELIST_JITTER_MS,
  IDLE_GRACE_MS,
  VERY_SHORT_WATCH_MS,
} from './reflector-types.js';

/**
 * Keeps a {@link ReflectorStore} equal to the server's state of one resource. The initial state (and every relist)
 * comes from a WatchList stream or from a paginated list, per {@link ReflectorOptions.watchList} (default `'auto'`:
 * WatchList, falling back to list + watch on servers without it); then it watches from that state's resourceVersion
 * with bookmarks, resuming every new watch from the last resourceVersion seen.
 *
 * Recovery (it never gives up on its own, only `stop()` ends it):
 * - watch ended by the server (timeout) or the network: a new watch from the last resourceVersion, no relist;
 * - watch silent for `idleTimeoutMs` (default: 3 min when the server sends periodic bookmarks, else the watch's
 *   server timeout + 30 s): stopped and replaced, no relist;
 * - 410 Gone / Expired (when opening the watch or as an in-stream ERROR): relist at once (after a jitter below
 *   0.5 s) at the last resourceVersion (served by the watch cache, "not older than"); if that list answers 410 (or
 *   "too large resource version") too, the next one is a consistent list (`resourceVersion=""`);
 * - network errors and 429 when opening a watch: the watch backoff, then a new watch;
 * - any other error: the relist backoff, then relist.
 * A WatchList stream that fails before its initial-events-end bookmark is discarded with everything it brought
 * and started over: at once with `resourceVersion=""` after a 410 or "too large resource version", after the watch
 * backoff when the connection dropped, ended or went silent.
 * The two backoffs are separate (as client-go keeps watch retries apart from relists), exponential with jitter
 * (800 ms → 30 s), and each starts over after 10 s of health. A watch that stays silent or does not open in time
 * is stopped as a stall (`ConnectionStalledError`), so the transport moves off the connection it used. Every error
 * goes to `onError`; the logger gets connection failures at warn level and other errors at error level, repeats of
 * the same failure at most every 30 s (with a count). Which of WatchList or list + watch is used is logged once at
 * info level. While tracing is on, each list and each watch is a span (tracing/informer-span.ts).
 */
export class Reflector<T extends KubeObject> {
  readonly name: string;
  private readonly lw: ListerWatcher<T>;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Waits between attempts to open a watch that failed on the network or with 429. */
  private readonly watchBackoff: Backoff;
  /** Waits before a relist that follows an error. */
  private readonly relistBackoff: Backoff;
  private readonly opts: ReflectorOptions;
  private readonly choice: WatchListChoice;
  private readonly abort = new AbortController();
  private readonly reporter: ErrorReporter;
  /** Feeds watches and lists into the store; holds the resourceVersion to resume from and the stall state. */
  private readonly handler: WatchHandler<T>;

  constructor(lw: ListerWatcher<T>, store: ReflectorStore<T>, opts: ReflectorOptions = {}) {
    this.lw = lw;
    this.opts = opts;
    this.name = opts.name ?? 'reflector';
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ reflector: this.name });
    this.watchBackoff = new Backoff(this.clock, opts.backoff, REFLECTOR_BACKOFF);
    this.relistBackoff = new Backoff(this.clock, opts.backoff, REFLECTOR_BACKOFF);
    this.reporter = new ErrorReporter(this.log, this.clock, opts.onError);
    this.choice = new WatchListChoice(opts.watchList, lw, this.log);
    this.handler = new WatchHandler(store, this.clock, this.log, this.choice, opts, {
      stopped: () => this.stopped,
      report: (err, phase) => this.report(err, phase),
    });
  }

  /** The resourceVersion of the last list, event or bookmark seen (`''` before the first list). */
  get lastSyncResourceVersion(): string {
    return this.handler.lastRV;
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
    return this.handler.stalledAt;
  }

  /**
   * Opens a watch with the reflector's selectors and bookmarks; bounded, as a dead pooled connection must not hang
   * it. No answer within the bound is a stall, as a watch that delivers nothing.
   */
  private async openWatch(
    extra: Pick<WatchOptions, 'resourceVersion' | 'resourceVersionMatch' | 'sendInitialEvents'>,
    timeoutSeconds: number,
    span: WatchSpan | undefined,
  ): Promise<Watch<T>> {
    const limit = this.opts.idleTimeoutMs ?? DEFAULT_WATCH_OPEN_TIMEOUT_MS;
    const started = this.clock.now();
    const open = (): Promise<Watch<T>> =>
      this.withTimeout(
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
    try {
      if (!span) return await open();
      const watch = await span.run(open);
      span.established();
      return watch;
    } catch (err) {
      const waited = this.clock.now() - started;
      if (!this.stopped && waited >= limit) this.handler.stalled(waited);
      throw err;
    }
  }

  private watchTimeoutSeconds(): number {
    const [min, max] = this.opts.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS;
    return Math.floor(min + (this.opts.random ?? Math.random)() * (max - min));
  }

  /** `withTimeout` bound to this reflector's clock and stop signal. */
  private withTimeout<R>(ms: number, what: string, fn: (signal: AbortSignal) => Promise<R>, dispose?: (value: R) => void): Promise<R> {
    return withTimeout(this.clock, ms, fn, {
      signal: this.abort.signal,
      timeoutError: () => new ConnectionStalledError(`${what} timed out after ${ms} ms`),
      ...(dispose ? { dispose } : {}),
    });
  }

  /** Sleeps on the clock; false when stopped meanwhile. */
  private async sleep(ms: number): Promise<boolean> {
    try {
      await sleep(this.clock, ms, this.abort.signal);
      return true;
    } catch {
      return false;
    }
  }

  private report(err: unknown, phase: ReflectorPhase): void {
    this.reporter.report(err, phase, this.handler.lastRV);
  }

  private paginatedResult = false;
  private running: Promise<void> | undefined;
  /** Why the next list runs, for its span (tracing/informer-span.ts). */
  private listReason: ListReason = 'initial';
  /** The span of the watch whose 410 the next list follows (only while tracing is on). */
  private expiredWatch: WatchSpan | undefined;

  /**
   * How the next (re)list will get the state: `watch-list` or `list`. In `'auto'` mode it is `watch-list` until the
   * server (or the lister-watcher) has shown it does not support WatchList.
   */
  get initialStateMode(): 'watch-list' | 'list' {
    return this.choice.next;
  }

  /**
   * Starts listing and watching; resolves once stopped (by `stop()` or `signal`). Never rejects.
   * Calling it again returns the same promise.
   */
  run(signal?: AbortSignal): Promise<void> {
    if (signal) {
      // As stop(): the open watch was opened under a signal of its own, so it is ended here too.
      const stop = (): void => {
        this.abort.abort();
        this.handler.currentWatch?.stop();
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    }
    this.running ??= this.loop();
    return this.running;
  }

  /** Stops the reflector and its open watch; resolves when its loop has ended. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.handler.currentWatch?.stop();
    await this.running;
  }

  private async loop(): Promise<void> {
    this.log.debug('reflector starting', { watchList: this.choice.mode });
    while (!this.stopped) {
      let delay: number;
      try {
        if (this.choice.next === 'list' || !(await this.watchListAndWatch())) {
          this.choice.listing();
          await this.list();
          await this.watchUntilRelist();
        }
        // A 410: the data is still there, only our resourceVersion is too old. Relist now, not after a backoff.
        delay = (this.opts.random ?? Math.random)() * EXPIRED_RELIST_JITTER_MS;
        this.listReason = 'expired';
      } catch (err) {
        if (this.stopped) break;
        this.listReason = 'error';
        this.report(err, err instanceof PhaseError ? err.phase : 'watch');
        delay = this.relistBackoff.next();
      }
      if (this.stopped) break;
      if (delay > 0 && !(await this.sleep(delay))) break;
    }
    this.handler.currentWatch?.stop();
    this.log.debug('reflector stopped');
  }

  /** Lists every page, then replaces the store's content. */
  private async list(): Promise<void> {
    const rv = this.handler.lastRVUnavailable ? '' : this.handler.lastRV || (this.opts.initialResourceVersion ?? '0');
    let pageSize = this.opts.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
    // As client-go: without an explicit page size, a list at a specific RV is not paginated, so the watch cache serves it.
    if (this.opts.pageSize === undefined && !this.paginatedResult && rv !== '' && rv !== '0') pageSize = 0;
    const request = (opts: ListOptions): Promise<KubeList<T>> =>
      this.withTimeout(this.opts.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS, 'list', (signal) => this.lw.list({ ...opts, signal }));
    // Traced: a `list <informer>` span, the pages' client spans its children; undefined while tracing is off.
    const span = startListSpan(this.name, rv, this.listReason, this.expiredWatch?.context);
    this.expiredWatch = undefined;
    const first = { labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector, shardSelector: this.opts.shardSelector, resourceVersion: rv };
    const pages = (): Promise<PagedList<T>> => listPages(request, pageSize > 0 ? { ...first, limit: pageSize } : first, this.log, span && (() => span.restarted()));
    let list;
    try {
      list = span ? await span.run(pages) : await pages();
    } catch (err) {
      span?.end(undefined, err);
      if (isGone(err) || isTooLargeResourceVersion(err)) this.handler.lastRVUnavailable = true;
      throw new PhaseError('list', err);
    }
    span?.end({ pages: list.pages, items: list.items.length, resourceVersion: list.resourceVersion });
    if (list.pages > 1 && rv === '0') this.paginatedResult = true;
    this.handler.lastRVUnavailable = false;
    this.log.debug('listed', { items: list.items.length, pages: list.pages, resourceVersion: list.resourceVersion });
    this.handler.replace(list.items, list.resourceVersion, span?.context);
  }

  /**
   * Syncs through a WatchList stream, then keeps watching on it (and on later watches) until a relist is needed.
   * False when the caller should list instead: the server does not support WatchList (remembered), or, in `'auto'`
   * mode, this attempt failed in a way a list may not (client-go's per-sync fallback).
   */
  private async watchListAndWatch(): Promise<boolean> {
    while (!this.stopped) {
      const rv = this.handler.lastRVUnavailable ? '' : this.handler.lastRV;
      const timeoutSeconds = this.watchTimeoutSeconds();
      const span = startWatchSpan(this.name, rv, true);
      let watch: Watch<T>;
      try {
        watch = await this.openWatch({ resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true }, timeoutSeconds, span);
      } catch (err) {
        if (isGone(err)) span?.end('expired', 'relist');
        else if (this.choice.auto && isWatchListRejected(err)) span?.end('rejected', 'relist'); // expected: lists instead
        else span?.end(undefined, undefined, err);
        if ((await this.initialFailure(err, rv)) === 'list') return false;
        continue;
      }
      const initial = new InitialEvents<T>();
      let outcome: WatchOutcome;
      try {
        outcome = await this.handler.consume(watch, timeoutSeconds, initial, span);
      } catch (err) {
        if (initial.complete) throw err;
        if ((await this.initialFailure(causeOf(err), rv)) === 'list') return false;
        continue;
      }
      if (this.stopped) return true;
      if (initial.complete) {
        if (this.afterWatch(outcome, timeoutSeconds) === 'rewatch') await this.watchUntilRelist();
        else this.expiredWatch = span;
        return true;
      }
      if (outcome === 'ignored') {
        this.choice.unsupported('the WatchList stream sent changes, or nothing, instead of its initial-events-end bookmark');
        return false;
      }
      if (outcome === 'expired') {
        const expired = new ApiError({ code: 410, reason: 'Expired', message: 'expired during the WatchList stream' });
        if ((await this.initialFailure(expired, rv)) === 'list') return false;
        continue;
      }
      // Dropped, ended or silent before the end bookmark: what it brought is discarded; start over.
      if (outcome === 'idle') this.report(new Error(`WatchList stream delivered nothing for ${this.handler.idleMs(timeoutSeconds)} ms; starting over`), 'list');
      else if (outcome === 'ended') this.report(new Error('WatchList stream ended before its initial-events-end bookmark; starting over'), 'list');
      if (!(await this.sleep(this.watchBackoff.next()))) return true;
    }
    return true;
  }

  /** What to do after a WatchList request or stream failed before its end bookmark: retry, list, or throw. */
  private async initialFailure(err: unknown, rv: string): Promise<'retry' | 'list'> {
    if (this.stopped) return 'retry';
    if ((isGone(err) || isTooLargeResourceVersion(err)) && rv !== '') {
      // client-go: the resourceVersion is gone or ahead of the server's cache; stream the current state instead.
      this.log.info('WatchList resourceVersion unavailable; streaming the current state', { resourceVersion: rv, error: String(causeOf(err)) });
      this.handler.lastRVUnavailable = true;
      return 'retry';
    }
    if (this.choice.auto && isWatchListRejected(err)) {
      this.choice.unsupported(err instanceof Error ? err.message : String(err));
      return 'list';
    }
    if (!(err instanceof ApiError || err instanceof VeryShortWatchError) || isTooManyRequests(err)) {
      // Network errors and 429: the server may well support it; try again after the watch backoff.
      this.report(err, 'list');
      await this.sleep(this.watchBackoff.next());
      return 'retry';
    }
    if (!this.choice.auto) throw new PhaseError('list', err);
    this.report(err, 'list');
    this.log.debug('WatchList failed; listing for this sync', { error: String(err) });
    return 'list';
  }

  /** Opens watch after watch from the last RV; returns when a relist is needed, throws on errors that need one. */
  private async watchUntilRelist(): Promise<void> {
    while (!this.stopped) {
      let watch: Watch<T>;
      const timeoutSeconds = this.watchTimeoutSeconds();
      // Traced: a `watch <informer>` span from the request to the watch's end; undefined while tracing is off.
      const span = startWatchSpan(this.name, this.handler.lastRV, false);
      try {
        watch = await this.openWatch({ resourceVersion: this.handler.lastRV }, timeoutSeconds, span);
      } catch (err) {
        if (this.stopped) {
          span?.end('ended', undefined);
          return;
        }
        if (isGone(err)) {
          span?.end('expired', 'relist');
          this.expiredWatch = span;
          this.log.info('watch resourceVersion expired; relisting', { resourceVersion: this.handler.lastRV });
          return;
        }
        span?.end(undefined, err instanceof ApiError && !isTooManyRequests(err) ? 'relist' : 'rewatch', err);
        if (err instanceof ApiError && !isTooManyRequests(err)) throw new PhaseError('watch', err);
        // Network errors (apiserver down, connection refused) and 429: keep the cache, retry the watch later.
        this.report(err, 'watch');
        if (!(await this.sleep(this.watchBackoff.next()))) return;
        continue;
      }
      if (this.afterWatch(await this.handler.consume(watch, timeoutSeconds, undefined, span), timeoutSeconds) === 'relist') {
        this.expiredWatch = span;
        return;
      }
    }
  }

  /** Reports how a synced watch ended; `relist` after a 410. */
  private afterWatch(outcome: WatchOutcome, timeoutSeconds: number): 'relist' | 'rewatch' {
    if (outcome === 'expired') {
      this.log.info('watch expired (410); relisting', { resourceVersion: this.handler.lastRV });
      return 'relist';
    }
    if (outcome === 'idle') this.report(new Error(`watch delivered nothing for ${this.handler.idleMs(timeoutSeconds)} ms; replacing it`), 'watch');
    return 'rewatch';
  }
}
