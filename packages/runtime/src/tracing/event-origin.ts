/**
 * Which informer phase span (`watch <informer>` or `list <informer>`) a cache change came from, carried from the
 * reflector that applies it to the handler that receives it, so a reconcile can link to that span (event-links.ts).
 *
 * Contract:
 * - The reflector runs each synchronous store write in {@link feedingFrom} with its open phase span's context
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

/**
 * Runs the synchronous store write `write` with `origin` as its feeding origin, cleared after (also when it throws);
 * with no origin (tracing off) it only runs it.
 */
export function feedingFrom<R>(origin: OtelApi.SpanContext | undefined, write: () => R): R {
  if (!origin) return write();
  feeding = origin;
  try {
    return write();
  } finally {
    feeding = undefined;
  }
}

/** The phase span of the notification being delivered to a handler, or undefined. */
export function deliveringOrigin(): OtelApi.SpanContext | undefined {
  return delivering;
}

/** Sets (a span context) or clears (undefined) the phase span of the notification being delivered. */
export function setDeliveringOrigin(origin: OtelApi.SpanContext | undefined): void {
  delivering = origin;
}
