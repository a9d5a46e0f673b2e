/**
 * Sources (controller-runtime `pkg/source`): where a controller's reconcile requests come from. A controller starts
 * its sources when it starts, waits for each of them to sync (and for nothing else), then runs its workers; while a
 * source has not synced, the controller says which and why (its readiness check and its log).
 *
 * Contract of a {@link Source}:
 * - `start(sink, signal)` is called once, by the controller; from then on the source puts requests into `sink` until
 *   `signal` aborts, after which it puts nothing more and releases what it holds (handler registrations).
 * - `hasSynced()` turns true once the requests for the source's initial state have been handed to the sink (for an
 *   informer: the informer listed, and this source's handler was given every object of that list). It never turns
 *   false again.
 * - `syncError()` is the reason it has not synced yet, when it knows one (the informer's last list error, e.g. a 403
 *   or a 404); undefined otherwise.
 */
import { objectFromDeleted } from '../cache/keys.js';
import type { HandlerRegistration, SharedIndexInformer } from '../cache/shared-informer.js';
import type { KubeObject } from '../client/types.js';
import { duringEvent } from '../tracing/event-links.js';
import { withLowPriorityWhenUnchanged, type EventHandler, type RequestSink } from '../handler/handler.js';
import type { Logger } from '../log.js';
import { admitsAll, type Predicate } from '../predicate/predicate.js';

/** Where a controller's requests come from (see the module comment for the contract). */
export interface Source {
  /** What the source watches, for logs, metrics and readiness: e.g. `foos.samplecontroller.k8s.io/v1alpha1@ns`. */
  readonly description: string;
  /** Starts putting requests into `sink` until `signal` aborts. Called once. */
  start(sink: RequestSink, signal: AbortSignal): void;
  /** True once the requests for the initial state have been handed over (see the module comment). */
  hasSynced(): boolean;
  /** Resolves true once synced, false when `signal` aborts first. Never rejects. Only after `start`. */
  whenSynced(signal: AbortSignal): Promise<boolean>;
  /** Why the source has not synced yet, when it knows (the last list error); undefined when it has or does not know. */
  syncError(): unknown;
}

/**
 * The events of one informer, through `predicates` (all must admit), into `handler` (controller-runtime's
 * `source.Kind` over a cache informer). Throwing handlers and predicates are logged (with the source's
 * description) and skipped. The handler is wrapped in `withLowPriorityWhenUnchanged`: objects of the initial list and
 * unchanged resyncs are added at priority -100.
 */
export class InformerSource<T extends KubeObject = KubeObject> implements Source {
  readonly description: string;
  private registration: HandlerRegistration | undefined;

  constructor(
    readonly informer: SharedIndexInformer<T>,
    private readonly handler: EventHandler<T>,
    private readonly predicates: readonly Predicate<T>[],
    private readonly log: Logger,
  ) {
    this.description = informer.name;
  }

  start(sink: RequestSink, signal: AbortSignal): void {
    if (this.registration) throw new Error(`source ${this.description} already started`);
    if (signal.aborted) return;
    const { predicates } = this;
    const handler = withLowPriorityWhenUnchanged(this.handler);
    const source = this.description;
    // Traced: the requests a handler enqueues link to the event (tracing/event-links.ts).
    const guard = (what: 'create' | 'update' | 'delete', obj: KubeObject, fn: () => void): void => {
      try {
        duringEvent(what, source, obj, fn);
      } catch (err) {
        this.log.error('event handler failed', { event: what, source: this.description, error: err });
      }
    };
    const registration = this.informer.addEventHandler({
      onAdd: (obj, isInInitialList) =>
        guard('create', obj, () => {
          if (admitsAll(predicates, 'create', obj)) handler.create?.(obj, sink, { isInInitialList });
        }),
      onUpdate: (oldObj, newObj) =>
        guard('update', newObj, () => {
          if (admitsAll(predicates, 'update', newObj, oldObj)) handler.update?.(oldObj, newObj, sink);
        }),
      onDelete: (obj) =>
        guard('delete', objectFromDeleted(obj), () => {
          if (admitsAll(predicates, 'delete', objectFromDeleted(obj))) handler.delete?.(obj, sink);
        }),
    });
    this.registration = registration;
    signal.addEventListener('abort', () => registration.remove(), { once: true });
  }

  hasSynced(): boolean {
    // Before it starts, the informer's own state: a controller not yet started (a standby) is as ready as its cache.
    return this.registration ? this.registration.hasSynced() : this.informer.hasSynced();
  }

  whenSynced(signal: AbortSignal): Promise<boolean> {
    const registration = this.registration;
    if (!registration) return Promise.reject(new Error(`source ${this.description} has not started`));
    return raceAbort(registration.whenSynced(), signal);
  }

  syncError(): unknown {
    if (this.hasSynced()) return undefined;
    return this.informer.lastError()?.error;
  }
}

/** True once `p` resolves, false when `signal` aborts first (at once if it already has). */
export function raceAbort(p: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(false);
      },
    );
  });
}
