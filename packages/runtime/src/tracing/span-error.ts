/**
 * How the runtime's spans record the error that ended what they measure (a request, a reconcile, a list or watch).
 *
 * Contract of {@link recordSpanError}: `error` (a non-Error is wrapped in one, its message the value as a string)
 * becomes the span's `error.type` attribute (the error's name, `Error` when it has none), an `exception` event and
 * status ERROR with the error's message. The span is not ended.
 */
import type * as OtelApi from '@opentelemetry/api';

/** Records `error` on `span` (see the module comment). */
export function recordSpanError(api: typeof OtelApi, span: OtelApi.Span, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  span.setAttribute('error.type', err.name || 'Error');
  span.recordException(err);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: err.message });
}
