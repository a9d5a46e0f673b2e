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
import { recordSpanError } from './span-error.js';

/** What a request path names: `/api/v1/namespaces/ns/pods/name/status`, `/apis/g/v/foos`. */
export interface RequestTarget {
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** `segment` decoded when it holds an escape (most do not: no call). */
const decode = (segment: string): string => (segment.includes('%') ? decodeURIComponent(segment) : segment);

/** The Kubernetes verb of a request: the method, and for a GET whether it watches and whether it names an object. */
function verbOf(method: string, named: boolean, watching: () => boolean): string {
  switch (method.toUpperCase()) {
    case 'GET':
      return watching() ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/**
 * The Kubernetes verb, group, resource, subresource, namespace and name of a request path (query included). Walks
 * the path once (no split, no copies): it runs for every request while tracing is on.
 */
export function parseRequestTarget(method: string, path: string, watch: boolean): RequestTarget {
  const q = path.indexOf('?');
  const end = q < 0 ? path.length : q;
  const parts: string[] = [];
  for (let i = 0; i < end; ) {
    if (path.charCodeAt(i) === 47 /* / */) {
      i++;
      continue;
    }
    let j = path.indexOf('/', i);
    if (j < 0 || j > end) j = end;
    parts.push(path.slice(i, j));
    i = j;
  }
  let at: number;
  let group: string;
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    at = 2;
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1]!;
    at = 3;
  } else {
    return { verb: method.toLowerCase() };
  }
  const out: RequestTarget = { verb: '', group };
  if (parts[at] === 'namespaces' && parts.length - at >= 3) {
    out.namespace = decode(parts[at + 1]!);
    at += 2;
  }
  if (at < parts.length) {
    out.resource = parts[at]!;
    if (at + 1 < parts.length) out.name = decode(parts[at + 1]!);
    if (at + 2 < parts.length) out.subresource = parts[at + 2]!;
  }
  const watching = (): boolean => watch || (q >= 0 && /(^|&)watch=(true|1)(&|$)/.test(path.slice(q + 1)));
  out.verb = out.resource === undefined ? method.toLowerCase() : verbOf(method, out.name !== undefined, watching);
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

/** The open span of one request: a class, not closures, as one is made per request. */
class OpenClientSpan implements ClientSpan {
  private ended = false;

  constructor(
    private readonly api: typeof OtelApi,
    private readonly span: OtelApi.Span,
    private readonly ctx: OtelApi.Context,
  ) {}

  throttled(waitMs: number): void {
    this.span.setAttribute('kubegen.throttle_wait_ms', waitMs);
  }

  inject(headers: Record<string, string | string[] | number>): void {
    this.api.propagation.inject(this.ctx, headers);
  }

  end(statusCode: number | undefined, error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const { span, api } = this;
    if (statusCode !== undefined) span.setAttribute('http.response.status_code', statusCode);
    if (error !== undefined) {
      recordSpanError(api, span, error);
    } else if (statusCode !== undefined && statusCode >= 400) {
      span.setAttribute('error.type', String(statusCode));
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/** Opens the client span of a request, or returns undefined when tracing is off. */
export function startClientSpan(method: string, path: string, host: string, watch: boolean): ClientSpan | undefined {
  const t = activeTracing();
  if (!t) return undefined;
  const { api } = t;
  const target = parseRequestTarget(method, path, watch);
  const q = path.indexOf('?');
  const urlPath = q < 0 ? path : path.slice(0, q);
  const attributes: OtelApi.Attributes = { 'http.request.method': method, 'server.address': host, 'url.path': urlPath, 'k8s.verb': target.verb };
  if (target.group !== undefined) attributes['k8s.resource.group'] = target.group;
  if (target.resource !== undefined) attributes['k8s.resource'] = target.resource;
  if (target.subresource !== undefined) attributes['k8s.subresource'] = target.subresource;
  if (target.namespace !== undefined) attributes['k8s.namespace.name'] = target.namespace;
  if (target.name !== undefined) attributes['k8s.object.name'] = target.name;
  const what = target.resource === undefined ? urlPath : target.subresource ? `${target.resource}/${target.subresource}` : target.resource;
  const span = t.tracer.startSpan(`${target.verb} ${what}`, { kind: api.SpanKind.CLIENT, attributes });
  return new OpenClientSpan(api, span, api.trace.setSpan(api.context.active(), span));
}
