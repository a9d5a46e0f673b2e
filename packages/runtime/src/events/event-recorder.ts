/**
 * Writing Events (client-go `tools/record`: `EventBroadcaster` + `EventRecorder` + `recordToSink`), as
 * events.k8s.io/v1 Events where the server serves that API (controller-runtime 0.23's recorder: `reportingController`,
 * `reportingInstance`, `action`, repeats as a `series`; `events-v1.ts`), core/v1 Events where it does not (`api`:
 * `auto`, the default, finds out at the first write and remembers — not served, or forbidden by RBAC that grants
 * core Events only, means core/v1; `events.k8s.io/v1` or `v1` choose).
 *
 * `recorder.event(obj, type, reason, message)` returns at once: it builds the Event and queues it (at most
 * `maxQueueLength`, further events are dropped and logged). One writer per broadcaster sends queued events in order:
 * a first occurrence is created (`<object-name>.<hex nanoseconds>` in the object's namespace, or `default` for a
 * cluster-scoped object); a repeat of the same (source, object, type, reason, message) patches the existing Event's
 * `count`, `lastTimestamp` and `message` (falling back to a create if it was deleted). Network errors, 5xx and 429 are
 * retried up to `maxAttempts` times with exponential backoff; other API errors drop the event. Nothing ever throws
 * to the caller and the writer never rejects.
 */
import { hostname } from 'node:os';
import { ApiError, isForbidden, isNotFound, ResourceNotServedError } from '../client/errors.js';
import { explainError } from '../client/forbidden.js';
import type { KubeObject, Transport } from '../client/types.js';
import { CoreV1Client } from '../api/core/v1/client.js';
import type { Event } from '../builtin/types.js';
import { realClock, type Clock } from '../clock.js';
import { sleep } from '../deadline.js';
import { getLogger, type Logger } from '../log.js';
import { DEFAULT_EVENT_CACHE_SIZE, EventCorrelator } from './event-correlator.js';
import { formatEventTime } from './event-time.js';
import { seriesPatch, toEventsV1 } from './events-v1.js';

/** An Event's `type` (client-go's `corev1.EventTypeNormal` / `EventTypeWarning`): Warning for what needs a look. */
export type EventType = 'Normal' | 'Warning';

/** Records Events about objects. Implementations never throw and never block. */
export interface EventRecorder {
  /**
   * Records that `reason` happened to `obj` (which needs `apiVersion`, `kind` and `metadata.name`; events about
   * objects without them are dropped with a logged error). `reason` is a short UpperCamelCase word.
   */
  event(obj: KubeObject, type: EventType, reason: string, message: string, action?: string): void;
}

/**
 * Which Event API a broadcaster writes: `events.k8s.io/v1` where the server serves it, else core `v1` (`auto`, the
 * default); or one of the two.
 */
export type EventApi = 'auto' | 'events.k8s.io/v1' | 'v1';

/**
 * Settings of an {@link EventBroadcaster}: where Events are written (`transport`, required), queue length, retries
 * and aggregation; the defaults follow client-go's `tools/record`.
 */
export interface EventBroadcasterOptions {
  transport: Transport;
  /** `source.host` of every Event (optional, as in controller-runtime). */
  host?: string;
  clock?: Clock;
  logger?: Logger;
  /** Queued events beyond this are dropped (client-go's broadcaster queue: 1000). */
  maxQueueLength?: number;
  /** Tries per event (client-go: 12). */
  maxAttempts?: number;
  /** First retry delay, doubled per retry (default 1 s). */
  retryInitialDelayMs?: number;
  /** Retry delay cap (client-go sleeps 10 s between tries). */
  retryMaxDelayMs?: number;
  /** Aggregation LRU size (default 4096). */
  cacheSize?: number;
  /** The Event API written (default `auto`, see {@link EventApi}). */
  api?: EventApi;
}

