/**
 * The runtime's one hold on OpenTelemetry: `@opentelemetry/api` (an optional peer dependency), loaded only when
 * tracing is turned on, and the tracer the runtime's spans come from.
 *
 * Contract:
 * - Nothing is loaded and nothing costs until {@link enableTracing} runs (the manager calls it when it starts with a
 *   `tracerProvider`, or when an OpenTelemetry SDK registered itself globally before — `NodeSDK.start()` in
 *   `main.ts`). Until then {@link activeTracing} is undefined and every tracing hook of the runtime returns at once.
 * - Without `@opentelemetry/api` installed, `enableTracing` resolves false and tracing stays off (no error).
 * - Spans are parented through the api's active context (the SDK's context manager); headers are injected and
 *   extracted through the api's global propagator (the SDK registers W3C trace context).
 * - This module imports nothing of the runtime (the logger reads {@link traceLogFields} from here: no circle).
 */
import type * as OtelApi from '@opentelemetry/api';

/** The loaded api and the runtime's tracer; undefined while tracing is off. */
export interface ActiveTracing {
  api: typeof OtelApi;
  tracer: OtelApi.Tracer;
}

let active: ActiveTracing | undefined;

/** The name the runtime's tracer reports as its instrumentation scope. */
export const TRACER_NAME = '@kubegen/runtime';

/** Settings of {@link enableTracing}. */
export interface TracingOptions {
  /** Where spans go; default the api's global provider (what an SDK registered). */
  tracerProvider?: OtelApi.TracerProvider;
}

/** The api and tracer when tracing is on, else undefined (one variable read: what every hot path checks). */
export function activeTracing(): ActiveTracing | undefined {
  return active;
}

/**
 * Turns tracing on: loads `@opentelemetry/api` and takes a tracer from `opts.tracerProvider` (else the global one).
 * Resolves false, leaving tracing off, when the api is not installed. Calling it again replaces the tracer.
 */
export async function enableTracing(opts: TracingOptions = {}): Promise<boolean> {
  let api: typeof OtelApi;
  try {
    api = await import('@opentelemetry/api');
  } catch {
    return false;
  }
  const provider = opts.tracerProvider ?? api.trace.getTracerProvider();
  active = { api, tracer: provider.getTracer(TRACER_NAME) };
  return true;
}

/**
 * What a manager does when it starts: turns tracing on with `tracerProvider` when one is given, else when an SDK
 * registered a global provider; otherwise loads nothing and leaves tracing as it is.
 */
export async function enableTracingIfConfigured(tracerProvider: OtelApi.TracerProvider | undefined): Promise<void> {
  if (tracerProvider !== undefined) await enableTracing({ tracerProvider });
  else if (!active && globalTracerProviderRegistered()) await enableTracing();
}

/** Turns tracing off: later reconciles, requests and webhook calls open no span. */
export function disableTracing(): void {
  active = undefined;
}

/**
 * True when an OpenTelemetry api registered a global tracer provider in this process (what `NodeSDK.start()` or
 * `provider.register()` do), read from the api's global slot without loading anything.
 */
export function globalTracerProviderRegistered(): boolean {
  const slot = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[Symbol.for('opentelemetry.js.api.1')];
  return slot?.trace !== undefined;
}

/** `{ trace_id, span_id }` of the span current in this async context, or undefined (tracing off, or none current). */
export function traceLogFields(): { trace_id: string; span_id: string } | undefined {
  const t = active;
  if (!t) return undefined;
  const span = t.api.trace.getSpan(t.api.context.active());
  if (!span) return undefined;
  const sc = span.spanContext();
  if (!t.api.isSpanContextValid(sc)) return undefined;
  return { trace_id: sc.traceId, span_id: sc.spanId };
}
