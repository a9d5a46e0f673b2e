/**
 * Why a reconcile ran: the watch events that put its request into the queue, as span links.
 *
 * Contract:
 * - An informer source calls {@link duringEvent} around its handler; a controller's sink, called synchronously by
 *   that handler, takes {@link currentEventLink}: a link to the informer phase span the event came from (the
 *   `watch <informer>` span of the watch that delivered it, or the `list <informer>` span of a list or relist; a
 *   WatchList stream's initial state: its `watch` span; see event-origin.ts), the event itself on the link's
 *   attributes (its type, resourceVersion, object and source). No span is made per event. Every request the event
 *   enqueued gets the same link. A handler that enqueues later (after an await) links nothing, nor does an event
 *   without a phase span (a resync, the cached objects given to a handler added late).
 * - Tracing off: `duringEvent` only calls the handler; nothing is made.
 */
import type * as OtelApi from '@opentelemetry/api';
import { deliveringOrigin } from './event-origin.js';
import { activeTracing } from './otel.js';

/** The object of an event, as far as a link needs it. */
export interface EventObject {
  metadata?: { name?: string | undefined; namespace?: string | undefined; resourceVersion?: string | undefined } | undefined;
}

/** The watch event types an informer source hands its handler. */
export type EventType = 'create' | 'update' | 'delete';

interface PendingEvent {
  type: EventType;
  source: string;
  obj: EventObject;
  origin: OtelApi.SpanContext | undefined;
  link?: OtelApi.Link;
}

let current: PendingEvent | undefined;

/** Runs `fn` (a handler call) with the event it handles as the current one, for the sinks it calls. */
export function duringEvent(type: EventType, source: string, obj: EventObject, fn: () => void): void {
  if (!activeTracing()) {
    fn();
    return;
  }
  const outer = current;
  current = { type, source, obj, origin: deliveringOrigin() };
  try {
    fn();
  } finally {
    current = outer;
  }
}

/** The link for the event being handled (made on the first call), or undefined when there is none. */
export function currentEventLink(): OtelApi.Link | undefined {
  const ev = current;
  if (!ev || !ev.origin || !activeTracing()) return undefined;
  if (ev.link) return ev.link;
  const md = ev.obj.metadata;
  const attributes: OtelApi.Attributes = {
    'k8s.event.type': ev.type,
    'kubegen.source': ev.source,
    ...(md?.resourceVersion ? { 'k8s.resource_version': md.resourceVersion } : {}),
    ...(md?.namespace ? { 'k8s.namespace.name': md.namespace } : {}),
    ...(md?.name ? { 'k8s.object.name': md.name } : {}),
  };
  ev.link = { context: ev.origin, attributes };
  return ev.link;
}
