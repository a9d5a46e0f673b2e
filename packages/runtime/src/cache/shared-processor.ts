/**
 * The handlers of one informer (client-go `sharedProcessor`): their listeners, the changes the informer hands them,
 * and their periodic resyncs.
 *
 * Contract:
 * - Every change goes to every listener, synchronously and in the order the informer applied it; each listener
 *   delivers it to its handler later, on its own (see `listener.ts`).
 * - A listener added to a cache that holds objects gets each as an initial add first; once the informer has synced,
 *   it is told its initial list is pushed.
 * - A listener with a resync period gets every cached object again as an update (old and new the same) each period
 *   once the informer has synced, but not while its previous resync is still queued, so a slow handler's buffer
 *   cannot grow without bound. Resyncs run only between `startResyncs()` and `stop()`.
 * - `stop()` clears the resync timers and stops every listener (their pending notifications are dropped).
 */
import type { Clock, TimerHandle } from '../clock.js';
import type { DeletedFinalStateUnknown } from './keys.js';
import type { ProcessorListener } from './listener.js';

/** What the processor reads of its informer's cache: the objects it holds and whether the first list is stored. */
export interface ProcessorCache<T> {
  values(): Iterable<T>;
  synced(): boolean;
}

/** The listeners of one informer (see the module comment). */
export class SharedProcessor<T> {
  private readonly listeners = new Set<ProcessorListener<T>>();
  private readonly resyncTimers = new Map<ProcessorListener<T>, TimerHandle>();
  private readonly resyncSeq = new Map<ProcessorListener<T>, number>();

  constructor(
    private readonly clock: Clock,
    private readonly cache: ProcessorCache<T>,
  ) {}

  /** Notifications pushed to the listeners and not handled yet. */
  get pending(): number {
    let n = 0;
    for (const l of this.listeners) n += l.pending;
    return n;
  }

  /** Adds `listener`, pushing it the cached objects as initial adds; `resync`: arm its resync timer now. */
  addListener(listener: ProcessorListener<T>, resync: boolean): void {
    this.listeners.add(listener);
    for (const obj of this.cache.values()) listener.add(obj, true);
    if (this.cache.synced()) listener.markInitialListPushed();
    if (resync) this.armResync(listener);
  }

  /** Removes `listener` and its resync timer, and stops it. */
  removeListener(listener: ProcessorListener<T>): void {
    this.listeners.delete(listener);
    const t = this.resyncTimers.get(listener);
    if (t !== undefined) this.clock.clearTimeout(t);
    this.resyncTimers.delete(listener);
    this.resyncSeq.delete(listener);
    listener.stop();
  }

  /** Arms the resync timers of the listeners that have a resync period (the informer started). */
  startResyncs(): void {
    for (const l of this.listeners) this.armResync(l);
  }

  add(obj: T, isInInitialList: boolean): void {
    for (const l of this.listeners) l.add(obj, isInInitialList);
  }

  update(oldObj: T, newObj: T): void {
    for (const l of this.listeners) l.update(oldObj, newObj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    for (const l of this.listeners) l.delete(obj);
  }

  /** The informer's first list is pushed: every listener that waits for it may sync. */
  markInitialListPushed(): void {
    for (const l of this.listeners) l.markInitialListPushed();
  }

  /** Clears every resync timer and stops and drops every listener. */
  stop(): void {
    for (const t of this.resyncTimers.values()) this.clock.clearTimeout(t);
    this.resyncTimers.clear();
    for (const l of this.listeners) l.stop();
    this.listeners.clear();
  }

  private armResync(listener: ProcessorListener<T>): void {
    if (listener.resyncPeriodMs <= 0 || this.resyncTimers.has(listener)) return;
    const fire = (): void => {
      if (!this.listeners.has(listener)) return;
      const prev = this.resyncSeq.get(listener);
      // Skip a resync while the previous one is still queued, so a slow handler's buffer cannot grow without bound.
      if (this.cache.synced() && (prev === undefined || listener.deliveredThrough(prev))) {
        for (const obj of this.cache.values()) listener.update(obj, obj);
        this.resyncSeq.set(listener, listener.pushedCount);
      }
      this.resyncTimers.set(listener, this.clock.setTimeout(fire, listener.resyncPeriodMs));
    };
    this.resyncTimers.set(listener, this.clock.setTimeout(fire, listener.resyncPeriodMs));
  }
}
