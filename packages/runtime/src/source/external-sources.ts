/**
 * Sources of events from outside the cluster (controller-runtime's `source.Channel` and `source.Func`): a webhook
 * from GitHub, a timer, a message queue. They follow the {@link Source} contract; both count as synced once started
 * (there is no initial state to wait for).
 *
 * - {@link channelSource}: every object an `AsyncIterable` yields — an {@link EventChannel} the program `send`s to, an
 *   async generator — goes through the predicates (`generic`) to the handler's `generic` (the builder's
 *   `watchesSource(source, handler)` binds the handler). When the controller stops, the source stops taking objects
 *   (it calls the iterator's `return`); an iterator that throws ends the source, logged. Only the first controller to
 *   start it consumes it: one iterable, one consumer.
 * - {@link funcSource}: `fn(sink, signal)` is called once when the controller starts and adds requests to `sink` as it
 *   likes until `signal` aborts (the builder's `watchesRawSource(source)`). A throw or rejection is logged.
 */
import type { KubeObject } from '../client/types.js';
import type { EventHandler, RequestSink } from '../handler/handler.js';
import { getLogger, type Logger } from '../log.js';
import { admitsAll, type Predicate } from '../predicate/predicate.js';
import type { Source } from './source.js';

/** A source that needs a handler to become a {@link Source} (see `ControllerBuilder.watchesSource`). */
export interface EventSource<T extends KubeObject = KubeObject> {
  readonly description: string;
  /** The {@link Source} that hands this source's objects, admitted by `predicates`, to `handler`. */
  bind(handler: EventHandler<T>, predicates: readonly Predicate<T>[], log: Logger): Source;
}

/**
 * An unbounded channel of objects (a Go channel's part in controller-runtime's `source.Channel`): `send` hands an
 * object to the consumer, or keeps it until there is one; `close` ends the iteration once what was sent is taken.
 * Async-iterable by one consumer at a time; a consumer that stops (`return`) leaves later sends buffered.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private closed = false;

  /** Hands `obj` to the consumer (at once when it waits). Throws once the channel is closed. */
  send(obj: T): void {
    if (this.closed) throw new Error('send on a closed EventChannel');
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting({ value: obj, done: false });
    else this.buffer.push(obj);
  }

  /** Ends the iteration after the buffered objects. */
  close(): void {
    this.closed = true;
    this.release();
  }

  /** Objects sent and not yet taken. */
  get length(): number {
    return this.buffer.length;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift()!, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.release();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }
}

/** controller-runtime's `source.Channel` over any `AsyncIterable` (see the module comment). */
export function channelSource<T extends KubeObject>(events: AsyncIterable<T>, opts: { description?: string } = {}): EventSource<T> {
  const description = opts.description ?? 'channel';
  return { description, bind: (handler, predicates, log) => new ChannelSource(events, description, handler, predicates, log) };
}

class ChannelSource<T extends KubeObject> implements Source {
  private started = false;

  constructor(
    private readonly events: AsyncIterable<T>,
    readonly description: string,
    private readonly handler: EventHandler<T>,
    private readonly predicates: readonly Predicate<T>[],
    private readonly log: Logger,
  ) {}

  start(sink: RequestSink, signal: AbortSignal): void {
    if (this.started) throw new Error(`source ${this.description} already started`);
    this.started = true;
    if (signal.aborted) return;
    const it = this.events[Symbol.asyncIterator]();
    const stop = (): void => void it.return?.()?.catch(() => undefined);
    signal.addEventListener('abort', stop, { once: true });
    void (async () => {
      try {
        for (let next = await it.next(); !next.done && !signal.aborted; next = await it.next()) {
          const obj = next.value;
          try {
            if (admitsAll(this.predicates, 'generic', obj)) this.handler.generic?.(obj, sink);
          } catch (err) {
            this.log.error('event handler failed', { event: 'generic', source: this.description, error: err });
          }
        }
      } catch (err) {
        if (!signal.aborted) this.log.error('source failed: no more events from it', { source: this.description, error: err });
      } finally {
        signal.removeEventListener('abort', stop);
      }
    })();
  }

  hasSynced(): boolean {
    return true;
  }

  whenSynced(signal: AbortSignal): Promise<boolean> {
    return Promise.resolve(!signal.aborted);
  }

  syncError(): unknown {
    return undefined;
  }
}

/** controller-runtime's `source.Func` (see the module comment). */
export function funcSource(
  fn: (sink: RequestSink, signal: AbortSignal) => void | Promise<void>,
  opts: { description?: string; log?: Logger } = {},
): Source {
  const description = opts.description ?? 'func';
  let started = false;
  return {
    description,
    start(sink, signal) {
      if (started) throw new Error(`source ${description} already started`);
      started = true;
      if (signal.aborted) return;
      const failed = (err: unknown): void => {
        if (!signal.aborted) (opts.log ?? getLogger()).error('source failed', { source: description, error: err });
      };
      try {
        void Promise.resolve(fn(sink, signal)).catch(failed);
      } catch (err) {
        failed(err);
      }
    },
    hasSynced: () => true,
    whenSynced: (signal) => Promise.resolve(!signal.aborted),
    syncError: () => undefined,
  };
}
