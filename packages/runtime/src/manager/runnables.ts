/**
 * The manager's runnables (controller-runtime's `runnableGroup`): which run on every replica and which only while
 * leading, each under a stop of its own (so one can be removed alone), and the bounded wait for them on shutdown.
 *
 * Contract: a runnable's `start(signal)` resolves once it has stopped after `signal` aborted; one that throws or
 * rejects while its signal is not aborted is reported to `fail` (the manager then stops). A runnable with
 * `syncStatus` (a controller) waits for its own sources; another first waits for the informers it names. A leader-only
 * runnable with `warmup` (a controller with `enableWarmup`) is warmed up on every replica when the manager starts
 * (controller-runtime's `Warmup` group), under the same stop as the runnables of every replica, and started as usual
 * once leading.
 */
import { whenAborted } from '../abort.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import type { KubeObject } from '../client/types.js';
import type { Clock } from '../clock.js';
import type { SyncStatus } from '../controller/source-sync.js';
import type { Logger } from '../log.js';
import { raceAbort } from '../source/source.js';

/** Something the manager runs: resolves once it has stopped after `signal` aborted. */
export interface Runnable {
  start(signal: AbortSignal): Promise<void>;
  /** Default true: only run while this process leads (ignored when leader election is off). */
  readonly needLeaderElection?: boolean;
  /** Informers that must have synced before `start` is called (not used for runnables with `syncStatus`). */
  informers?(): SharedIndexInformer<KubeObject>[];
  /**
   * A runnable that waits for its own sources (a `Controller`): the manager starts it at once and reports this in a
   * readiness check `controller-<name>` (`/readyz` fails while it is not synced; `/readyz/controller-<name>` says
   * why). Needs `name`.
   */
  syncStatus?(): SyncStatus;
  /**
   * Warm standby: called on every replica when the manager starts (before leading) for a leader-only runnable, when
   * the manager has leader election; prepares what `start` needs (a controller starts its sources). Resolves once
   * warmed up or when `signal` aborts; a rejection while `signal` is not aborted stops the manager. `start` is still
   * called once leading.
   */
  warmup?(signal: AbortSignal): Promise<void>;
  /** Names the runnable in readiness checks and errors (controllers: the controller's name). */
  readonly name?: string;
  /** A controller whose name is not checked for uniqueness in the process (see `manager/controller-names.ts`). */
  readonly skipNameValidation?: boolean;
}

