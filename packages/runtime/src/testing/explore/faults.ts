/**
 * The transport a perturbed manager talks through: it forwards to the shared fake control plane and injects the
 * faults explore enumerates.
 *
 * - It records the manager's mutating requests (create, update, patch, delete, deletecollection; Events excluded:
 *   they are not state), in order, with their outcome.
 * - `crash`: with `crashAfter = N`, once the N-th mutating request has been answered the process "dies": the
 *   answer is never delivered, every later request hangs forever, every open watch ends, and `onCrash` fires. The
 *   write itself is committed, as when a controller is killed right after the apiserver answered.
 * - `gap`: `pause()` silences every open watch (its events are dropped) and holds every new list and watch;
 *   `resume()` ends each silenced watch with an in-stream 410 Expired, so that its informer relists, and lets the
 *   held requests through: what happened while paused is seen only as the state at resume, never as the events in
 *   between; `caughtUp` tells when every informer watches again.
 * - `stale`: with `staleView` set, lists, gets and watches are answered by that view (stale.ts: the objects as they
 *   were at an earlier point; its watches see nothing), writes still go to the live control plane; `catchUp()` drops
 *   the view as `pause()` + `resume()` end a gap: every informer relists the live state.
 * - `lastActivity` is the time of the last request, answer or watch event, which the settle check waits past.
 */
import { ApiError } from '../../client/errors.js';
import type { RawRequestInit, RawResponse, ResourceRequest, Transport, Watch, WatchEvent } from '../../client/types.js';

/** One mutating request as recorded: its number (1-based), what it did, and whether it failed. */
export interface RecordedRequest {
  n: number;
  /** The scenario step (1-based) being settled when it was sent; 0 before the first. */
  step: number;
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  patchType?: string;
  error?: string;
  /**
   * The control plane's newest resourceVersion once the request was answered (when the transport was given a way to
   * read it): two requests of one step with the same revision left the stored state the same, so crashing after
   * either restarts the controllers on the same state.
   */
  revision?: string;
}

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** Describes a recorded request in one line: `#3 create children ns/a-x7k`. */
export function describeRequest(r: RecordedRequest): string {
  const target = `${r.namespace ? `${r.namespace}/` : ''}${r.name ?? ''}`;
  return `#${r.n} ${r.verb}${r.patchType ? `(${r.patchType})` : ''} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}${target ? ` ${target}` : ''}`;
}

/**
 * The transport one manager of a run talks through: forwards to `inner` (the shared fake control plane), records the
 * manager's mutating requests in `requests`, dies after the `crashAfter`-th of them is answered (`crash()`), and holds
 * its watches between `pause()` and `resume()` (then its informers relist).
 */
export class FaultTransport implements Transport {
  /** Crash after this many mutating requests have been answered (undefined: never). */
  crashAfter: number | undefined;
  onCrash: (() => void) | undefined;
  crashed = false;
  lastActivity = Date.now();
  /** Where reads go while the manager runs on a stale view (see the module comment); undefined: the live control plane. */
  staleView: Transport | undefined;
  private paused: { release: Promise<void>; open: () => void } | undefined;
  /** The open watches: what each watches (resource, namespace, selectors), whether a gap silenced it, how to expire it. */
  private readonly open = new Map<Watch<unknown>, OpenWatch>();
  /** Per watched target: watches expired by a gap whose informer has not watched again yet. */
  private readonly reopening = new Map<string, number>();
  /** The targets listed from the stale view (each must relist once caught up). */
  private readonly staleListed = new Set<string>();
  /** Per watched target: watches to answer 410 when they open (listed from the stale view, not watching at catch-up). */
  private readonly expireOnOpen = new Map<string, number>();
  /** Lists the stale view is answering now. */
  private staleListsInFlight = 0;

  /**
   * `requests` is where the mutating requests are recorded (shared by the managers of one run: numbered across them),
   * `stepNow` the scenario step under way, `revision` the control plane's newest resourceVersion (recorded with each
   * answered request).
   */
  constructor(
    private readonly inner: Transport,
    readonly requests: RecordedRequest[] = [],
    private readonly stepNow: () => number = () => 0,
    private readonly revision?: () => string,
  ) {}

  get fieldManager(): string | undefined {
    return this.inner.fieldManager;
  }

  isWatchListSemanticsUnsupported(): boolean {
    return this.inner.isWatchListSemanticsUnsupported?.() ?? false;
  }

  raw(method: string, path: string, init?: RawRequestInit): Promise<RawResponse> {
    if (this.crashed) return never();
    return this.inner.raw(method, path, init);
  }

