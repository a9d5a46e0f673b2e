/**
 * Callers waiting for an informer's store to reach a state (`SharedIndexInformer.waitForStore`), and the
 * resourceVersion comparison that tells whether a store has caught up with a write.
 */
import type { Clock, TimerHandle } from '../clock.js';

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * Compares two resourceVersions: negative when `a` is older than `b`, 0 when equal, positive when newer; `undefined`
 * when either is not a canonical decimal integer. Resource versions are opaque strings in general, but those of an
 * etcd-backed apiserver (every Kubernetes release, 1.20 included) are etcd revisions: integers that grow with every
 * write, comparable within one resource type — the ordering KEP-5504 (comparable resource versions, stable in 1.35)
 * makes part of the API. Callers compare only within one kind (a write against the store of the informer of its own
 * kind), and treat `undefined` as "not known to be caught up", falling back to an exact match.
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (!a || !b || !DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Waiter {
  condition: () => boolean;
  done: (met: boolean) => void;
}

/** The pending `waitForStore` calls of one store: each is checked after every change the store applies. */
export class StoreWaiters {
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly clock: Clock) {}

  /** See `SharedIndexInformer.waitForStore`; `stopped` says the store will change no more. */
  wait(condition: () => boolean, timeoutMs: number, signal: AbortSignal | undefined, stopped: boolean): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    if (stopped || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let timer: TimerHandle | undefined;
      const waiter: Waiter = {
        condition,
        done: (met) => {
          this.waiters.delete(waiter);
          if (timer !== undefined) this.clock.clearTimeout(timer);
          signal?.removeEventListener('abort', gaveUp);
          resolve(met);
        },
      };
      const gaveUp = (): void => waiter.done(false);
      timer = this.clock.setTimeout(gaveUp, timeoutMs);
      signal?.addEventListener('abort', gaveUp, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** After a change to the store: settles every waiter whose condition now holds (one that throws counts as unmet). */
  check(): void {
    if (this.waiters.size === 0) return;
    for (const w of [...this.waiters]) {
      let met = false;
      try {
        met = w.condition();
      } catch {
        met = false;
      }
      if (met) w.done(true);
    }
  }

  /** The store stopped: every waiter gets `false`. */
  stopAll(): void {
    for (const w of [...this.waiters]) w.done(false);
  }
}
