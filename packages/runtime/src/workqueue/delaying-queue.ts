import { MAX_TIMER_DELAY_MS } from '../clock.js';
import type { TimerHandle } from '../clock.js';
import { WorkQueue } from './queue.js';
import type { QueueInterface, QueueOptions } from './queue.js';
import { WaitingHeap } from './waiting-heap.js';
import type { WaitingEntry } from './waiting-heap.js';

/**
 * A work queue that can add items after a delay (client-go `util/workqueue/delaying_queue.go`).
 *
 * Waiting items live in a binary heap ordered by ready time, with a single clock timer armed for the earliest
 * entry (no timer per item). An item waits at most once: re-adding a waiting item with an earlier ready time
 * moves it earlier, a later one is ignored. When its time comes the item goes through the normal `add` (so it is
 * de-duplicated against queued items). Shutting down drops every waiting item and cancels the timer.
 */

/** client-go `TypedDelayingInterface`. */
export interface DelayingQueueInterface<T> extends QueueInterface<T> {
  /** Adds `item` after `delayMs` (immediately if `delayMs <= 0`). Counts as a retry in the metrics. */
  addAfter(item: T, delayMs: number): void;
}

/**
 * A {@link WorkQueue} with `addAfter` (client-go's `NewTypedDelayingQueue`): waiting items sit in one heap (see the
 * module comment), and shutting down drops them.
 */
export class DelayingQueue<T> extends WorkQueue<T> implements DelayingQueueInterface<T> {
  private readonly heap = new WaitingHeap<T>();
  private readonly waiting = new Map<T, WaitingEntry<T>>();
  private seq = 0;
  private timer: TimerHandle | undefined;
  /** Ready time the armed timer was scheduled for. */
  private timerDue = Number.NaN;

  constructor(options: QueueOptions = {}) {
    super(options);
  }

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.metrics.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const entry = this.waiting.get(item);
    if (entry !== undefined) {
      if (readyAt >= entry.readyAt) return;
      entry.readyAt = readyAt;
      this.heap.fix(entry.index);
    } else {
      const created: WaitingEntry<T> = { item, readyAt, seq: this.seq++, index: -1 };
      this.waiting.set(item, created);
      this.heap.push(created);
    }
    this.armTimer();
  }

  /** Number of items waiting for their delay to pass (not part of `len()`). */
  waitingLen(): number {
    return this.heap.length;
  }

  protected override onShutdown(): void {
    this.cancelTimer();
    this.heap.clear();
    this.waiting.clear();
  }

  /** Ensures exactly one timer is armed, for the earliest waiting entry (none when nothing waits). */
  private armTimer(): void {
    const head = this.heap.peek();
    if (head === undefined || head.readyAt === Infinity) {
      this.cancelTimer();
      return;
    }
    if (this.timer !== undefined && this.timerDue === head.readyAt) return;
    this.cancelTimer();
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, head.readyAt - this.clock.now()));
    this.timerDue = head.readyAt;
    this.timer = this.clock.setTimeout(() => this.onTimer(), delay);
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.timerDue = Number.NaN;
    }
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerDue = Number.NaN;
    const now = this.clock.now();
    for (let head = this.heap.peek(); head !== undefined && head.readyAt <= now; head = this.heap.peek()) {
      this.heap.pop();
      this.waiting.delete(head.item);
      this.add(head.item);
    }
    this.armTimer();
  }
}