  async request<T = unknown>(req: ResourceRequest): Promise<T> {
    if (this.crashed) return never();
    this.touch();
    if (req.verb === 'list' && this.paused) await this.paused.release;
    if (this.staleView && (req.verb === 'list' || req.verb === 'get')) {
      if (req.verb !== 'list') return this.staleView.request<T>(req).finally(() => this.touch());
      this.staleListed.add(watchKey(req));
      this.staleListsInFlight++;
      return this.staleView.request<T>(req).finally(() => {
        this.staleListsInFlight--;
        this.touch();
      });
    }
    const mutating = MUTATING.has(req.verb) && req.resource.resource !== 'events';
    let record: RecordedRequest | undefined;
    if (mutating) {
      record = { n: this.requests.length + 1, step: this.stepNow(), verb: req.verb, resource: req.resource.resource };
      if (req.namespace) record.namespace = req.namespace;
      const name = req.name ?? (req.body as { metadata?: { name?: string; generateName?: string } } | undefined)?.metadata?.name;
      if (name) record.name = name;
      if (req.subresource) record.subresource = req.subresource;
      if (req.patchType) record.patchType = req.patchType;
      this.requests.push(record);
    }
    try {
      const out = await this.inner.request<T>(req);
      if (record && !record.name) record.name = (out as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? '';
      return this.answered(record, out);
    } catch (err) {
      if (record) record.error = err instanceof Error ? err.message : String(err);
      if (this.crashed) return never();
      this.answered(record, undefined);
      throw err;
    } finally {
      this.touch();
    }
  }

  /** Delivers an answer, unless this request was the crash point (then the process is gone). */
  private answered<T>(record: RecordedRequest | undefined, out: T): T | Promise<T> {
    if (this.crashed) return never();
    if (record && this.revision) record.revision = this.revision();
    if (record && this.crashAfter !== undefined && record.n >= this.crashAfter) {
      this.crash();
      return never();
    }
    return out;
  }

  /** Kills the process's view of the server: no more answers, every watch ended. */
  crash(): void {
    if (this.crashed) return;
    this.crashed = true;
    for (const w of this.open.keys()) w.stop();
    this.open.clear();
    this.onCrash?.();
  }

  async watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>> {
    if (this.crashed) return never();
    this.touch();
    if (this.paused) await this.paused.release;
    const key = watchKey(req);
    if (count(this.expireOnOpen, key, -1)) {
      // Listed from a stale view, not yet watching when it caught up: expired, so the informer relists the live state.
      count(this.reopening, key, 1);
      throw new ApiError({ code: 410, reason: 'Expired', message: 'explore: watch expired after a stale view' });
    }
    const inner = await (this.staleView ?? this.inner).watch<T>(req);
    count(this.reopening, key, -1);
    if (this.crashed) {
      inner.stop();
      return never();
    }
    let expire!: () => void;
    const entry: OpenWatch = { key, silenced: false, expired: new Promise<void>((r) => (expire = r)), expire: () => expire() };
    this.open.set(inner as Watch<unknown>, entry);
    const self = this;
    return {
      stop: (reason?: unknown) => {
        self.open.delete(inner as Watch<unknown>);
        inner.stop(reason);
      },
      async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
        const events = inner[Symbol.asyncIterator]();
        try {
          for (;;) {
            const next: IteratorResult<WatchEvent<T>> | typeof EXPIRED = await Promise.race([events.next(), entry.expired.then((): typeof EXPIRED => EXPIRED)]);
            if (next === EXPIRED) {
              // The end of a gap: expired in-stream, so the informer relists (at once) instead of replaying the gap.
              yield { type: 'ERROR', object: EXPIRED_STATUS as T };
              return;
            }
            if (next.done || self.crashed) return;
            if (entry.silenced) continue; // a gap: the event is never seen
            self.touch();
            yield next.value;
          }
        } finally {
          self.open.delete(inner as Watch<unknown>);
          inner.stop();
        }
      },
    };
  }

  /** Starts a gap: silences every open watch (its events are dropped) and holds new lists and watches until `resume()`. */
  pause(): void {
    if (this.paused) return;
    let open!: () => void;
    const release = new Promise<void>((r) => (open = r));
    this.paused = { release, open };
    for (const w of this.open.values()) w.silenced = true;
  }

  /** Ends the gap: every silenced watch ends with an in-stream 410, so that its informer relists; held requests go on. */
  resume(): void {
    const p = this.paused;
    this.paused = undefined;
    for (const [inner, w] of [...this.open]) {
      if (!w.silenced) continue;
      this.open.delete(inner);
      count(this.reopening, w.key, 1);
      w.expire();
    }
    p?.open();
    this.touch();
  }

  /** Ends a stale view: the informers relist from the live control plane (see the module comment). */
  catchUp(): void {
    this.pause();
    // Informers that listed from the view but are not watching now (a list under way, a watch about to open) relist
    // at their next watch; the watching ones are expired in-stream by resume().
    const watching = new Set([...this.open.values()].map((w) => w.key));
    for (const key of this.staleListed) if (!watching.has(key)) count(this.expireOnOpen, key, 1);
    this.staleListed.clear();
    this.staleView = undefined;
    this.resume();
  }

  /** Whether every informer has relisted and watches again since the last gap. */
  get caughtUp(): boolean {
    // Not expireOnOpen: a one-off list (not an informer's) is never followed by a watch. An informer's list still
    // under way is waited for; its watch then opens at once and is counted in reopening until it watches again.
    return !this.paused && this.reopening.size === 0 && this.staleListsInFlight === 0;
  }

  private touch(): void {
    this.lastActivity = Date.now();
  }
}

/** An open watch of the transport (see `FaultTransport.open`). */
interface OpenWatch {
  key: string;
  silenced: boolean;
  expired: Promise<void>;
  expire(): void;
}

const EXPIRED: unique symbol = Symbol('expired');
const EXPIRED_STATUS = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'explore: watch expired across a gap' };

/** What a watch watches: resource, namespace and selectors (an informer's watches all have the same). */
function watchKey(req: ResourceRequest): string {
  const q = (req.query ?? {}) as Record<string, unknown>;
  return JSON.stringify([req.resource.group, req.resource.resource, req.namespace ?? '', q['labelSelector'] ?? '', q['fieldSelector'] ?? '', req.as ?? '']);
}

/** Adds `by` to `key`'s count (a count of 0 is removed); with a negative `by`, true when there was one to take. */
function count(m: Map<string, number>, key: string, by: number): boolean {
  const n = m.get(key) ?? 0;
  if (by < 0 && n === 0) return false;
  if (n + by === 0) m.delete(key);
  else m.set(key, n + by);
  return true;
}
