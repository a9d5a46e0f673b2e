/**
 * Aggregation of repeated Events (client-go `tools/record` `eventLogger`): events that are identical in source,
 * involved object, type, reason and message share one Event object whose `count` grows. The correlator remembers,
 * per key, the name, count, first timestamp and resourceVersion of the Event last written, in an LRU of 4096 keys.
 *
 * Only the broadcaster's single writer calls it, one event at a time, so no locking is needed.
 */
import type { Event } from '../builtin/types.js';
import { LruCache } from './lru-cache.js';

/** client-go's `maxLruCacheEntries`. */
export const DEFAULT_EVENT_CACHE_SIZE = 4096;

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

export class EventCorrelator {
  private readonly cache: LruCache<string, EventLog>;

  constructor(cacheSize = DEFAULT_EVENT_CACHE_SIZE) {
    this.cache = new LruCache(cacheSize);
  }

  /**
   * Records a new occurrence. A first occurrence is returned unchanged (to be created); a repeat comes back as the
   * existing Event's name with `count + 1` and the original `firstTimestamp`, plus the patch to send.
   */
  observe(event: Event): ObservedEvent {
    const key = eventKey(event);
    const last = this.cache.get(key);
    let result: ObservedEvent;
    if (last === undefined) {
      result = { event };
    } else {
      const repeated: Event = {
        ...event,
        metadata: { ...event.metadata, name: last.name, ...(last.resourceVersion ? { resourceVersion: last.resourceVersion } : {}) },
        count: last.count + 1,
        firstTimestamp: last.firstTimestamp ?? event.firstTimestamp,
      };
      result = { event: repeated, patch: { count: last.count + 1, lastTimestamp: event.lastTimestamp, message: event.message } };
    }
    this.remember(key, result.event);
    return result;
  }

  /** Records what the apiserver stored (name, count, resourceVersion) after a successful write. */
  updateState(written: Event): void {
    this.remember(eventKey(written), written);
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
