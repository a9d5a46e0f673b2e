/**
 * One run of a scenario: a fresh control plane (plane.ts: by default an in-process fake from the CRDs; with explore's
 * `envtest` option a fresh namespace of a real apiserver, envtest-plane.ts), a manager made by `setup` on a
 * {@link FaultTransport}, the steps one by one with the controllers settling after each, and the end state.
 *
 * After the controllers settle, dependents whose owners are all gone are deleted (gc.ts: the garbage collection of a
 * cluster), and the controllers settle again.
 *
 * Settled means, for `quietMs` on end: no controller has ready work or a reconcile running, nothing waits in a queue
 * to become ready within `requeueBoundMs` (a periodic requeue further out does not count), no request, answer or
 * watch event went by, and every informer watches again after a gap. A run that does not settle within `settleMs`
 * after a step did not converge.
 *
 * The fault, if any, is injected here: `crash@N` kills the manager right after its N-th mutating request was
 * answered (counted over the whole run) and starts a new one from `setup` on the same state; `gap@K` pauses the
 * watches before step K and resumes them after step K+1 (after step K when it is the last); `stale@K` (Sieve's time
 * travel) lets the run settle after step K, kills the manager and starts a new one whose reads are answered from the
 * state as it was before step K (stale.ts; its writes go to the live state), lets it settle on that view, then
 * catches its informers up with the live state (a relist) and settles again.
 */
import { Registry } from 'prom-client';
import type { Controller } from '../../controller/controller.js';
import type { KubeObject, Transport } from '../../client/types.js';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';
import { nullLogger } from '../../log.js';
import { Manager } from '../../manager/manager.js';
import type { Runnable } from '../../manager/runnables.js';
import { allBuiltinResources } from '../fake/builtin-resources.js';
import type { FakeResource } from '../fake/fake-resource.js';
import type { ValidatedCrd } from '../../validation/index.js';
import { FaultTransport, type RecordedRequest } from './faults.js';
import { fakePlane, type RunPlane } from './plane.js';
import { snapshotOf } from './stale.js';
import type { ScenarioStep } from './scenario.js';

export { endState } from './plane.js';

