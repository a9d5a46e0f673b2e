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

export class WaitingHeap<T> {
  private readonly entries: WaitingEntry<T>[] = [];

  get length(): number {
    return this.entries.length;
  }

  peek(): WaitingEntry<T> | undefined {
    return this.entries[0];
  }

  push(entry: WaitingEntry<T>): void {
    entry.index = this.entries.length;
    this.entries.push(entry);
    this.up(entry.index);
  }

  /** Removes and returns the earliest entry. */
  pop(): WaitingEntry<T> | undefined {
    const top = this.entries[0];
    if (top === undefined) return undefined;
    const last = this.entries.pop()!;
    if (last !== top) {
      this.entries[0] = last;
      last.index = 0;
      this.down(0);
    }
    top.index = -1;
    return top;
  }

  /** Restores heap order after the ready time of the entry at `index` changed. */
  fix(index: number): void {
    if (!this.up(index)) this.down(index);
  }

  clear(): void {
    for (const entry of this.entries) entry.index = -1;
    this.entries.length = 0;
  }

  private less(a: WaitingEntry<T>, b: WaitingEntry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  /** Sifts up; returns whether the entry moved. */
  private up(index: number): boolean {
    const entries = this.entries;
    const entry = entries[index]!;
    let i = index;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = entries[parentIndex]!;
      if (!this.less(entry, parent)) break;
      entries[i] = parent;
      parent.index = i;
      i = parentIndex;
    }
    entries[i] = entry;
    entry.index = i;
    return i !== index;
  }

  private down(index: number): void {
    const entries = this.entries;
    const n = entries.length;
    const entry = entries[index]!;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.less(entries[right]!, entries[left]!) ? right : left;
      if (!this.less(entries[child]!, entry)) break;
      entries[i] = entries[child]!;
      entries[i]!.index = i;
      i = child;
    }
    entries[i] = entry;
    entry.index = i;
  }
}
