/**
 * Why a reconcile ran: the watch events that put its request into the queue, as span links.
 *
 * Contract:
 * - An informer source calls {@link duringEvent} around its handler; a controller's sink, called synchronously by
 *   that handler, takes {@link currentEventLink}. The first sink to ask makes one short span for the event
 *   (`<type> <source>`, a root span with the event's type, resourceVersion, object and source) and every request the
 *   event enqueued links to it, with the same attributes on the link. A handler that enqueues later (after an await)
 *   links nothing.
 * - Tracing off: `duringEvent` only calls the handler; nothing is made.
 */
import type * as OtelApi from '@opentelemetry/api';
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
  current = { type, source, obj };
  try {
    fn();
  } finally {
    current = outer;
  }
}

/** The link to the event being handled (its span made on the first call), or undefined when there is none. */
export function currentEventLink(): OtelApi.Link | undefined {
  const ev = current;
  const t = activeTracing();
  if (!ev || !t) return undefined;
  if (ev.link) return ev.link;
  const md = ev.obj.metadata;
  const attributes: OtelApi.Attributes = {
    'k8s.event.type': ev.type,
    'kubegen.source': ev.source,
    ...(md?.resourceVersion ? { 'k8s.resource_version': md.resourceVersion } : {}),
    ...(md?.namespace ? { 'k8s.namespace.name': md.namespace } : {}),
    ...(md?.name ? { 'k8s.object.name': md.name } : {}),
  };
  const span = t.tracer.startSpan(`${ev.type} ${ev.source}`, { kind: t.api.SpanKind.CONSUMER, root: true, attributes });
  span.end();
  ev.link = { context: span.spanContext(), attributes };
  return ev.link;
}
