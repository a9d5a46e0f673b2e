/**
 * The events.k8s.io/v1 form of an Event (client-go `tools/events`, the recorder controller-runtime 0.23 uses): what the
 * broadcaster writes where the server serves that API. The correlator keeps working on the core/v1 form; at write
 * time a first occurrence becomes an events.k8s.io/v1 Event (`regarding`, `note`, `reportingController`,
 * `reportingInstance`, `action`, `eventTime` in microseconds; the deprecated core fields unset, as the apiserver
 * requires of this API), and a repeat becomes a patch of its `series` (`count`, `lastObservedTime`).
 */
import type { Event } from '../builtin/types.js';
import type { Event as EventsV1Event } from '../api/events/v1/types.js';

/** metav1.MicroTime's wire format: RFC 3339 with microseconds. */
export function formatMicroTime(ms: number): string {
  const micros = Math.floor((ms % 1000) * 1000);
  return `${new Date(Math.floor(ms)).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

/** Who writes: `reportingController` (the recorder's component) and `reportingInstance` (`<component>-<host>`). */
export interface Reporter {
  controller: string;
  instance: string;
}

/** The events.k8s.io/v1 Event for a first occurrence of the core/v1 `event`, with `action` (what was done or failed). */
export function toEventsV1(event: Event, reporter: Reporter, action: string, now: number): EventsV1Event {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: event.metadata.name!, namespace: event.metadata.namespace! },
    eventTime: formatMicroTime(now),
    reportingController: reporter.controller,
    reportingInstance: reporter.instance,
    action,
    reason: event.reason!,
    regarding: event.involvedObject,
    ...(event.message !== undefined ? { note: event.message } : {}),
    type: event.type!,
  };
}

/** The merge patch of a repeat: the Event's `series` (the count so far, observed now). */
export function seriesPatch(count: number, now: number): { series: { count: number; lastObservedTime: string } } {
  return { series: { count, lastObservedTime: formatMicroTime(now) } };
}
