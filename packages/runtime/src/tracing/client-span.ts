/**
 * The client span of one API request, opened by the transport's single request path (`HttpTransport.open`, every
 * engine), and the `traceparent` header it sends.
 *
 * Contract:
 * - {@link startClientSpan} returns undefined while tracing is off (the transport then does nothing more).
 * - The span (`<verb> <resource>[/<subresource>]`, kind CLIENT) is a child of the active context (a reconcile's span
 *   when the request is made inside one) and holds the HTTP method, the Kubernetes verb, resource, subresource,
 *   namespace and name parsed from the path, the server, the client-side throttle wait and the status code. It ends
 *   when the response's status arrives (a watch: once established), or with the error that failed the request.
 * - `inject` writes the span's context into the request headers through the api's global propagator (W3C
 *   `traceparent` with the SDK's default). The apiserver honours it only from privileged identities (docs/tracing.md).
 */
import type * as OtelApi from '@opentelemetry/api';
import { activeTracing } from './otel.js';

/** What a request path names: `/api/v1/namespaces/ns/pods/name/status`, `/apis/g/v/foos`. */
export interface RequestTarget {
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The Kubernetes verb, group, resource, subresource, namespace and name of a request path (query included). */
export function parseRequestTarget(method: string, path: string, watch: boolean): RequestTarget {
  const q = path.indexOf('?');
  const query = q < 0 ? '' : path.slice(q + 1);
  const parts = (q < 0 ? path : path.slice(0, q)).split('/').filter((p) => p !== '');
  const out: RequestTarget = { verb: method.toLowerCase() };
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    out.group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    out.group = parts[1]!;
    rest = parts.slice(3);
  } else {
    return out;
  }
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    out.namespace = decodeURIComponent(rest[1]!);
    rest = rest.slice(2);
  }
  if (rest.length === 0) return out;
  out.resource = rest[0]!;
  if (rest[1] !== undefined) out.name = decodeURIComponent(rest[1]);
  if (rest[2] !== undefined) out.subresource = rest[2];
  const watching = watch || /(^|&)watch=(true|1)(&|$)/.test(query);
  const m = method.toUpperCase();
  out.verb =
    m === 'GET'
      ? watching
        ? 'watch'
        : out.name !== undefined
          ? 'get'
          : 'list'
      : m === 'POST'
        ? 'create'
        : m === 'PUT'
          ? 'update'
          : m === 'PATCH'
            ? 'patch'
            : m === 'DELETE'
              ? out.name !== undefined
                ? 'delete'
                : 'deletecollection'
              : out.verb;
  return out;
}

/** One open client span. */
export interface ClientSpan {
  /** Records the time the request waited for the client-side throttle. */
  throttled(waitMs: number): void;
  /** Writes `traceparent` (and whatever else the propagator carries) into `headers`. */
  inject(headers: Record<string, string | string[] | number>): void;
  /** Ends the span with the response's status code, or with the error that failed the request; later calls do nothing. */
  end(statusCode: number | undefined, error?: unknown): void;
}

/** Opens the client span of a request, or returns undefined when tracing is off. */
export function startClientSpan(method: string, path: string, host: string, watch: boolean): ClientSpan | undefined {
  const t = activeTracing();
  if (!t) return undefined;
  const { api } = t;
  const target = parseRequestTarget(method, path, watch);
  const attributes: OtelApi.Attributes = {
    'http.request.method': method,
    'server.address': host,
    'url.path': path.split('?')[0]!,
    'k8s.verb': target.verb,
    ...(target.group !== undefined ? { 'k8s.resource.group': target.group } : {}),
    ...(target.resource !== undefined ? { 'k8s.resource': target.resource } : {}),
    ...(target.subresource !== undefined ? { 'k8s.subresource': target.subresource } : {}),
    ...(target.namespace !== undefined ? { 'k8s.namespace.name': target.namespace } : {}),
    ...(target.name !== undefined ? { 'k8s.object.name': target.name } : {}),
  };
  const what = target.resource === undefined ? path.split('?')[0]! : target.subresource ? `${target.resource}/${target.subresource}` : target.resource;
  const span = t.tracer.startSpan(`${target.verb} ${what}`, { kind: api.SpanKind.CLIENT, attributes });
  const ctx = api.trace.setSpan(api.context.active(), span);
  let ended = false;
  return {
    throttled: (waitMs) => span.setAttribute('kubegen.throttle_wait_ms', waitMs),
    inject: (headers) => api.propagation.inject(ctx, headers),
    end: (statusCode, error) => {
      if (ended) return;
      ended = true;
      if (statusCode !== undefined) span.setAttribute('http.response.status_code', statusCode);
      if (error !== undefined) {
        const err = error instanceof Error ? error : new Error(String(error));
        span.setAttribute('error.type', err.name || 'Error');
        span.recordException(err);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: err.message });
      } else if (statusCode !== undefined && statusCode >= 400) {
        span.setAttribute('error.type', String(statusCode));
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
