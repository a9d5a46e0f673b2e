/**
 * `@kubegen/runtime/tracing`: OpenTelemetry traces of a controller (docs/tracing.md) — a span per reconcile linked to
 * the watch events that caused it, a client span per API request with `traceparent`, a server span per webhook
 * call, and `trace_id` / `span_id` on log lines.
 *
 * The runtime needs only `@opentelemetry/api` (an optional peer dependency, loaded when tracing is turned on). A
 * manager turns tracing on when it starts if it was given a `tracerProvider` or an OpenTelemetry SDK registered a
 * global provider before (`NodeSDK.start()`); {@link enableTracing} does it by hand (e.g. for a controller run
 * without a manager).
 */
export { enableTracing, disableTracing, globalTracerProviderRegistered, TRACER_NAME, type TracingOptions } from './otel.js';
export { MAX_EVENT_LINKS, type ReconcileSpanResult } from './reconcile-span.js';
export { parseRequestTarget, type RequestTarget } from './client-span.js';

import { activeTracing } from './otel.js';

/** True while tracing is on (after {@link enableTracing}, before {@link disableTracing}). */
export function isTracingEnabled(): boolean {
  return activeTracing() !== undefined;
}
