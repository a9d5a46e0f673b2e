/**
 * Feeding a reflector's store (client-go's `handleWatch` and the store side of reflector.go): one watch's events until
 * it ends, a WatchList stream's initial events into a temporary store swapped in at its end bookmark, a list's
 * items; and what that teaches: the resourceVersion to resume from, whether the server sends periodic bookmarks, and
 * since when nothing has arrived once a watch was stopped for silence. The `Reflector` decides when to list and watch;
 * this decides nothing, it feeds and remembers.
 */
import type { SpanContext } from '@opentelemetry/api';
import type { Clock } from '../clock.js';
import { ApiError, ConnectionStalledError } from '../client/errors.js';
import type { KubeObject, Status, Watch, WatchEvent } from '../client/types.js';
import type { Logger } from '../log.js';
import { feedingFrom } from '../tracing/event-origin.js';
import type { WatchSpan } from '../tracing/informer-span.js';
import { IdleTimer } from './idle-timer.js';
import { PhaseError, VeryShortWatchError } from './reflector-errors.js';
import { DEFAULT_IDLE_TIMEOUT_MS, IDLE_GRACE_MS, VERY_SHORT_WATCH_MS, type ReflectorOptions, type ReflectorPhase, type ReflectorStore } from './reflector-types.js';
import { INITIAL_EVENTS_END_WAIT_MS, type InitialEvents, type WatchListChoice } from './watch-list.js';

/**
 * How a watch ended: `ended` by the server or a stop, `failed` on a stream error (reported), `idle` (silent too
 * long), `expired` (410), `ignored` (a WatchList the server did not honour, in `'auto'` mode).
 */
export type WatchOutcome = 'ended' | 'failed' | 'idle' | 'expired' | 'ignored';

/** What the handler asks of its reflector: whether it was stopped, and to report an error it recovered from. */
export interface WatchHandlerHost {
  stopped(): boolean;
  report(err: unknown, phase: ReflectorPhase): void;
}

/** Feeds one reflector's store (see the module comment). */
export class WatchHandler<T extends KubeObject> {
  /** The resourceVersion of the last list, event or bookmark seen (`''` before the first list). */
  lastRV = '';
  /** The last resourceVersion is gone or ahead of the server: the next list or stream starts from `''`. */
  lastRVUnavailable = false;
  /** The watch being consumed, if any (a stop ends it). */
  currentWatch: Watch<T> | undefined;
  /** Since when (clock ms) nothing has arrived, once a watch was stopped for silence; cleared by the next event, bookmark or list. */
  stalledAt: number | undefined;
  private periodicBookmarks = false;

  constructor(
    private readonly store: ReflectorStore<T>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly choice: WatchListChoice,
    private readonly opts: ReflectorOptions,
    private readonly host: WatchHandlerHost,
  ) {}

  /** A watch stayed silent, or did not open, for `quietMs`: remember since when nothing has arrived, and say so. */
  stalled(quietMs: number): void {
    this.stalledAt ??= this.clock.now() - quietMs;
    try {
      this.opts.onWatchStall?.(quietMs);
    } catch (err) {
      this.log.error('reflector stall handler threw', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** How long a watch with this server timeout may stay silent before it is stopped as a stall. */
  idleMs(timeoutSeconds: number): number {
    return this.opts.idleTimeoutMs ?? (this.periodicBookmarks ? DEFAULT_IDLE_TIMEOUT_MS : timeoutSeconds * 1000 + IDLE_GRACE_MS);
  }

  /**
   * Feeds one watch's events into the store until it ends. With `initial` (a WatchList stream), events up to the
   * initial-events-end bookmark go to it instead, and the store is replaced with them when the bookmark arrives.
   * With `span` (tracing on), its bookmarks and event count go on it, and it is ended with the outcome (or the
   * error thrown) and what the reflector does next.
   */
  async consume(watch: Watch<T>, timeoutSeconds: number, initial?: InitialEvents<T>, span?: WatchSpan): Promise<WatchOutcome> {
    if (!span) return this.feed(watch, timeoutSeconds, initial, undefined);
    try {
      const outcome = await this.feed(watch, timeoutSeconds, initial, span);
      const relist = outcome === 'expired' || outcome === 'ignored' || (initial !== undefined && !initial.complete);
      span.end(outcome, this.host.stopped() ? undefined : relist ? 'relist' : 'rewatch');
      return outcome;
    } catch (err) {
      span.end(undefined, 'relist', err);
      throw err;
    }
  }

  private async feed(watch: Watch<T>, timeoutSeconds: number, initial: InitialEvents<T> | undefined, span: WatchSpan | undefined): Promise<WatchOutcome> {
    this.currentWatch = watch;
    if (this.host.stopped()) watch.stop();
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
          if (verdict === 'complete') this.swap(initial, span);
          else if (verdict === 'unexpected' && this.choice.auto) return 'ignored';
        } else {
          if (span) feedingFrom(span.context, () => this.apply(event));
          else this.apply(event);
          if (span && event.type === 'BOOKMARK') span.bookmark(event.object?.metadata?.resourceVersion ?? '');
          // A bookmark well before the server timeout means the server sends them periodically (not just at the end).
          if (event.type === 'BOOKMARK' && last - started < serverTimeoutMs - 5000) this.periodicBookmarks = true;
        }
        if (this.host.stopped()) break;
      }
    } catch (err) {
      if (err instanceof PhaseError) throw err;
      streamError = err;
    } finally {
      span?.events(events);
      idle.stop();
      this.currentWatch = undefined;
      watch.stop();
    }
    if (this.host.stopped() || outcome !== 'ended') return outcome;
    if (streamError !== undefined) this.host.report(streamError, phase());
    if (events === 0 && this.clock.now() - started < VERY_SHORT_WATCH_MS) throw new PhaseError(phase(), new VeryShortWatchError());
    return streamError === undefined ? 'ended' : 'failed';
  }

  /** A WatchList's initial state is whole: it replaces the store's content, as a list would. */
  private swap(initial: InitialEvents<T>, span: WatchSpan | undefined): void {
    const rv = initial.resourceVersion;
    const items = initial.take();
    span?.initialEventsEnd(items.length, rv);
    this.log.debug('streamed the initial state', { items: items.length, skipped: initial.skipped, resourceVersion: rv });
    this.replace(items, rv, span?.context);
    this.lastRVUnavailable = false;
    this.choice.synced(items.length, rv);
  }

  /**
   * Replaces the store's content with a whole state at `rv` (a list, or a WatchList's initial events); ends a stall.
   * `origin`: the phase span the state came from (tracing on), the origin of the changes it makes (event-origin.ts).
   */
  replace(items: T[], rv: string, origin?: SpanContext): void {
    this.stalledAt = undefined;
    try {
      feedingFrom(origin, () => this.store.replace(items, rv));
    } catch (err) {
      this.host.report(err, 'list');
    }
    this.lastRV = rv;
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
      this.host.report(err, 'watch');
    }
    const rv = obj?.metadata?.resourceVersion;
    if (rv) this.lastRV = rv;
  }
}
