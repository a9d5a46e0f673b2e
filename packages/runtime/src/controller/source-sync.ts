/**
 * A controller's wait for its own sources: until every source has synced, with a gauge per source, a status the
 * manager's readiness check reports, and an error line each time `timeoutMs` passes without them (the controller
 * keeps waiting: the informers behind the sources retry on their own).
 */
import { explainError } from '../client/forbidden.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { Logger } from '../log.js';
import type { Gauge } from '../metrics/prom.js';
import type { Source } from '../source/source.js';

/** Whether a controller's sources have synced, and why the others have not (see `Controller.syncStatus`). */
export interface SyncStatus {
  /** True once every source has synced. */
  synced: boolean;
  /** The sources not synced yet, each with the reason when one is known (e.g. `forbidden: list services …`). */
  pending: { source: string; reason?: string }[];
}

/** Settings of a {@link SourceSyncWaiter}. */
export interface SourceSyncWaiterOptions {
  controller: string;
  clock: Clock;
  log: Logger;
  /** `kubegen_controller_source_synced{controller, source}`. */
  gauge: Gauge<'controller' | 'source'>;
  timeoutMs: number;
}

/** Tracks a controller's sources and waits for them (see the module comment). */
export class SourceSyncWaiter {
  private readonly sources: Source[] = [];
  private stopSignal: AbortSignal | undefined;

  constructor(private readonly opts: SourceSyncWaiterOptions) {}

  /** A new source: its gauge reads 0 until it syncs. After `wait` finished, its sync is still watched for the gauge. */
  track(source: Source): void {
    this.sources.push(source);
    this.setGauge(source, source.hasSynced());
    if (this.stopSignal && !this.stopSignal.aborted) void this.watch(source, this.stopSignal);
  }

  /** True once every source (also those tracked meanwhile) has synced; false when `signal` aborted first. */
  async wait(signal: AbortSignal): Promise<boolean> {
    this.stopSignal = signal;
    const timer = this.reportEvery(this.opts.timeoutMs);
    try {
      for (;;) {
        const pending = this.sources.filter((s) => !s.hasSynced());
        if (pending.length === 0) return true;
        const synced = await Promise.all(pending.map((s) => this.watch(s, signal)));
        if (synced.includes(false)) return false;
      }
    } finally {
      this.opts.clock.clearTimeout(timer.handle);
      timer.cancelled = true;
    }
  }

  status(): SyncStatus {
    const pending = this.sources
      .filter((s) => !s.hasSynced())
      .map((s) => {
        const err = s.syncError();
        return { source: s.description, ...(err !== undefined ? { reason: explainError(err) } : {}) };
      });
    return { synced: pending.length === 0, pending };
  }

  private async watch(source: Source, signal: AbortSignal): Promise<boolean> {
    const synced = await source.whenSynced(signal);
    if (synced) this.setGauge(source, true);
    return synced;
  }

  private setGauge(source: Source, synced: boolean): void {
    this.opts.gauge.set({ controller: this.opts.controller, source: source.description }, synced ? 1 : 0);
  }

  /** An error line naming the unsynced sources each time `ms` passes while waiting. */
  private reportEvery(ms: number): { handle: TimerHandle; cancelled: boolean } {
    const timer = { handle: undefined as unknown as TimerHandle, cancelled: false };
    let waited = 0;
    const fire = (): void => {
      if (timer.cancelled) return;
      waited += ms;
      const { pending } = this.status();
      if (pending.length > 0) {
        this.opts.log.error('sources not synced; still waiting (other controllers are not held back)', { waitedMs: waited, unsynced: pending });
      }
      timer.handle = this.opts.clock.setTimeout(fire, ms);
    };
    timer.handle = this.opts.clock.setTimeout(fire, ms);
    return timer;
  }
}
