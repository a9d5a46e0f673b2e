import type { SpanContext } from '@opentelemetry/api';
import type { Logger } from '../log.js';
import { deliveringOrigin, feedingOrigin, setDeliveringOrigin } from '../tracing/event-origin.js';
import type { DeletedFinalStateUnknown } from './keys.js';

/**
 * Callbacks for cache changes (client-go `ResourceEventHandler`). Objects passed in are the cache's shared objects:
 * read-only, never mutate them (copy with `structuredClone` first).
 *
 * A callback may return anything: a promise (or any thenable) makes the next notification to the same handler wait
 * until it settles (so an async handler sees changes in order); any other value is ignored, so an arrow function
 * whose body is an expression (`onAdd: (o) => seen.push(o)`) is a handler as it is. A callback that throws or
 * rejects is logged and skipped; one that never returns only stalls its own handler, never other handlers or the
 * watch.
 */
export interface ResourceEventHandler<T> {
  /** An object appeared. `isInInitialList` is true for objects of the informer's first list (or, for a handler
   * added later, for the objects already in the cache when it was added). */
  onAdd?(obj: T, isInInitialList: boolean): unknown;
  /** An object changed, or a periodic resync re-delivered it (then `oldObj === newObj` or has the same resourceVersion). */
  onUpdate?(oldObj: T, newObj: T): unknown;
  /** An object went away: its final state, or a tombstone when the deletion was missed while disconnected. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): unknown;
}

const ADD = 0;
const ADD_INITIAL = 1;
const UPDATE = 2;
const DELETE = 3;
type Op = typeof ADD | typeof ADD_INITIAL | typeof UPDATE | typeof DELETE;

/** Notifications handled before yielding the event loop, checked against {@link SLICE_MS}. */
const CHECK_EVERY = 256;
/** Longest synchronous delivery run before giving the event loop a turn. */
const SLICE_MS = 8;

/**
 * One handler's private, unbounded notification buffer and its delivery loop (client-go `processorListener`).
 * The informer pushes synchronously as it updates its store; delivery happens later, asynchronously, in order.
 * Buffers are parallel arrays with a moving head: O(1) amortised per notification, no per-notification objects.
 * While tracing is on, the informer phase span each notification came from (tracing/event-origin.ts) is kept as runs
 * (`origins`: the sequence number from which an origin holds), and made current while it is delivered.
 */
export class ProcessorListener<T> {
  readonly handler: ResourceEventHandler<T>;
  readonly resyncPeriodMs: number;
  private ops: Op[] = [];
  private objs: unknown[] = [];
  private olds: unknown[] = [];
  private head = 0;
  private pushed = 0;
  private delivered = 0;
  private syncTarget: number | undefined;
  private draining = false;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private syncWaiters: (() => void)[] = [];
  /** Runs of notifications with the same origin: the first sequence number of each run, and its origin. */
  private origins: { from: number; origin: SpanContext | undefined }[] = [];
  private originHead = 0;
  private lastOrigin: SpanContext | undefined;

  /**
   * `latency`, when given, gets the seconds each notification took the handler on its clock (until a returned
   * promise settled, failures included): the informer's `informer_processing_latency_seconds`. One clock reading
   * per notification: the end of one call is the start of the next when they run back to back.
   */
  constructor(
    handler: ResourceEventHandler<T>,
    resyncPeriodMs: number,
    private readonly log: Logger,
    private readonly latency?: { now(): number; observe(seconds: number): void },
  ) {
    this.handler = handler;
    this.resyncPeriodMs = resyncPeriodMs;
  }

  /** Notifications pushed but not yet delivered. */
  get pending(): number {
    return this.pushed - this.delivered;
  }

  /** Number of notifications pushed so far (a sequence number for {@link deliveredThrough}). */
  get pushedCount(): number {
    return this.pushed;
  }

  /** True once every notification up to sequence number `seq` has been handled. */
  deliveredThrough(seq: number): boolean {
    return this.delivered >= seq;
  }

  /** Marks everything pushed so far as this handler's initial state; `hasSynced` turns true once it is delivered. */
  markInitialListPushed(): void {
    this.syncTarget ??= this.pushed;
    this.wakeSynced();
  }

  hasSynced(): boolean {
    return this.syncTarget !== undefined && this.delivered >= this.syncTarget;
  }

