import { DeadlineTimer } from './deadline-timer.js';
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
  private readonly timer = new DeadlineTimer(this.clock, () => this.onTimer());

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
    this.timer.arm(this.heap.peek()?.readyAt);
  }

  /** Number of items waiting for their delay to pass (not part of `len()`). */
  waitingLen(): number {
    return this.heap.length;
  }

  protected override onShutdown(): void {
    this.timer.cancel();
    this.heap.clear();
    this.waiting.clear();
  }

  private onTimer(): void {
    const now = this.clock.now();
    for (let head = this.heap.peek(); head !== undefined && head.readyAt <= now; head = this.heap.peek()) {
      this.heap.pop();
      this.waiting.delete(head.item);
      this.add(head.item);
    }
    if (!this.shuttingDown()) this.timer.arm(this.heap.peek()?.readyAt);
  }
}