/** `start` rejected: a runnable failed (threw or rejected); `cause` is its error. */
export class RunnableError extends Error {
  constructor(runnable: string, cause: unknown) {
    super(`${runnable} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RunnableError';
  }
}

/** What the runnables need of their manager. */
export interface RunnablesContext {
  /** Whether `r` runs only while leading (false when there is no election). */
  needsLeader(r: Runnable): boolean;
  /** Whether `r` (a leader-only runnable) is warmed up before leading: it has `warmup` and the manager elects a leader. */
  warmsUp(r: Runnable): boolean;
  /** Makes sure the cache runs before a runnable starts. */
  startCache(): void;
  /** A runnable failed: stop the manager. */
  fail(err: unknown): void;
  gracefulShutdownTimeoutMs: number;
  clock: Clock;
  log: Logger;
}

/** The runnables of one manager (see the module comment). */
export class Runnables {
  /** Every runnable added and not removed, in order. */
  readonly list: Runnable[] = [];
  /** Runnables started outside a leader phase (on every replica). */
  private readonly everywhere: Promise<void>[] = [];
  private leaderPhase: { signal: AbortSignal; running: Promise<void>[] } | undefined;
  private everywhereSignal: AbortSignal | undefined;
  /** Every runnable started and not yet finished: its own stop and its run. */
  private readonly active = new Map<Runnable, { stop: AbortController; done: Promise<void> }>();
  /** The warm-up stop of every leader-only runnable warmed up and not removed. */
  private readonly warming = new Map<Runnable, AbortController>();

  constructor(private readonly ctx: RunnablesContext) {}

  /** Adds `r`; started at once when its phase runs (leader-only ones only while leading). */
  add(r: Runnable): void {
    this.list.push(r);
    if (!this.ctx.needsLeader(r)) {
      if (this.everywhereSignal) this.everywhere.push(this.runOne(r, this.everywhereSignal));
      return;
    }
    if (this.everywhereSignal && this.ctx.warmsUp(r)) this.everywhere.push(this.warmOne(r, this.everywhereSignal));
    if (this.leaderPhase) this.leaderPhase.running.push(this.runOne(r, this.leaderPhase.signal));
  }

  /**
   * Starts the runnables that run on every replica (and those added later) under `signal`, and warms up the
   * leader-only ones that warm up.
   */
  startEverywhere(signal: AbortSignal): void {
    this.everywhereSignal = signal;
    for (const r of this.list) {
      if (!this.ctx.needsLeader(r)) this.everywhere.push(this.runOne(r, signal));
      else if (this.ctx.warmsUp(r)) this.everywhere.push(this.warmOne(r, signal));
    }
  }

  /** Resolves once the runnables of every replica have stopped, or the graceful shutdown timeout passed. */
  whenEverywhereStopped(): Promise<void> {
    return this.withinGracePeriod(Promise.all(this.everywhere).then(() => undefined));
  }

  /** Runs the leader-only runnables until `signal` aborts; resolves when they stopped or the grace period passed. */
  async runLeaderOnly(signal: AbortSignal): Promise<void> {
    const phase = { signal, running: [] as Promise<void>[] };
    this.leaderPhase = phase;
    for (const r of this.list) if (this.ctx.needsLeader(r)) phase.running.push(this.runOne(r, signal));
    await whenAborted(signal);
    this.leaderPhase = undefined;
    this.ctx.log.info('stopping leader-only runnables', { count: phase.running.length });
    await this.withinGracePeriod(Promise.all(phase.running).then(() => undefined));
  }

  /**
   * Stops `r` alone and forgets it; resolves once it has stopped (bounded by the graceful shutdown timeout). False
   * when it was not added.
   */
  async remove(r: Runnable): Promise<boolean> {
    const i = this.list.indexOf(r);
    if (i < 0) return false;
    this.list.splice(i, 1);
    this.warming.get(r)?.abort(new Error('removed from the manager'));
    this.warming.delete(r);
    const running = this.active.get(r);
    if (running) {
      running.stop.abort(new Error('removed from the manager'));
      await this.withinGracePeriod(running.done);
    }
    return true;
  }

  /** `p`, but resolves anyway after the graceful shutdown timeout (logging what was abandoned). */
  withinGracePeriod(p: Promise<void>): Promise<void> {
    const ms = this.ctx.gracefulShutdownTimeoutMs;
    return new Promise<void>((resolve) => {
      const timer = this.ctx.clock.setTimeout(() => {
        this.ctx.log.error('graceful shutdown timed out; abandoning in-flight work', { gracefulShutdownTimeoutMs: ms });
        resolve();
      }, ms);
      const done = (): void => {
        this.ctx.clock.clearTimeout(timer);
        resolve();
      };
      p.then(done, done);
    });
  }

  /** Warms up one leader-only runnable under a stop of its own (kept until removed); never rejects. */
  private warmOne(r: Runnable, phase: AbortSignal): Promise<void> {
    const own = new AbortController();
    const forward = (): void => own.abort(phase.reason);
    if (phase.aborted) forward();
    else phase.addEventListener('abort', forward, { once: true });
    this.warming.set(r, own);
    return (async () => {
      try {
        this.ctx.startCache();
        if (!own.signal.aborted) await r.warmup?.(own.signal);
      } catch (err) {
        if (!own.signal.aborted) this.ctx.fail(new RunnableError(r.name ?? 'runnable', err));
      }
    })();
  }

  /** Runs one runnable under a stop of its own; never rejects (a failure goes to `fail`). */
  private runOne(r: Runnable, phase: AbortSignal): Promise<void> {
    const own = new AbortController();
    const forward = (): void => own.abort(phase.reason);
    if (phase.aborted) forward();
    else phase.addEventListener('abort', forward, { once: true });
    const signal = own.signal;
    const entry = { stop: own, done: Promise.resolve() };
    this.active.set(r, entry);
    entry.done = (async () => {
      try {
        this.ctx.startCache();
        const informers = r.syncStatus ? [] : (r.informers?.() ?? []);
        if (informers.length > 0 && !(await raceAbort(Promise.all(informers.map((i) => i.whenSynced())).then(() => undefined), signal))) return;
        if (signal.aborted) return;
        await r.start(signal);
      } catch (err) {
        if (!signal.aborted) this.ctx.fail(new RunnableError(r.name ?? 'runnable', err));
      } finally {
        phase.removeEventListener('abort', forward);
        if (this.active.get(r) === entry) this.active.delete(r);
      }
    })();
    return entry.done;
  }
}
