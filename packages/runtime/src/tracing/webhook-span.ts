/**
 * The server span of one webhook call: the apiserver's `traceparent` continued.
 *
 * Contract:
 * - {@link startWebhookSpan} returns undefined while tracing is off. Otherwise it extracts the caller's context from
 *   the request headers through the api's global propagator (W3C `traceparent`) and opens a SERVER span
 *   `webhook <path>` under it (a new trace when the header is absent or invalid); the handler runs in its context.
 * - Admission calls record the request's kind, operation, namespace and name, whether it was allowed, the denial's
 *   code and the patch size; conversion calls the desired API version and the object count. `end` records the HTTP
 *   status (5xx: status ERROR) and ends the span.
 */
import type http from 'node:http';
import type * as OtelApi from '@opentelemetry/api';
import { activeTracing } from './otel.js';

/** One open webhook span. */
export interface WebhookSpan {
  run<R>(fn: () => R): R;
  /** An admission review's request and answer. */
  admission(req: { kind?: { group?: string; kind?: string }; operation?: string; namespace?: string; name?: string }, res: { allowed: boolean; patch?: string; result?: { code?: number } }): void;
  /** A conversion review's request. */
  conversion(desiredAPIVersion: string, objects: number): void;
  end(statusCode: number, error?: unknown): void;
}

/** Opens the span of a webhook request under the caller's `traceparent`; undefined while tracing is off. */
export function startWebhookSpan(req: http.IncomingMessage, webhook: string): WebhookSpan | undefined {
  const t = activeTracing();
  if (!t) return undefined;
  const { api } = t;
  const parent = api.propagation.extract(api.ROOT_CONTEXT, req.headers);
  const attributes: OtelApi.Attributes = { 'http.request.method': req.method ?? '', 'url.path': webhook };
  const span = t.tracer.startSpan(`webhook ${webhook}`, { kind: api.SpanKind.SERVER, attributes }, parent);
  const ctx = api.trace.setSpan(parent, span);
  return {
    run: (fn) => api.context.with(ctx, fn),
    admission: (r, a) => {
      span.setAttributes({
        'kubegen.webhook.type': 'admission',
        ...(r.kind?.kind ? { 'k8s.resource.kind': r.kind.kind, 'k8s.resource.group': r.kind.group ?? '' } : {}),
        ...(r.operation ? { 'kubegen.admission.operation': r.operation } : {}),
        ...(r.namespace ? { 'k8s.namespace.name': r.namespace } : {}),
        ...(r.name ? { 'k8s.object.name': r.name } : {}),
        'kubegen.admission.allowed': a.allowed,
        ...(a.result?.code !== undefined && !a.allowed ? { 'kubegen.admission.code': a.result.code } : {}),
        // The patch is base64 JSON: its decoded size in bytes.
        'kubegen.admission.patch_bytes': a.patch ? Buffer.byteLength(a.patch, 'base64') : 0,
      });
    },
    conversion: (desired, objects) => span.setAttributes({ 'kubegen.webhook.type': 'conversion', 'kubegen.conversion.desired_api_version': desired, 'kubegen.conversion.objects': objects }),
    end: (statusCode, error) => {
      span.setAttribute('http.response.status_code', statusCode);
      if (error !== undefined) span.recordException(error instanceof Error ? error : new Error(String(error)));
      if (statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
    },
  };
}
