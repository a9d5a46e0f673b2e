/**
 * The transport a perturbed manager talks through: it forwards to the shared fake control plane and injects the
 * faults explore enumerates.
 *
 * - It records the manager's mutating requests (create, update, patch, delete, deletecollection; Events excluded:
 *   they are not state), in order, with their outcome.
 * - `crash`: with `crashAfter = N`, once the N-th mutating request has been answered the process "dies": the
 *   answer is never delivered, every later request hangs forever, every open watch ends, and `onCrash` fires. The
 *   write itself is committed, as when a controller is killed right after the apiserver answered.
 * - `gap`: `pause()` ends every open watch and holds every new list and watch; `resume()` lets them through, the
 *   watches first answering 410 Expired so that each informer relists: what happened while paused is seen only as
 *   the state at resume, never as the events in between; `caughtUp` tells when every informer watches again.
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
  relisting = 0;
  private paused: { release: Promise<void>; open: () => void } | undefined;
  private readonly open = new Set<Watch<unknown>>();
  /** Watches expired after a gap whose informers have not opened a new watch yet. */
  private reopening = 0;

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
    for (const w of this.open) w.stop();
    this.open.clear();
    this.onCrash?.();
  }

  async watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>> {
    if (this.crashed) return never();
    this.touch();
    if (this.paused) await this.paused.release;
    if (this.relisting > 0) {
      // The first watch after a gap: expired, so the informer relists instead of replaying the gap's events.
      this.relisting--;
      this.reopening++;
      throw new ApiError({ code: 410, reason: 'Expired', message: 'explore: watch expired across a gap' });
    }
    const inner = await this.inner.watch<T>(req);
    if (this.reopening > 0) this.reopening--;
    if (this.crashed) {
      inner.stop();
      return never();
    }
    this.open.add(inner as Watch<unknown>);
    const self = this;
    return {
      stop: (reason?: unknown) => {
        self.open.delete(inner as Watch<unknown>);
        inner.stop(reason);
      },
      async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
        try {
          for await (const ev of inner) {
            if (self.crashed) return;
            self.touch();
            yield ev;
          }
        } finally {
          self.open.delete(inner as Watch<unknown>);
        }
      },
    };
  }

  /** Starts a gap: ends every open watch and holds new lists and watches until `resume()`. */
  pause(): void {
    if (this.paused) return;
    let open!: () => void;
    const release = new Promise<void>((r) => (open = r));
    this.paused = { release, open };
    this.relisting = this.open.size;
    for (const w of [...this.open]) w.stop();
    this.open.clear();
  }

  /** Ends the gap: held lists and watches go on, each watch first answered 410 so that its informer relists. */
  resume(): void {
    const p = this.paused;
    this.paused = undefined;
    p?.open();
    this.touch();
  }

  /** Whether every informer has relisted and watches again since the last gap. */
  get caughtUp(): boolean {
    return !this.paused && this.relisting === 0 && this.reopening === 0;
  }

  private touch(): void {
    this.lastActivity = Date.now();
  }
}
