/**
 * The spans of an informer's own phases (the reflector's): `list <informer>` around the page requests of one (re)list,
 * and `watch <informer>` around one watch from its request to its end.
 *
 * Contract:
 * - {@link startListSpan} and {@link startWatchSpan} return undefined while tracing is off (one variable read; the
 *   reflector then does what it did before).
 * - Both are INTERNAL root spans (an informer's phases belong to no reconcile) with `kubegen.informer` naming the
 *   informer. Their `run` runs the request(s) in the span's context, so the transport's CLIENT spans of the list's
 *   pages, or of the watch request, are its children.
 * - `list`: the resourceVersion asked for, then (at `end`) the page count, item count and the list's resourceVersion;
 *   why it listed (`initial`, `expired` after a 410, `error` after another failure), and a link to the watch whose 410
 *   caused it; a continue token that expired mid-way is an event. A failed list ends with the error (status ERROR).
 * - `watch`: the resourceVersion it resumed from; `established` when the server answered, a `bookmark` event per
 *   bookmark (its resourceVersion), for a WatchList stream an `initial events end` event (item count); at `end` the
 *   number of events delivered, how it ended (`kubegen.watch.outcome`: ended, failed, idle, expired, ignored,
 *   rejected) and what the reflector does next (`rewatch` or `relist`) as an event named by the outcome. A 410 is
 *   `expired`; a WatchList request refused by a server without it (`'auto'` mode) is `rejected`, not an error.
 * - Nothing per watch event but bookmarks: an event adds no span and no span event. A reconcile the event caused
 *   links to the span instead, the event on the link (event-links.ts), through the origin the reflector sets around
 *   its store writes (event-origin.ts): a list's `replace` with the `list` span's {@link ListSpan.context}, a watch
 *   event or a WatchList stream's initial state with the `watch` span's.
 */
import type * as OtelApi from '@opentelemetry/api';
import { activeTracing } from './otel.js';
import { recordSpanError } from './span-error.js';

/** Why a reflector lists: its first list, after a 410 (`expired`), or after another error. */
export type ListReason = 'initial' | 'expired' | 'error';

/** One open `list <informer>` span. */
export interface ListSpan {
  /** Runs the list's requests in the span's context. */
  run<R>(fn: () => Promise<R>): Promise<R>;
  /** A continue token expired mid-way: the pager starts over with one unpaginated list. */
  restarted(): void;
  /** Ends the span with what the list brought, or with the error that failed it. */
  end(result: { pages: number; items: number; resourceVersion: string } | undefined, error?: unknown): void;
  /** The span's context: the origin of the changes the list brings (event-origin.ts). */
  readonly context: OtelApi.SpanContext;
}

/** One open `watch <informer>` span. */
export interface WatchSpan {
  /** Runs the watch request in the span's context. */
  run<R>(fn: () => Promise<R>): Promise<R>;
  /** The server answered the watch request. */
  established(): void;
  /** A bookmark arrived. */
  bookmark(resourceVersion: string): void;
  /** A WatchList stream's initial-events-end bookmark arrived: `items` make the initial state. */
  initialEventsEnd(items: number, resourceVersion: string): void;
  /** How many events the watch delivered (called once, when it ends). */
  events(n: number): void;
  /**
   * Ends the span: how the watch ended (undefined when opening or reading it threw `error`) and what the reflector
   * does next. Later calls do nothing.
   */
  end(outcome: string | undefined, next: 'rewatch' | 'relist' | undefined, error?: unknown): void;
  /** The span's context, for the link of the relist a 410 causes, and the origin of the events the watch brings. */
  readonly context: OtelApi.SpanContext;
}

/** An informer phase's span as opened, with what both kinds of phase span hand out. */
interface PhaseSpan {
  api: typeof OtelApi;
  span: OtelApi.Span;
  context: OtelApi.SpanContext;
  run<R>(fn: () => Promise<R>): Promise<R>;
}

/**
 * Opens an informer phase's INTERNAL root span `name` (an informer's phases belong to no reconcile), and its `run`,
 * which makes it current; undefined while tracing is off.
 */
function startPhaseSpan(name: string, attributes: OtelApi.Attributes, links: OtelApi.Link[] = []): PhaseSpan | undefined {
  const t = activeTracing();
  if (!t) return undefined;
  const { api } = t;
  const span = t.tracer.startSpan(name, { kind: api.SpanKind.INTERNAL, root: true, attributes, links });
  const ctx = api.trace.setSpan(api.context.active(), span);
  return { api, span, context: span.spanContext(), run: (fn) => api.context.with(ctx, fn) };
}

/**
 * Opens the span of one (re)list of `informer` at `resourceVersion` ('' = consistent read), or returns undefined
 * when tracing is off. `cause`: the watch whose 410 led to it.
 */
export function startListSpan(informer: string, resourceVersion: string, reason: ListReason, cause?: OtelApi.SpanContext): ListSpan | undefined {
  const phase = startPhaseSpan(
    `list ${informer}`,
    { 'kubegen.informer': informer, 'kubegen.list.reason': reason, 'kubegen.list.requested_resource_version': resourceVersion },
    cause ? [{ context: cause, attributes: { 'kubegen.link': 'expired watch' } }] : [],
  );
  if (!phase) return undefined;
  const { api, span } = phase;
  return {
    context: phase.context,
    run: phase.run,
    restarted: () => span.addEvent('continue expired; full list'),
    end: (result, error) => {
      if (result) span.setAttributes({ 'kubegen.list.pages': result.pages, 'kubegen.list.items': result.items, 'k8s.resource_version': result.resourceVersion });
      if (error !== undefined) recordSpanError(api, span, error);
      span.end();
    },
  };
}

/**
 * Opens the span of one watch of `informer` from `resourceVersion` (`initialEvents`: a WatchList stream), or returns
 * undefined when tracing is off.
 */
export function startWatchSpan(informer: string, resourceVersion: string, initialEvents: boolean): WatchSpan | undefined {
  const phase = startPhaseSpan(`watch ${informer}`, {
    'kubegen.informer': informer,
    'kubegen.watch.resource_version': resourceVersion,
    ...(initialEvents ? { 'kubegen.watch.send_initial_events': true } : {}),
  });
  if (!phase) return undefined;
  const { api, span } = phase;
  let ended = false;
  return {
    context: phase.context,
    run: phase.run,
    established: () => span.addEvent('established'),
    bookmark: (rv) => span.addEvent('bookmark', { 'k8s.resource_version': rv }),
    initialEventsEnd: (items, rv) => span.addEvent('initial events end', { 'kubegen.list.items': items, 'k8s.resource_version': rv }),
    events: (n) => span.setAttribute('kubegen.watch.events', n),
    end: (outcome, next, error) => {
      if (ended) return;
      ended = true;
      if (outcome !== undefined) {
        span.setAttribute('kubegen.watch.outcome', outcome);
        span.addEvent(outcome, next ? { 'kubegen.watch.next': next } : undefined);
      }
      if (error !== undefined) recordSpanError(api, span, error);
      span.end();
    },
  };
}
