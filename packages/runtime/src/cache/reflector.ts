import { realClock, sleep, type Clock, type TimerHandle } from '../clock.js';
import { ApiError, ConnectionStalledError, isConnectionError, isGone, isTooManyRequests } from '../client/errors.js';
import type { ListOptions } from '../client/interfaces.js';
import type { KubeObject, Status, Watch, WatchEvent } from '../client/types.js';
import { getLogger, type Logger } from '../log.js';
import { RepeatFilter } from '../log-repeats.js';
import { Backoff, REFLECTOR_BACKOFF } from './backoff.js';
import type { ListerWatcher, ReflectorOptions, ReflectorPhase, ReflectorStore } from './reflector-types.js';

export type { ListerWatcher, ReflectorOptions, ReflectorPhase, ReflectorStore } from './reflector-types.js';

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

type WatchOutcome = 'ended' | 'idle' | 'expired';

/**
 * Keeps a {@link ReflectorStore} equal to the server's state of one resource: lists (paginated), then watches from
 * the list's resourceVersion with bookmarks, resuming every new watch from the last resourceVersion seen.
 *
 * Recovery (it never gives up on its own, only `stop()` ends it):
 * - watch ended by the server (timeout) or the network: a new watch from the last resourceVersion, no relist;
 * - watch silent for `idleTimeoutMs` (default: 3 min when the server sends periodic bookmarks, else the watch's
 *   server timeout + 30 s): stopped and replaced, no relist;
 * - 410 Gone / Expired (when opening the watch or as an in-stream ERROR): relist at once (after a jitter below
 *   0.5 s) at the last resourceVersion (served by the watch cache, "not older than"); if that list answers 410 too,
 *   the next one is a consistent list (`resourceVersion=""`);
 * - network errors and 429 when opening a watch: the watch backoff, then a new watch;
 * - any other error: the relist backoff, then relist.
 * The two backoffs are separate (as client-go keeps watch retries apart from relists), exponential with jitter
 * (800 ms → 30 s), and each starts over after 10 s of health. A watch that stays silent or does not open in time
 * is stopped as a stall (`ConnectionStalledError`), so the transport moves off the connection it used. Every error
 * goes to `onError`; the logger gets connection failures at info level and other errors at error level, repeats of
 * the same failure at most every 30 s (with a count).
 */
export class Reflector<T extends KubeObject> {
  readonly name: string;
  private readonly lw: ListerWatcher<T>;
  private readonly store: ReflectorStore<T>;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Waits between attempts to open a watch that failed on the network or with 429. */
  private readonly watchBackoff: Backoff;
  /** Waits before a relist that follows an error. */
  private readonly relistBackoff: Backoff;
  private readonly repeats: RepeatFilter;
  private readonly opts: ReflectorOptions;
  private readonly abort = new AbortController();
  private lastRV = '';
  private lastRVUnavailable = false;
  private paginatedResult = false;
  private periodicBookmarks = false;
  private currentWatch: Watch<T> | undefined;
  private running: Promise<void> | undefined;

