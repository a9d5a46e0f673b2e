/**
 * Correlation of Events, as client-go's `tools/record` `EventCorrelator` does it, in two steps:
 * 1. `EventAggregator`: when 10 events that differ only in message arrive for the same source, object, type and
 *    reason within 600 s, further ones are replaced by one Event whose message is
 *    `(combined from similar events): <latest message>`, keyed without the message.
 * 2. `eventLogger`: events identical in source, object, type, reason and message (or sharing an aggregate key)
 *    share one Event object whose `count` grows. The correlator remembers, per key, the name, count, first timestamp
 *    and resourceVersion of the Event last written, in an LRU of 4096 keys.
 *
 * Only the broadcaster's single writer calls it, one event at a time, so no locking is needed.
 */
import type { Event } from '../builtin/types.js';
import { formatEventTime } from './event-time.js';
import { LruCache } from './lru-cache.js';

/** client-go's `maxLruCacheEntries`. */
export const DEFAULT_EVENT_CACHE_SIZE = 4096;
/** client-go's `defaultAggregateMaxEvents`: similar events before they are combined. */
export const AGGREGATE_MAX_EVENTS = 10;
/** client-go's `defaultAggregateIntervalInSeconds`, in ms. */
export const AGGREGATE_INTERVAL_MS = 600_000;
/** The message prefix of a combined event (client-go `EventAggregatorByReasonMessageFunc`). */
export const COMBINED_MESSAGE_PREFIX = '(combined from similar events): ';

interface AggregateRecord {
  /** Distinct messages seen for the aggregate key within the interval. */
  messages: Set<string>;
  last: number;
}

interface EventLog {
  count: number;
  firstTimestamp: string | undefined;
  name: string;
  resourceVersion: string | undefined;
}

/** The outcome of observing an event: what to write, and for a repeat the merge patch to send instead of a create. */
export interface ObservedEvent {
  event: Event;
  /** Set for a repeat: `{ count, lastTimestamp, message }` to patch onto the existing Event named `event.metadata.name`. */
  patch?: { count: number; lastTimestamp: string | undefined; message: string | undefined };
  /** The correlation key; pass it back to `updateState` with what the apiserver stored. */
  key: string;
}

/** The aggregation key (client-go `getEventKey`). */
export function eventKey(event: Event): string {
  const o = event.involvedObject;
  return [
    event.source?.component,
    event.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    event.type,
    event.reason,
    event.message,
  ]
    .map((p) => p ?? '')
    .join('\u0000');
}

/** The key similar events share (client-go `EventAggregatorByReasonFunc`): everything but the message. */
export function aggregateKey(event: Event): string {
  const o = event.involvedObject;
  return [event.source?.component, event.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, event.type, event.reason]
    .map((p) => p ?? '')
    .join('\u0000');
}

export class EventCorrelator {
  private readonly cache: LruCache<string, EventLog>;
  private readonly aggregates: LruCache<string, AggregateRecord>;

  constructor(cacheSize = DEFAULT_EVENT_CACHE_SIZE) {
    this.cache = new LruCache(cacheSize);
    this.aggregates = new LruCache(cacheSize);
  }

  /**
   * Records a new occurrence at `now` (ms). A first occurrence is returned unchanged (to be created); a repeat comes
   * back as the existing Event's name with `count + 1` and the original `firstTimestamp`, plus the patch to send.
   * From the 10th distinct message for one object and reason within 600 s, events are combined (see above).
   */
  observe(raw: Event, now: number = Date.now()): ObservedEvent {
    const { event, key } = this.aggregate(raw, now);
    const last = this.cache.get(key);
    let result: ObservedEvent;
    if (last === undefined) {
      result = { event, key };
    } else {
      const repeated: Event = {
        ...event,
        metadata: { ...event.metadata, name: last.name, ...(last.resourceVersion ? { resourceVersion: last.resourceVersion } : {}) },
        count: last.count + 1,
        firstTimestamp: last.firstTimestamp ?? event.firstTimestamp,
      };
      result = { event: repeated, patch: { count: last.count + 1, lastTimestamp: event.lastTimestamp, message: event.message }, key };
    }
    this.remember(key, result.event);
    return result;
  }

  /** Records what the apiserver stored (name, count, resourceVersion) after a successful write. */
  updateState(written: Event, key: string = eventKey(written)): void {
    this.remember(key, written);
  }

  /** client-go `EventAggregate`: the event to write and the key to correlate it under. */
  private aggregate(event: Event, now: number): { event: Event; key: string } {
    const aKey = aggregateKey(event);
    let record = this.aggregates.get(aKey);
    if (record === undefined || now - record.last > AGGREGATE_INTERVAL_MS) record = { messages: new Set(), last: now };
    record.messages.add(event.message ?? '');
    record.last = now;
    this.aggregates.set(aKey, record);
    if (record.messages.size < AGGREGATE_MAX_EVENTS) return { event, key: eventKey(event) };
    // Keep the set just under the limit, so every further similar event is combined too (client-go's PopAny).
    const first = record.messages.values().next();
    if (!first.done) record.messages.delete(first.value);
    const timestamp = formatEventTime(now);
    const name = event.involvedObject.name ?? 'event';
    const combined: Event = {
      ...event,
      metadata: { name: `${name}.${(BigInt(Math.floor(now)) * 1_000_000n).toString(16)}`, namespace: event.metadata?.namespace },
      count: 1,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      message: COMBINED_MESSAGE_PREFIX + (event.message ?? ''),
    };
    return { event: combined, key: aKey };
  }

  private remember(key: string, event: Event): void {
    this.cache.set(key, {
      count: event.count ?? 1,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata?.name ?? '',
      resourceVersion: event.metadata?.resourceVersion,
    });
  }
}
