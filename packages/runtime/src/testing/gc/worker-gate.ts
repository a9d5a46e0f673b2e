/**
 * A readers–writer gate for async workers (the garbage collector's `workerLock`): workers `enter()` before each item
 * and `leave()` after it; `exclusive(fn)` waits for the workers inside to leave, keeps new ones out while `fn` runs,
 * then lets them in. Exclusive sections run one after another.
 */
export class WorkerGate {
  private active = 0;
  private closed: Promise<void> | undefined;
  private drained: (() => void) | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  /** Resolves when the caller may work (no exclusive section running). */
  async enter(): Promise<void> {
    while (this.closed) await this.closed;
    this.active++;
  }

  /** The end of one `enter()`. */
  leave(): void {
    this.active--;
    if (this.active === 0) this.drained?.();
  }

  /** Runs `fn` with no worker inside (see the module comment). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      let open!: () => void;
      this.closed = new Promise<void>((resolve) => (open = resolve));
      try {
        if (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
        this.drained = undefined;
        return await fn();
      } finally {
        this.closed = undefined;
        open();
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}
