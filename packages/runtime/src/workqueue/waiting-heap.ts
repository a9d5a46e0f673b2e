import { IndexedHeap } from './indexed-heap.js';

/**
 * Binary min-heap of items waiting to be added, ordered by ready time and then by insertion order (client-go's
 * `waitForPriorityQueue`). Entries track their own index so a changed ready time can be fixed in O(log n).
 */

export interface WaitingEntry<T> {
  readonly item: T;
  /** Absolute time (ms, clock time) at which the item should be added. */
  readyAt: number;
  /** Insertion sequence number; breaks ties so equal ready times pop in FIFO order. */
  readonly seq: number;
  /** Current position in the heap array; maintained by the heap. */
  index: number;
}

export class WaitingHeap<T> extends IndexedHeap<WaitingEntry<T>> {
  constructor() {
    super((a, b) => a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq));
  }
}
