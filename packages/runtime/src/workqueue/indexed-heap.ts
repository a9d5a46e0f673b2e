/**
 * A binary min-heap whose entries track their own position (`index`), so an entry whose sort key changed is fixed, and
 * any entry removed, in O(log n). The order is the `less` function given at construction; entries that compare equal
 * come out in no particular order, so `less` should break ties (e.g. with an insertion sequence number).
 */

/** What an {@link IndexedHeap} stores: anything with an `index` the heap maintains (-1 when not in a heap). */
export interface HeapEntry {
  index: number;
}

export class IndexedHeap<E extends HeapEntry> {
  private readonly entries: E[] = [];

  constructor(private readonly less: (a: E, b: E) => boolean) {}

  get length(): number {
    return this.entries.length;
  }

  /** The smallest entry, left in place; undefined when empty. */
  peek(): E | undefined {
    return this.entries[0];
  }

  push(entry: E): void {
    entry.index = this.entries.length;
    this.entries.push(entry);
    this.up(entry.index);
  }

  /** Removes and returns the smallest entry. */
  pop(): E | undefined {
    const top = this.entries[0];
    if (top === undefined) return undefined;
    this.remove(0);
    return top;
  }

  /** Removes the entry at `index` (an entry's own `index`). */
  remove(index: number): void {
    const entries = this.entries;
    const removed = entries[index];
    if (removed === undefined) return;
    const last = entries.pop()!;
    if (last !== removed) {
      entries[index] = last;
      last.index = index;
      this.fix(index);
    }
    removed.index = -1;
  }

  /** Restores heap order after the sort key of the entry at `index` changed. */
  fix(index: number): void {
    if (!this.up(index)) this.down(index);
  }

  clear(): void {
    for (const entry of this.entries) entry.index = -1;
    this.entries.length = 0;
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