/** A step of the reference run that the control plane refused (the scenario is wrong): which, and why. */
export class ScenarioStepError extends Error {
  constructor(
    readonly step: number,
    cause: unknown,
  ) {
    super(`step ${step}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ScenarioStepError';
  }
}

/** Registers the controllers under test on a manager (what the program's `main` does before `start`). */
export type SetupFunc = (mgr: Manager) => void | Promise<void>;

/** A fault injected into one run; none for the reference run. */
export type InjectedFault = { kind: 'crash'; after: number } | { kind: 'gap'; step: number } | { kind: 'stale'; step: number };

/** What a run needs. */
export interface RunInput {
  setup: SetupFunc;
  crds: readonly ValidatedCrd[];
  steps: readonly ScenarioStep[];
  /**
   * Built-in resources to serve besides the CRDs (not validated); default every built-in kind a current apiserver
   * serves by default (`allBuiltinResources`: Deployments, Services, ConfigMaps, PodDisruptionBudgets, …).
   */
  extraResources?: readonly FakeResource[];
  /** The longest a step may take to settle (default 5000 ms). */
  settleMs?: number;
  /** Requeues further out than this do not keep a run from settling (default 2000 ms). */
  requeueBoundMs?: number;
  /** How long everything must be still to count as settled (default 30 ms). */
  quietMs?: number;
  /**
   * Makes each run's control plane (default: a fresh in-process fake from the CRDs, plane.ts; explore's `envtest`
   * option: a fresh namespace of a real apiserver, envtest-plane.ts).
   */
  plane?: () => Promise<RunPlane>;
}

/** What a run found. */
export interface RunResult {
  /** Every object of every served kind at the end (Events excluded). */
  state: KubeObject[];
  /** The mutating requests of every manager of the run, numbered across them. */
  requests: RecordedRequest[];
  /** The step (1-based) after which the run did not settle (or that failed), and what was still busy; undefined when it settled. */
  unsettled?: { step: number; busy: string };
  /** Whether the injected crash happened (a crash point past the run's last request never fires). */
  crashed: boolean;
}

/**
 * Runs the scenario once (see the module comment). Never throws for a controller's misbehaviour; a step the control
 * plane refuses throws a {@link ScenarioStepError} in the reference run (no fault), and ends a perturbed run as unsettled.
 */
export async function runScenario(input: RunInput, fault?: InjectedFault): Promise<RunResult> {
  const plane = await (input.plane ?? (() => fakePlane({ crds: input.crds, builtins: servedBuiltins(input) })))();
  const requests: RecordedRequest[] = [];
  let stepNow = 0;
  const ctx = { plane, requests, stepNow: () => stepNow };
  let current = await startManager(input.setup, ctx, fault?.kind === 'crash' ? fault.after : undefined);
  // stale@K: the state as it was before step K, for the manager restarted after it.
  let before: KubeObject[] | undefined;
  let crashed = false;
  const restartIfCrashed = async (): Promise<void> => {
    if (!current.transport.crashed || crashed) return;
    crashed = true;
    current.stop.abort();
    current = await startManager(input.setup, ctx, undefined);
  };
  try {
    await current.ready;
    let unsettled: RunResult['unsettled'];
    const steps = input.steps;
    for (let i = 0; i < steps.length; i++) {
      const k = i + 1;
      stepNow = k;
      const gapStart = fault?.kind === 'gap' && fault.step === k;
      const gapEnd = fault?.kind === 'gap' && (fault.step === k - 1 || (fault.step === k && k === steps.length));
      if (gapStart) current.transport.pause();
      if (fault?.kind === 'stale' && fault.step === k) before = snapshotOf(await plane.rawState());
      try {
        await plane.runStep(steps[i]!);
      } catch (err) {
        // The reference run's step failing is the scenario's fault; a perturbed run's, a divergence.
        if (!fault) throw new ScenarioStepError(k, err);
        unsettled = { step: k, busy: `the step failed: ${err instanceof Error ? err.message : String(err)}` };
        break;
      }
      if (gapStart && !gapEnd) continue; // the next step comes before the controllers see anything
      if (gapEnd) current.transport.resume();
      const settleAll = async (): Promise<string | undefined> => {
        let busy = await settle(() => current, restartIfCrashed, input);
        // Dependents of a deleted owner go, as a cluster's garbage collector deletes them; then the controllers settle again.
        for (let rounds = 0; !busy && rounds < 10 && (await plane.collectGarbage()) > 0; rounds++) busy = await settle(() => current, restartIfCrashed, input);
        return busy;
      };
      let busy = await settleAll();
      if (!busy && before) {
        // stale@K: a new manager on the view of before step K, settled there, then caught up with the live state.
        current.transport.crash();
        current.stop.abort();
        current = await startManager(input.setup, ctx, undefined, await plane.staleView(before));
        before = undefined;
        busy = await settle(() => current, restartIfCrashed, input);
        current.transport.catchUp();
        busy ??= await settleAll();
      }
      if (busy) {
        unsettled = { step: k, busy };
        break;
      }
    }
    return { state: await plane.state(), requests, ...(unsettled ? { unsettled } : {}), crashed };
  } finally {
    current.transport.crash();
    current.stop.abort();
    await plane.dispose();
  }
}

/** The built-in resources a run serves: `extraResources`, or by default every GA built-in kind (CRDs aside). */
export function servedBuiltins(input: Pick<RunInput, 'extraResources'>): readonly FakeResource[] {
  return input.extraResources ?? DEFAULT_BUILTINS;
}

const DEFAULT_BUILTINS: readonly FakeResource[] = allBuiltinResources.filter((r) => r.resource !== 'customresourcedefinitions');

interface Running {
  mgr: Manager;
  transport: FaultTransport;
  controllers: Controller[];
  stop: AbortController;
  ready: Promise<void>;
}

interface RunContext {
  plane: RunPlane;
  requests: RecordedRequest[];
  stepNow: () => number;
}

async function startManager(setup: SetupFunc, ctx: RunContext, crashAfter: number | undefined, stale?: Transport): Promise<Running> {
  const transport = new FaultTransport(ctx.plane.transport, ctx.requests, ctx.stepNow, ctx.plane.revision);
  transport.crashAfter = crashAfter;
  transport.staleView = stale;
  const mgr = new Manager({ transport: ctx.plane.scope(transport), metricsBindAddress: '0', healthProbeBindAddress: '0', logger: nullLogger, registry: new Registry(), gracefulShutdownTimeoutMs: 50 });
  const controllers: Controller[] = [];
  const add = mgr.add.bind(mgr);
  mgr.add = (r: Runnable): void => {
    // By shape, not class: the setup module may load its own copy of the runtime.
    if (isController(r)) controllers.push(r);
    add(r);
  };
  await setup(mgr);
  const stop = new AbortController();
  const run = mgr.start(stop.signal).catch(() => undefined);
  const ready = Promise.race([run, Promise.all(controllers.map((c) => whenStarted(c, stop.signal)))]).then(() => undefined);
  return { mgr, transport, controllers, stop, ready };
}

function isController(r: Runnable): r is Runnable & Controller {
  const c = r as Partial<Controller>;
  return typeof c.reconciling === 'number' && typeof c.queue?.len === 'function' && typeof c.informers === 'function';
}

/** Resolves once `c`'s sources have synced (its workers then run), or `signal` aborts. */
async function whenStarted(c: Controller, signal: AbortSignal): Promise<void> {
  while (!signal.aborted && !(c.syncStatus().synced && c.informers().every((i) => i.hasSynced()))) await sleep(realClock, 2);
}

/** Waits until the run is settled; returns undefined, or what is still busy after `settleMs`. */
async function settle(current: () => Running, restartIfCrashed: () => Promise<void>, input: RunInput): Promise<string | undefined> {
  const deadline = Date.now() + (input.settleMs ?? 5000);
  const quiet = input.quietMs ?? 30;
  for (;;) {
    await restartIfCrashed();
    const run = current();
    await run.ready;
    const busy = busyOf(run, input.requeueBoundMs ?? 2000);
    if (!busy && Date.now() - run.transport.lastActivity >= quiet) return undefined;
    if (Date.now() > deadline) return busy ?? 'requests still going';
    await sleep(realClock, Math.max(2, Math.min(quiet, 10)));
  }
}

function busyOf(run: Running, boundMs: number): string | undefined {
  if (!run.transport.caughtUp) return 'informers relisting after a gap';
  for (const c of run.controllers) {
    const q = c.queue as typeof c.queue & { nextReadyAt?: () => number | undefined };
    if (c.reconciling > 0) return `controller ${c.name}: ${c.reconciling} reconcile(s) running`;
    if (q.len() > 0) return `controller ${c.name}: ${q.len()} request(s) queued`;
    const next = q.nextReadyAt?.();
    if (next !== undefined && next - run.mgr.clock.now() <= boundMs) return `controller ${c.name}: a retry or requeue due in ${Math.max(0, next - run.mgr.clock.now())} ms`;
  }
  return undefined;
}