/** Owns the queue, the correlator and the writer; hands out recorders per component. */
export class EventBroadcaster {
  private readonly coreV1: CoreV1Client;
  private readonly host: string | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly maxQueueLength: number;
  private readonly maxAttempts: number;
  private readonly retryInitialDelayMs: number;
  private readonly retryMaxDelayMs: number;
  private readonly correlator: EventCorrelator;
  private readonly transport: Transport;
  /** The events.k8s.io/v1 client and the host of `reportingInstance`, made at the first such write. */
  private eventsV1Client: import('../api/events/v1/client.js').EventsV1Client | undefined;
  private reportingHost: string | undefined;
  /** Whether events.k8s.io/v1 is written: undefined until the first write finds out (`auto`). */
  private eventsV1: boolean | undefined;
  private readonly queue: { event: Event; action: string }[] = [];
  private readonly stopping = new AbortController();
  private writer: Promise<void> | undefined;
  private closed = false;
  private seq = 0;

  constructor(opts: EventBroadcasterOptions) {
    this.coreV1 = new CoreV1Client(opts.transport);
    this.transport = opts.transport;
    this.eventsV1 = opts.api === 'events.k8s.io/v1' ? true : opts.api === 'v1' ? false : undefined;
    this.host = opts.host;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ component: 'events' });
    this.maxQueueLength = opts.maxQueueLength ?? 1000;
    this.maxAttempts = opts.maxAttempts ?? 12;
    this.retryInitialDelayMs = opts.retryInitialDelayMs ?? 1000;
    this.retryMaxDelayMs = opts.retryMaxDelayMs ?? 10_000;
    this.correlator = new EventCorrelator(opts.cacheSize ?? DEFAULT_EVENT_CACHE_SIZE);
  }

  /**
   * A recorder whose Events name `component` as their writer (`reportingController`; core/v1: `source.component`).
   * An event's `action` defaults to its reason.
   */
  newRecorder(component: string): EventRecorder {
    return { event: (obj, type, reason, message, action) => this.record(component, obj, type, reason, message, action ?? reason) };
  }

  /** Resolves once every event queued so far has been written or given up on. */
  async flush(): Promise<void> {
    while (this.writer !== undefined) await this.writer;
  }

  /** Stops accepting events, abandons pending retries, and resolves when the writer is idle. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    await this.flush();
  }

  private record(component: string, obj: KubeObject, type: EventType, reason: string, message: string, action: string): void {
    try {
      if (this.closed) return;
      if (type !== 'Normal' && type !== 'Warning') {
        this.log.error('unsupported event type', { type, reason });
        return;
      }
      const meta = obj.metadata ?? {};
      if (!obj.apiVersion || !obj.kind || !meta.name) {
        this.log.error('could not construct reference to the object, dropping event', { kind: obj.kind, name: meta.name, reason, message });
        return;
      }
      if (this.queue.length >= this.maxQueueLength) {
        this.log.error('event queue is full, dropping event', { kind: obj.kind, name: meta.name, reason, message });
        return;
      }
      this.queue.push({ event: this.makeEvent(component, obj, type, reason, message), action });
      this.writer ??= this.drain();
    } catch (err) {
      this.log.error('failed to record event', { error: err, reason });
    }
  }

  private makeEvent(component: string, obj: KubeObject, type: EventType, reason: string, message: string): Event {
    const meta = obj.metadata ?? {};
    const now = this.clock.now();
    const timestamp = formatEventTime(now);
    const nanos = BigInt(Math.floor(now)) * 1_000_000n + BigInt(this.seq++ % 1_000_000);
    const involvedObject: Event['involvedObject'] = { apiVersion: obj.apiVersion, kind: obj.kind, name: meta.name };
    if (meta.namespace) involvedObject.namespace = meta.namespace;
    if (meta.uid) involvedObject.uid = meta.uid;
    if (meta.resourceVersion) involvedObject.resourceVersion = meta.resourceVersion;
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${meta.name}.${nanos.toString(16)}`, namespace: meta.namespace || 'default' },
      involvedObject,
      reason,
      message,
      type,
      source: this.host ? { component, host: this.host } : { component },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
    };
  }

  /** The events.k8s.io/v1 side of `write`: a create, or a repeat's series patch (a create again if it was deleted). */
  private async writeEventsV1(event: Event, patch: { count: number } | undefined, action: string): Promise<void> {
    // Loaded and built at the first events.k8s.io/v1 write, then kept (a controller that never records loads nothing).
    this.eventsV1Client ??= new (await import('../api/events/v1/client.js')).EventsV1Client(this.transport);
    this.reportingHost ??= this.host ?? hostname();
    const events = this.eventsV1Client.events(event.metadata.namespace ?? 'default');
    const now = this.clock.now();
    const component = event.source?.component ?? '';
    const reporter = { controller: component, instance: `${component}-${this.reportingHost}` };
    if (patch !== undefined) {
      try {
        await events.patch(event.metadata.name!, { type: 'merge', patch: seriesPatch(patch.count, now) });
        return;
      } catch (err) {
        if (!isNotFound(err) || err instanceof ResourceNotServedError) throw err;
      }
    }
    await events.create(toEventsV1(event, reporter, action, now));
  }

  private async drain(): Promise<void> {
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        try {
          await this.write(next.event, next.action);
        } catch (err) {
          this.log.error('unexpected error writing event', { error: err });
        }
      }
    } finally {
      this.writer = undefined;
    }
  }

  /** `recordToSink`: correlate, then create or patch with retries. */
  private async write(raw: Event, action: string): Promise<void> {
    const { event, patch, key } = this.correlator.observe(raw, this.clock.now());
    const namespace = event.metadata.namespace ?? 'default';
    let delay = this.retryInitialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        if (this.eventsV1 !== false) {
          try {
            await this.writeEventsV1(event, patch, action);
            this.eventsV1 = true;
            this.correlator.updateState(event, key);
            return;
          } catch (err) {
            // Found out at the first write: not served, or not allowed (RBAC granting core Events only, as projects
            // made before events.k8s.io/v1 have): core/v1 from then on.
            if (this.eventsV1 === true || !(err instanceof ResourceNotServedError || isForbidden(err))) throw err;
            if (isForbidden(err)) {
              this.log.info('may not write events.k8s.io/v1 Events: writing core/v1 Events (grant +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch for the new API)', { error: explainError(err) });
            } else {
              this.log.info('the server does not serve events.k8s.io/v1: writing core/v1 Events', {});
            }
            this.eventsV1 = false;
          }
        }
        const events = this.coreV1.events(namespace);
        let written: Event;
        if (patch !== undefined) {
          try {
            written = await events.patch(event.metadata.name!, { type: 'merge', patch });
          } catch (err) {
            if (!isNotFound(err)) throw err;
            const { resourceVersion: _rv, ...metadata } = event.metadata;
            written = await events.create({ ...event, metadata });
          }
        } else {
          written = await events.create(event);
        }
        this.correlator.updateState(written, key);
        return;
      } catch (err) {
        const fields = { error: err, event: event.metadata.name, namespace, reason: event.reason, attempt };
        if (!isRetryable(err)) {
          this.log.error('server rejected event, will not retry', fields);
          return;
        }
        if (attempt >= this.maxAttempts || this.stopping.signal.aborted) {
          this.log.error('unable to write event, giving up', fields);
          return;
        }
        this.log.debug('unable to write event, will retry', fields);
        try {
          await sleep(this.clock, delay, this.stopping.signal);
        } catch {
          this.log.error('shutting down, dropping event', fields);
          return;
        }
        delay = Math.min(delay * 2, this.retryMaxDelayMs);
      }
    }
  }
}

/** A standalone recorder with its own broadcaster (one queue), plus `flush()` / `shutdown()`. */
export function createEventRecorder(opts: EventBroadcasterOptions & { component: string }): EventRecorder & {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
} {
  const broadcaster = new EventBroadcaster(opts);
  const recorder = broadcaster.newRecorder(opts.component);
  return { event: recorder.event, flush: () => broadcaster.flush(), shutdown: () => broadcaster.shutdown() };
}

/** Network failures (anything not answered by the apiserver), 5xx and 429 are worth another try. */
function isRetryable(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  return err.code >= 500 || err.code === 429;
}