  /** Resolves once {@link hasSynced} is true; never, if the listener stops first (callers race it with their stop). */
  whenSynced(): Promise<void> {
    if (this.hasSynced()) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  add(obj: T, isInInitialList: boolean): void {
    this.push(isInInitialList ? ADD_INITIAL : ADD, obj, undefined);
  }

  update(oldObj: T, newObj: T): void {
    this.push(UPDATE, newObj, oldObj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.push(DELETE, obj, undefined);
  }

  /** Drops pending notifications and ends the delivery loop after the current callback. */
  stop(): void {
    this.stopped = true;
    this.ops = [];
    this.objs = [];
    this.olds = [];
    this.head = 0;
    this.origins = [];
    this.originHead = 0;
    this.wakeIdle();
  }

  /** Resolves when the buffer is empty (or the listener stopped). For tests and orderly shutdown. */
  whenIdle(): Promise<void> {
    if (this.stopped || (!this.draining && this.head >= this.ops.length)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private push(op: Op, obj: unknown, old: unknown): void {
    if (this.stopped) return;
    this.ops.push(op);
    this.objs.push(obj);
    this.olds.push(old);
    const origin = feedingOrigin();
    if (origin !== this.lastOrigin) {
      this.origins.push({ from: this.pushed, origin });
      this.lastOrigin = origin;
    }
    this.pushed++;
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => void this.drain());
    }
  }

  private async drain(): Promise<void> {
    let sliceStart = performance.now();
    let n = 0;
    const latency = this.latency;
    let started = latency ? latency.now() : 0;
    while (!this.stopped && this.head < this.ops.length) {
      const i = this.head++;
      const op = this.ops[i]!;
      const obj = this.objs[i];
      const old = this.olds[i];
      this.objs[i] = undefined;
      this.olds[i] = undefined;
      this.compact();
      try {
        const r = this.originHead < this.origins.length ? this.callFrom(this.delivered, op, obj, old) : this.call(op, obj, old);
        if (isThenable(r)) await r;
      } catch (err) {
        this.log.error('event handler failed', { op: OP_NAMES[op], error: err instanceof Error ? err.message : String(err) });
      }
      if (latency) {
        const ended = latency.now();
        latency.observe((ended - started) / 1000);
        started = ended;
      }
      this.delivered++;
      if (this.syncWaiters.length > 0) this.wakeSynced();
      if (++n % CHECK_EVERY === 0 && performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
        if (latency) started = latency.now();
      }
    }
    this.draining = false;
    this.wakeIdle();
  }

  /** Calls the handler with the origin of notification `seq` current (tracing on, or notifications from when it was). */
  private callFrom(seq: number, op: Op, obj: unknown, old: unknown): unknown {
    const runs = this.origins;
    while (this.originHead + 1 < runs.length && runs[this.originHead + 1]!.from <= seq) this.originHead++;
    if (this.originHead >= 64 && this.originHead * 2 >= runs.length) {
      this.origins = runs.slice(this.originHead);
      this.originHead = 0;
    }
    const run = this.origins[this.originHead]!;
    const origin = run.from <= seq ? run.origin : undefined;
    if (origin === undefined && run.from <= seq && this.originHead === this.origins.length - 1) {
      // The last run, without an origin (tracing was turned off): back to the untraced path.
      this.origins = [];
      this.originHead = 0;
      return this.call(op, obj, old);
    }
    const outer = deliveringOrigin();
    setDeliveringOrigin(origin);
    try {
      return this.call(op, obj, old);
    } finally {
      setDeliveringOrigin(outer);
    }
  }

  private call(op: Op, obj: unknown, old: unknown): unknown {
    const h = this.handler;
    switch (op) {
      case ADD:
        return h.onAdd?.(obj as T, false);
      case ADD_INITIAL:
        return h.onAdd?.(obj as T, true);
      case UPDATE:
        return h.onUpdate?.(old as T, obj as T);
      case DELETE:
        return h.onDelete?.(obj as T | DeletedFinalStateUnknown<T>);
    }
  }

  /** Drops the consumed prefix once it dominates, keeping memory proportional to what is pending. */
  private compact(): void {
    if (this.head >= 1024 && this.head * 2 >= this.ops.length) {
      this.ops = this.ops.slice(this.head);
      this.objs = this.objs.slice(this.head);
      this.olds = this.olds.slice(this.head);
      this.head = 0;
    }
  }

  private wakeSynced(): void {
    if (!this.hasSynced()) return;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w();
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

const OP_NAMES = ['add', 'add', 'update', 'delete'] as const;

/** A promise or any object with a `then` method (what `await` waits for). */
function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';
}
