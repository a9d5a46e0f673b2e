/**
 * Which informer phase span (`watch <informer>` or `list <informer>`) a cache change came from, carried from the
 * reflector that applies it to the handler that receives it, so a reconcile can link to that span (event-links.ts).
 *
 * Contract:
 * - The reflector sets {@link setFeedingOrigin} to its open phase span's context around each synchronous store write
 *   (a watch event, a list's or a WatchList stream's whole state) and clears it after; it only does so while tracing
 *   is on (it has a span), so with tracing off {@link feedingOrigin} is always undefined.
 * - A listener reads {@link feedingOrigin} when a change is pushed to it (one variable read), keeps it beside the
 *   notification, and sets {@link setDeliveringOrigin} around the handler call that delivers it; an event handler's
 *   sink reads {@link deliveringOrigin}. A resync, or the cached objects given to a handler added late, have no
 *   origin.
 * - This module imports nothing (the cache and the tracing modules both read it: no circle).
 */
import type * as OtelApi from '@opentelemetry/api';

let feeding: OtelApi.SpanContext | undefined;
let delivering: OtelApi.SpanContext | undefined;

/** The phase span whose store write is in progress, or undefined (tracing off, or nothing is being written). */
export function feedingOrigin(): OtelApi.SpanContext | undefined {
  return feeding;
}

/** Sets (a span context) or clears (undefined) the phase span of the store write in progress. */
export function setFeedingOrigin(origin: OtelApi.SpanContext | undefined): void {
  feeding = origin;
}

/** The phase span of the notification being delivered to a handler, or undefined. */
export function deliveringOrigin(): OtelApi.SpanContext | undefined {
  return delivering;
}

/** Sets (a span context) or clears (undefined) the phase span of the notification being delivered. */
export function setDeliveringOrigin(origin: OtelApi.SpanContext | undefined): void {
  delivering = origin;
}