  constructor(lw: ListerWatcher<T>, store: ReflectorStore<T>, opts: ReflectorOptions = {}) {
    this.lw = lw;
    this.store = store;
    this.opts = opts;
    this.name = opts.name ?? 'reflector';
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ reflector: this.name });
    this.watchBackoff = new Backoff(this.clock, opts.backoff, REFLECTOR_BACKOFF);
    this.relistBackoff = new Backoff(this.clock, opts.backoff, REFLECTOR_BACKOFF);
    this.repeats = new RepeatFilter(this.clock);
  }

  /** The resourceVersion of the last list, event or bookmark seen (`''` before the first list). */
  get lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * Starts listing and watching; resolves once stopped (by `stop()` or `signal`). Never rejects.
   * Calling it again returns the same promise.
   */
  run(signal?: AbortSignal): Promise<void> {
    if (signal) {
      if (signal.aborted) this.abort.abort();
      else signal.addEventListener('abort', () => this.abort.abort(), { once: true });
    }
    this.running ??= this.loop();
    return this.running;
  }

  /** Stops the reflector and its open watch; resolves when its loop has ended. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.currentWatch?.stop();
    await this.running;
  }

  private async loop(): Promise<void> {
    this.log.debug('reflector starting');
    while (!this.stopped) {
      let delay: number;
      try {
        await this.list();
        await this.watchUntilRelist();
        // A 410: the data is still there, only our resourceVersion is too old. Relist now, not after a backoff.
        delay = (this.opts.random ?? Math.random)() * EXPIRED_RELIST_JITTER_MS;
      } catch (err) {
        if (this.stopped) break;
        this.report(err, err instanceof PhaseError ? err.phase : 'watch');
        delay = this.relistBackoff.next();
      }
      if (this.stopped) break;
      if (delay > 0 && !(await this.sleep(delay))) break;
    }
    this.currentWatch?.stop();
    this.log.debug('reflector stopped');
  }

  /** Lists every page, then replaces the store's content. */
  private async list(): Promise<void> {
    const rv = this.lastRVUnavailable ? '' : this.lastRV || (this.opts.initialResourceVersion ?? '0');
    let pageSize = this.opts.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
    // As client-go: without an explicit page size, a list at a specific RV is not paginated, so the watch cache serves it.
    if (this.opts.pageSize === undefined && !this.paginatedResult && rv !== '' && rv !== '0') pageSize = 0;
    const items: T[] = [];
    let listRV = '';
    let cont: string | undefined;
    let pages = 0;
    for (;;) {
      const opts: ListOptions = {
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        resourceVersion: cont ? undefined : rv,
        limit: pageSize > 0 ? pageSize : undefined,
        continue: cont,
      };
      let page;
      try {
        page = await this.withTimeout(this.opts.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS, 'list', (signal) => this.lw.list({ ...opts, signal }));
      } catch (err) {
        if (isGone(err) && cont) {
          // The continue token expired mid-way: start over with one unpaginated list (client-go's pager fallback).
          this.log.info('list continuation expired; falling back to a full list', { resourceVersion: rv });
          items.length = 0;
          cont = undefined;
          pageSize = 0;
          continue;
        }
        if (isGone(err)) this.lastRVUnavailable = true;
        throw new PhaseError('list', err);
      }
      pages++;
      for (const item of page.items ?? []) items.push(item);
      listRV = page.metadata?.resourceVersion ?? listRV;
      cont = page.metadata?.continue || undefined;
      if (cont && rv === '0') this.paginatedResult = true;
      if (!cont) break;
    }
    this.lastRVUnavailable = false;
    this.log.debug('listed', { items: items.length, pages, resourceVersion: listRV });
    try {
      this.store.replace(items, listRV);
    } catch (err) {
      this.report(err, 'list');
    }
    this.lastRV = listRV;
  }

  /** Opens watch after watch from the last RV; returns when a relist is needed, throws on errors that need one. */
  private async watchUntilRelist(): Promise<void> {
    const [min, max] = this.opts.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS;
    const random = this.opts.random ?? Math.random;
    while (!this.stopped) {
      let watch: Watch<T>;
      const timeoutSeconds = Math.floor(min + random() * (max - min));
      try {
        // Opening is bounded too: a dead pooled connection must not hang the reflector.
        watch = await this.withTimeout(
          this.opts.idleTimeoutMs ?? DEFAULT_WATCH_OPEN_TIMEOUT_MS,
          'opening the watch',
          (signal) =>
            this.lw.watch({
              labelSelector: this.opts.labelSelector,
              fieldSelector: this.opts.fieldSelector,
              resourceVersion: this.lastRV,
              allowWatchBookmarks: true,
              timeoutSeconds,
              signal,
            }),
          (w) => w.stop(),
        );
      } catch (err) {
        if (this.stopped) return;
        if (isGone(err)) {
          this.log.info('watch resourceVersion expired; relisting', { resourceVersion: this.lastRV });
          return;
        }
        if (err instanceof ApiError && !isTooManyRequests(err)) throw new PhaseError('watch', err);
        // Network errors (apiserver down, connection refused) and 429: keep the cache, retry the watch later.
        this.report(err, 'watch');
        if (!(await this.sleep(this.watchBackoff.next()))) return;
        continue;
      }
      const idleMs = this.opts.idleTimeoutMs ?? (this.periodicBookmarks ? DEFAULT_IDLE_TIMEOUT_MS : timeoutSeconds * 1000 + IDLE_GRACE_MS);
      const outcome = await this.consume(watch, idleMs, timeoutSeconds * 1000);
      if (outcome === 'expired') {
        this.log.info('watch expired (410); relisting', { resourceVersion: this.lastRV });
        return;
      }
      if (outcome === 'idle') {
        this.report(new Error(`watch delivered nothing for ${idleMs} ms; replacing it`), 'watch');
      }
    }
  }

  /** Feeds one watch's events into the store until it ends. */
  private async consume(watch: Watch<T>, idleMs: number, serverTimeoutMs: number): Promise<WatchOutcome> {
    this.currentWatch = watch;
    if (this.stopped) watch.stop();
    const started = this.clock.now();
    let last = started;
    let events = 0;
    let idle = false;
    let timer: TimerHandle | undefined;
    const arm = (ms: number): void => {
      timer = this.clock.setTimeout(() => {
        const quiet = this.clock.now() - last;
        if (quiet >= idleMs) {
          idle = true;
          watch.stop(new ConnectionStalledError(`the watch delivered nothing for ${idleMs} ms`));
        } else {
          arm(idleMs - quiet);
        }
      }, ms);
    };
    arm(idleMs);
    let streamError: unknown;
    try {
      for await (const event of watch) {
        last = this.clock.now();
        events++;
        if (event.type === 'ERROR') {
          const status = event.object as unknown as Status;
          if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') return 'expired';
          throw new PhaseError('watch', new ApiError(status));
        }
        this.apply(event);
        // A bookmark well before the server timeout means the server sends them periodically (not just at the end).
        if (event.type === 'BOOKMARK' && last - started < serverTimeoutMs - 5000) this.periodicBookmarks = true;
        if (this.stopped) break;
      }
    } catch (err) {
      if (err instanceof PhaseError) throw err;
      streamError = err;
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
      this.currentWatch = undefined;
      watch.stop();
    }
    if (this.stopped) return 'ended';
    if (idle) return 'idle';
    if (streamError !== undefined) this.report(streamError, 'watch');
    if (events === 0 && this.clock.now() - started < VERY_SHORT_WATCH_MS) {
      throw new PhaseError('watch', new Error('very short watch: the watch ended within 1s without any event'));
    }
    return 'ended';
  }

  private apply(event: WatchEvent<T>): void {
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

  /**
   * Runs a request with a signal that aborts on stop or after `ms`; settles as soon as either happens even if the
   * transport ignores the signal (a late result is handed to `dispose`). The signal is left alone once it settled.
   */
  private async withTimeout<R>(ms: number, what: string, fn: (signal: AbortSignal) => Promise<R>, dispose?: (value: R) => void): Promise<R> {
    const ctl = new AbortController();
    const onStop = (): void => ctl.abort(this.abort.signal.reason);
    this.abort.signal.addEventListener('abort', onStop, { once: true });
    if (this.abort.signal.aborted) onStop();
    const timer = this.clock.setTimeout(() => ctl.abort(new ConnectionStalledError(`${what} timed out after ${ms} ms`)), ms);
    try {
      return await abortable(fn(ctl.signal), ctl.signal, dispose);
    } finally {
      this.clock.clearTimeout(timer);
      this.abort.signal.removeEventListener('abort', onStop);
    }
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
    const cause = err instanceof PhaseError ? err.cause : err;
    const message = cause instanceof Error ? cause.message : String(cause);
    const connection = isConnectionError(cause);
    const code = (cause as { code?: unknown } | null)?.code;
    const admitted = this.repeats.admit(`${phase}|${connection && typeof code === 'string' ? code : message}`);
    if (admitted) {
      const fields = { error: message, resourceVersion: this.lastRV, ...(admitted.repeated > 0 ? { repeated: admitted.repeated } : {}) };
      // The apiserver being away is retried without a person's help: warn. Anything else may need one: error.
      if (connection) this.log.warn(`${phase} failed; retrying`, fields);
      else this.log.error(`${phase} failed`, fields);
    }
    try {
      this.opts.onError?.(cause, phase);
    } catch (e) {
      this.log.error('reflector error handler threw', { error: e instanceof Error ? e.message : String(e) });
    }
  }
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts (for transports that ignore the signal).
 * A value that arrives after the abort is handed to `dispose`.
 */
function abortable<R>(promise: Promise<R>, signal: AbortSignal, dispose?: (value: R) => void): Promise<R> {
  if (signal.aborted) {
    void promise.then(dispose, () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<R>((resolve, reject) => {
    let done = false;
    const onAbort = (): void => {
      if (done) return;
      done = true;
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        if (done) dispose?.(v);
        else {
          done = true;
          resolve(v);
        }
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        if (!done) {
          done = true;
          reject(e);
        }
      },
    );
  });
}

/** Tags an error with the phase it came from. */
class PhaseError extends Error {
  constructor(
    readonly phase: ReflectorPhase,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}
