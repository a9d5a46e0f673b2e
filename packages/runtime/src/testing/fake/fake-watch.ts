/**
 * The tracker's watch machinery: a bounded history of change events (like the apiserver's watch cache) and
 * `FakeWatch`, the `Watch` handed to callers. Every watcher receives its own deep copies of objects.
 */
import type { KubeObject, Status, Watch, WatchEvent, WatchEventType } from '../../client/types.js';

/** One committed change. `prev` is the state before a MODIFIED/DELETED change (used for selector transitions). */
export interface ChangeEvent {
  rv: number;
  resourceKey: string;
  namespace: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  prev?: KubeObject;
}

/**
 * A single-use watch fed by the tracker. Events queue until iterated; `stop()` ends the iteration at once (queued
 * events are dropped); `end()` (the "server" closing the stream) ends it after the queued events are delivered.
 */
export class FakeWatch<T> implements Watch<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private waiter: { resolve: (r: IteratorResult<WatchEvent<T>>) => void; reject: (err: unknown) => void } | undefined;
  private ended = false;
  /** Set by `fail`: thrown to the reader once the queued events are delivered. */
  private failure: { error: unknown } | undefined;
  private stopped = false;
  private iterated = false;
  private readonly onClose: () => void;

  constructor(onClose: () => void = () => {}) {
    this.onClose = onClose;
  }

  /** Whether the watch no longer accepts events. */
  get closed(): boolean {
    return this.ended || this.stopped;
  }

  push(type: WatchEventType, object: T): void {
    if (this.closed) return;
    const ev: WatchEvent<T> = { type, object };
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: ev, done: false });
    } else {
      this.queue.push(ev);
    }
  }

  pushError(status: Status): void {
    this.push('ERROR', status as unknown as T);
  }

  /** Closes the stream from the server side; queued events are still delivered. */
  end(): void {
    if (this.closed) return;
    this.ended = true;
    this.onClose();
    this.flushWaiter();
  }

  /** Breaks the stream like a dropped connection: queued events are delivered, then the iteration throws `err`. */
  fail(err: unknown): void {
    if (this.closed) return;
    this.failure = { error: err };
    this.end();
  }

  stop(): void {
    if (this.stopped) return;
    const wasEnded = this.ended;
    this.stopped = true;
    this.queue.length = 0;
    if (!wasEnded) this.onClose();
    this.flushWaiter();
  }

  private flushWaiter(): void {
    if (this.waiter && this.queue.length === 0) {
      const w = this.waiter;
      this.waiter = undefined;
      const failure = this.takeFailure();
      if (failure) w.reject(failure.error);
      else w.resolve({ value: undefined, done: true });
    }
  }

  /** The pending failure, once, unless the reader stopped the watch itself. */
  private takeFailure(): { error: unknown } | undefined {
    const f = this.stopped ? undefined : this.failure;
    this.failure = undefined;
    return f;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.iterated) throw new Error('a watch can be iterated only once');
    this.iterated = true;
    return {
      next: (): Promise<IteratorResult<WatchEvent<T>>> => {
        const ev = this.queue.shift();
        if (ev) return Promise.resolve({ value: ev, done: false });
        if (this.closed) {
          const failure = this.takeFailure();
          return failure ? Promise.reject(failure.error) : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => {
          this.waiter = { resolve, reject };
        });
      },
      return: (): Promise<IteratorResult<WatchEvent<T>>> => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** A subscriber: decides per change whether and how it is delivered. */
export type ChangeListener = (ev: ChangeEvent) => void;

/** The bounded event history and the live subscribers. */
export class ChangeHub {
  private readonly history: ChangeEvent[] = [];
  private readonly listeners = new Set<ChangeListener>();
  /** The rv of the newest event dropped from the history (0 while nothing was dropped). */
  private droppedUpTo = 0;

  constructor(private readonly capacity: number) {}

  publish(ev: ChangeEvent): void {
    this.history.push(ev);
    while (this.history.length > this.capacity) this.droppedUpTo = this.history.shift()!.rv;
    for (const l of [...this.listeners]) l(ev);
  }

  /**
   * Events after `rv` still in the history, or `undefined` when some of them were already dropped (the caller
   * answers 410 Expired). `oldest` is what the error message reports.
   */
  since(rv: number): { events: ChangeEvent[] } | { expired: true; oldest: number } {
    if (rv < this.droppedUpTo) return { expired: true, oldest: this.droppedUpTo };
    return { events: this.history.filter((e) => e.rv > rv) };
  }

  subscribe(l: ChangeListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }
}
