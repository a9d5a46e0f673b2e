/**
 * `HttpTransport`: the real `Transport`, talking to a kube-apiserver with credentials from a `RestConfig` (see
 * `rest-config.ts`) or a `KubeConfig`'s current context (resolved once, see `http-connection.ts`), through the
 * cluster's `proxy-url` when it has one (`proxy-tunnel.ts`: every engine tunnels), with an exec plugin's credentials
 * when its user has one (`exec-authenticator.ts`: after a 401 the plugin runs again, as in client-go; the request is
 * not retried).
 *
 * Engine (`engine`, else `KUBEGEN_HTTP_ENGINE`, else `node-http2`): which implementation carries the requests.
 * - `node-http2` (the default), as client-go: HTTPS servers (directly or through a proxy's tunnel) get one multiplexed HTTP/2 connection
 *   with a PING health check (`http2-session.ts`: 30 s interval, 15 s timeout), so a connection that goes silent is
 *   found and closed within about 45 s and everything on it — watches included — is retried on a new one. `http://`
 *   servers, servers without HTTP/2 (ALPN), `http2: false` and the `DISABLE_HTTP2` environment variable use
 *   HTTP/1.1 as `node-http1` does.
 * - `node-http1`: HTTP/1.1 keep-alive sockets of `node:https`, one per request in flight and one per open watch. A
 *   non-watch request whose socket receives nothing for `readIdleTimeoutMs` (45 s) is abandoned and its socket
 *   destroyed, never reused. A watch on a frozen socket is found only by the reflector's idle deadline (the watch's
 *   timeoutSeconds + 30 s: minutes). Costs the least CPU per request (docs/loadtest.md has the figures).
 * - `undici`: HTTP/1.1 keep-alive connections of the optional `undici` package (`undici-exchange.ts`), with the same
 *   read-idle timeout and the same watch liveness.
 *
 * Contract:
 * - `request()` sends one request and resolves with the decoded JSON body (`undefined` for an empty body), or
 *   rejects with an `ApiError` for a non-2xx answer, or with the network/abort error. Nothing is retried here:
 *   retrying is the caller's business (informers, controllers).
 * - `watch()` resolves once the apiserver accepted the watch; the returned `Watch` yields events as lines arrive,
 *   ends when the server closes the stream or on `stop()`/abort of `req.signal`, and throws a network error that
 *   happens mid-stream.
 * - Client-side throttling is off unless `qps` is given (then a token bucket of `burst` covers requests and watch
 *   opens, as client-go's rate limiter). `timeoutMs` bounds a whole request including its body, never a watch
 *   (default none, as client-go's `rest.Config.Timeout`: liveness comes from the checks above).
 * - No request waits forever on a dead connection: the HTTP/2 health check or the HTTP/1.1 read-idle timeout fails
 *   it; watches also have the reflector's open and idle deadlines.
 * - Request bodies are never mutated; response objects are freshly parsed and owned by the caller.
 */
import type http from 'node:http';
import { getLogger, type Logger } from '../log.js';
import { openConnection, type Connection, type ConnectionOptions } from './http-connection.js';
import { HttpWatch, openHttp1, openHttp2, readBody, readStream, type OpenResponse } from './http-exchange.js';
import { Http2Connection } from './http2-session.js';
import { JsonListDecoder } from './json-list.js';
import { UndiciPool } from './undici-exchange.js';
import { buildRequestUrl, VERB_METHODS } from './request-url.js';
import { requestError } from './response-status.js';
import { recordRestRequest } from './metrics.js';
import { isStall } from './errors.js';
import { TokenBucket } from './throttle.js';
import { startClientSpan, type ClientSpan } from '../tracing/client-span.js';
import type { Clock } from '../clock.js';
import { isRestConfig } from './kubeconfig-model.js';
import type { RestConfig } from './rest-config.js';
import type { KubeConfig } from './kubeconfig-model.js';
import { metadataAccept, PATCH_CONTENT_TYPES, type ResourceRequest, type Transport, type Watch } from './types.js';

/** Settings of an `HttpTransport` (client-go's `rest.Config` QPS, Burst, UserAgent, Timeout); all optional. */
export interface TransportOptions {
  /** Client-side rate limit in requests per second. Unset or <= 0: no client-side throttling (the default). */
  qps?: number;
  /** Token bucket size when `qps` is set (default: `ceil(qps)`). */
  burst?: number;
  /** `User-Agent` header; default `kubegen (<platform>/<arch>) node/<version>`. */
  userAgent?: string;
  /**
   * The field manager of server-side applies that name none (default: `defaultFieldManager()`, the program's
   * name). Other writes leave `fieldManager` to the caller, and the apiserver derives one from the `User-Agent`.
   */
  fieldManager?: string;
  /** Per-request timeout in milliseconds for non-watch requests (default: none; see the module comment). */
  timeoutMs?: number;
  /**
   * Which HTTP implementation carries the requests (see the module comment). Default: `KUBEGEN_HTTP_ENGINE` from
   * the environment, else `node-http2`.
   */
  engine?: HttpEngine;
  /** With the `node-http2` engine: HTTP/2 for direct HTTPS servers that offer it (default true; `DISABLE_HTTP2` turns it off). */
  http2?: boolean;
  /** HTTP/2 health check: PING interval and timeout (default 30 000 / 15 000 ms, client-go's). */
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  /** HTTP/1.1: a non-watch request whose socket receives nothing for this long fails (default 45 000 ms). */
  readIdleTimeoutMs?: number;
  /** Largest number of concurrent sockets to the server (default: unlimited). */
  maxSockets?: number;
  /** Least time between checks of a `RestConfig.tokenFile` for a rotated token (default 10 000 ms). */
  tokenFileCheckIntervalMs?: number;
  /** Time source for the throttle (tests). */
  throttleClock?: Clock;
  /** Where the transport's own lines go (connection health, stalls). Default: the runtime's logger. */
  logger?: Logger;
}

export type { RawRequestInit, RawResponse } from './types.js';
import type { RawRequestInit, RawResponse } from './types.js';

/**
 * The HTTP implementations an `HttpTransport` can use: `node-http2` (`node:http2`, HTTP/1.1 where the server has no
 * HTTP/2), `node-http1` (`node:https` keep-alive sockets) or `undici` (the `undici` package, HTTP/1.1 keep-alive).
 */
export type HttpEngine = 'node-http2' | 'node-http1' | 'undici';
/** Every `HttpEngine`, the default first. */
export const HTTP_ENGINES: readonly HttpEngine[] = ['node-http2', 'node-http1', 'undici'];
/**
 * The engine when neither `TransportOptions.engine` nor `KUBEGEN_HTTP_ENGINE` names one: `node-http2`. `node-http1`
 * costs less CPU per request, but only HTTP/2's PING finds a frozen watch connection within a minute
 * (docs/loadtest.md, "HTTP engines").
 */
export const DEFAULT_HTTP_ENGINE: HttpEngine = 'node-http2';

/** `opts.engine`, else `KUBEGEN_HTTP_ENGINE`, else the default; throws naming the variable when it is not an engine. */
export function resolveHttpEngine(engine: HttpEngine | undefined, env: NodeJS.ProcessEnv = process.env): HttpEngine {
  if (engine !== undefined) {
    if (!HTTP_ENGINES.includes(engine)) throw new TypeError(`TransportOptions.engine: unknown HTTP engine ${JSON.stringify(engine)} (one of ${HTTP_ENGINES.join(', ')})`);
    return engine;
  }
  const fromEnv = env['KUBEGEN_HTTP_ENGINE'];
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_HTTP_ENGINE;
  if (!HTTP_ENGINES.includes(fromEnv as HttpEngine)) throw new TypeError(`KUBEGEN_HTTP_ENGINE: unknown HTTP engine ${JSON.stringify(fromEnv)} (one of ${HTTP_ENGINES.join(', ')})`);
  return fromEnv as HttpEngine;
}

const DEFAULT_USER_AGENT = `kubegen (${process.platform}/${process.arch}) node/${process.versions.node}`;
export const DEFAULT_READ_IDLE_TIMEOUT_MS = 45_000;

/**
 * The real `Transport` (client-go's `rest.RESTClient` with its HTTP transport): see the module comment for
 * protocols, health checks, throttling and timeouts. Nothing is retried; `close()` destroys its sockets.
 */
export class HttpTransport implements Transport {
  /** What this transport was built from; read when the first request is sent, never mutated. */
  readonly config: RestConfig | KubeConfig;
  private readonly opts: TransportOptions;
  private readonly throttle: TokenBucket | undefined;
  private connection: Promise<Connection> | undefined;
  /** `connection` once it resolved: requests take it without waiting for a promise. */
  private ready: Connection | undefined;
  private h2: Http2Connection | undefined;
  private undici: Promise<UndiciPool> | undefined;
  private closed = false;
  /** The HTTP implementation this transport uses ({@link TransportOptions.engine}). */
  readonly engine: HttpEngine;

  constructor(config: RestConfig | KubeConfig, opts: TransportOptions = {}) {
    this.config = config;
    this.opts = opts;
    this.engine = resolveHttpEngine(opts.engine);
    this.throttle =
      opts.qps !== undefined && opts.qps > 0
        ? new TokenBucket({ qps: opts.qps, ...(opts.burst !== undefined ? { burst: opts.burst } : {}), ...(opts.throttleClock ? { clock: opts.throttleClock } : {}) })
        : undefined;
  }

  /** The field manager of applies that name none ({@link TransportOptions.fieldManager}). */
  get fieldManager(): string | undefined {
    return this.opts.fieldManager;
  }

  /** The `KubeConfig` this transport was built from, if it was built from one. */
  get kubeConfig(): KubeConfig | undefined {
    return isRestConfig(this.config) ? undefined : this.config;
  }

  /** The server URL (of the kubeconfig's current cluster). */
  get server(): string {
    return isRestConfig(this.config) ? this.config.server : (this.config.getCurrentCluster()?.server?.replace(/\/+$/, '') ?? '');
  }

  async request<T = unknown>(req: ResourceRequest): Promise<T> {
    if (req.verb === 'watch') throw new TypeError('use watch() for watch requests');
    const method = VERB_METHODS[req.verb];
    const hasBody = req.body !== undefined && method !== 'GET';
    const body = hasBody ? Buffer.from(JSON.stringify(req.body), 'utf8') : undefined;
    const contentType = req.verb === 'patch' ? PATCH_CONTENT_TYPES[req.patchType ?? 'merge'] : 'application/json';
    const accept = req.as === 'metadata' ? metadataAccept(req.verb) : undefined;
    const init: RawRequestInit = { body, contentType, accept, signal: req.signal, timeoutMs: this.opts.timeoutMs };
    if (req.verb === 'list') {
      // A list is decoded while it arrives, item by item (json-list.ts): a big one is never held whole.
      const listed = await this.exchange<{ failed: number; body: Buffer } | { list: T }>(method, buildRequestUrl(req), init, async (res) => {
        if (res.statusCode < 200 || res.statusCode > 299) return { failed: res.statusCode, body: await readBody(res.body) };
        const decoder = new JsonListDecoder();
        await readStream(res.body, (chunk) => decoder.push(chunk));
        return { list: decoder.end() as T };
      });
      // Outside the exchange: a resource that is not served is explained by asking discovery.
      if ('failed' in listed) throw await requestError(this, listed.failed, listed.body, undefined, req);
      return listed.list;
    }
    const res = await this.raw(method, buildRequestUrl(req), init);
    if (res.statusCode < 200 || res.statusCode > 299) throw await requestError(this, res.statusCode, res.body, undefined, req);
    if (res.body.length === 0) return undefined as T;
    return JSON.parse(res.body.toString('utf8')) as T;
  }

  async watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>> {
    const controller = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal;
    const res = await this.open('GET', buildRequestUrl(req), { signal, accept: req.as === 'metadata' ? metadataAccept('watch') : undefined }, true);
    const code = res.statusCode;
    if (code < 200 || code > 299) {
      const body = await readBody(res.body);
      throw await requestError(this, code, body, res.statusMessage, req);
    }
    return new HttpWatch<T>(res, controller, signal);
  }

  /**
   * Sends a request to any path on the server (relative to the server URL, query included) with the same auth,
   * throttle and timeout as `request()`; resolves with the status, headers and body whatever the status is.
   */
  async raw(method: string, path: string, init: RawRequestInit = {}): Promise<RawResponse> {
    return this.exchange(method, path, init, async (res) => ({ statusCode: res.statusCode, headers: res.headers, body: await readBody(res.body) }));
  }

  /**
   * Sends a request (with `raw()`'s timeout and signal) and hands the response to `consume`, which reads its body.
   * When that fails, a response not read to its end is destroyed, and a stall marks the connection suspect.
   */
  private async exchange<R>(method: string, path: string, init: RawRequestInit, consume: (res: OpenResponse) => Promise<R>): Promise<R> {
    const timeoutMs = init.timeoutMs ?? this.opts.timeoutMs;
    const signals: AbortSignal[] = [];
    if (init.signal) signals.push(init.signal);
    if (timeoutMs !== undefined && timeoutMs > 0) signals.push(AbortSignal.timeout(timeoutMs));
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const res = await this.open(method, path, { body: init.body, contentType: init.contentType, accept: init.accept, signal }, false);
    try {
      return await consume(res);
    } catch (err) {
      if (signal?.aborted && isStall(signal.reason)) res.stalled();
      if (!res.complete()) res.destroy();
      throw err;
    }
  }

  /** Destroys this transport's sockets. Later requests fail. */
  close(): void {
    this.closed = true;
    this.h2?.close();
    void this.undici?.then(
      (p) => p.close(),
      () => undefined,
    );
    void this.connection?.then(
      (c) => c.close(),
      () => undefined,
    );
  }

  private connect(): Promise<Connection> {
    if (!this.connection) {
      const connOpts: ConnectionOptions = {};
      if (this.opts.maxSockets !== undefined) connOpts.maxSockets = this.opts.maxSockets;
      if (this.opts.tokenFileCheckIntervalMs !== undefined) connOpts.tokenFileCheckIntervalMs = this.opts.tokenFileCheckIntervalMs;
      const config = this.config;
      const pending = (async () => openConnection(isRestConfig(config) ? config : config.restConfig(), connOpts))();
      // A failed setup (e.g. an exec plugin error) is retried on the next request.
      pending.then(
        (c) => {
          if (this.connection === pending) this.ready = c;
        },
        () => {
          if (this.connection === pending) this.connection = undefined;
        },
      );
      this.connection = pending;
    }
    return this.connection;
  }

  /**
   * Drops `old` (its HTTP/1.1 sockets, HTTP/2 session and undici pool) and opens a new connection; callers that
   * find `old` outdated after another one already did get the new connection.
   */
  private reconnect(old: Connection): Promise<Connection> {
    if (this.ready === old) {
      this.ready = undefined;
      this.connection = undefined;
      old.close();
      this.h2?.close();
      this.h2 = undefined;
      void this.undici?.then(
        (p) => p.close(),
        () => undefined,
      );
      this.undici = undefined;
    }
    return this.connect();
  }

  private async open(
    method: string,
    path: string,
    init: { body?: string | Buffer | undefined; contentType?: string | undefined; accept?: string | undefined; signal?: AbortSignal | undefined },
    watch: boolean,
  ): Promise<OpenResponse> {
    if (this.closed) throw new Error('HttpTransport is closed');
    init.signal?.throwIfAborted();
    const conn = this.ready ?? (await this.connect());
    // Traced (tracing/client-span.ts): one client span per request, whatever the engine; undefined while off.
    const span = startClientSpan(method, path, conn.server.host, watch);
    if (!span) {
      if (this.throttle) await this.throttle.acquire(init.signal);
      return this.send1(conn, method, path, init, watch, undefined);
    }
    try {
      if (this.throttle) {
        const waitFrom = performance.now();
        await this.throttle.acquire(init.signal);
        span.throttled(performance.now() - waitFrom);
      }
      return await this.send1(conn, method, path, init, watch, span);
    } catch (err) {
      span.end(undefined, err);
      throw err;
    }
  }

  /** Sends one request (after the throttle) with auth and the trace's headers; ends `span` with its status. */
  private async send1(
    conn: Connection,
    method: string,
    path: string,
    init: { body?: string | Buffer | undefined; contentType?: string | undefined; accept?: string | undefined; signal?: AbortSignal | undefined },
    watch: boolean,
    span: ClientSpan | undefined,
  ): Promise<OpenResponse> {
    let pending = conn.headers();
    let auth = pending instanceof Promise ? await pending : pending;
    if (conn.outdated()) {
      // An exec plugin returned another client certificate: connections made with the old one go.
      conn = await this.reconnect(conn);
      pending = conn.headers();
      auth = pending instanceof Promise ? await pending : pending;
    }
    // Names in lower case, as HTTP/2 sends them and the connection's are: the HTTP/2 engine copies them as they are.
    const headers: Record<string, string | string[] | number> = Object.assign({}, auth);
    headers['accept'] = init.accept ?? 'application/json';
    headers['user-agent'] = this.opts.userAgent ?? DEFAULT_USER_AGENT;
    const body = typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : init.body;
    if (body !== undefined) {
      headers['content-type'] = init.contentType ?? 'application/json';
      headers['content-length'] = body.length;
    }
    span?.inject(headers);
    const full = conn.server.pathname === '/' ? path : conn.server.pathname + path;
    const started = performance.now();
    const record = (code: number | undefined): void => recordRestRequest(method, conn.server.host, code, (performance.now() - started) / 1000);
    try {
      const res = await this.send(conn, method, full, headers, body, init.signal, watch);
      record(res.statusCode);
      span?.end(res.statusCode);
      // client-go's exec round tripper: a 401 makes the plugin run again (once), before the caller sees the answer.
      if (res.statusCode === 401) await conn.unauthorized(auth);
      return res;
    } catch (err) {
      record(undefined);
      span?.end(undefined, err);
      throw err;
    }
  }

  private async send(
    conn: Connection,
    method: string,
    full: string,
    headers: Record<string, string | string[] | number>,
    body: Buffer | undefined,
    signal: AbortSignal | undefined,
    watch: boolean,
  ): Promise<OpenResponse> {
    const readIdle = watch ? undefined : (this.opts.readIdleTimeoutMs ?? DEFAULT_READ_IDLE_TIMEOUT_MS);
    if (this.engine === 'undici') return (await this.undiciFor(conn)).open(method, full, headers, body, signal, readIdle);
    const h2 = this.engine === 'node-http2' ? this.http2For(conn) : undefined;
    if (h2) {
      try {
        return await openHttp2(h2, method, full, headers, body, signal, conn.basicAuth);
      } catch (err) {
        // ALPN said HTTP/1.1: nothing was sent; use HTTP/1.1 for this server from now on.
        if (!h2.notSupported) throw err;
        (this.opts.logger ?? getLogger()).debug('apiserver does not offer HTTP/2; using HTTP/1.1');
      }
    }
    return openHttp1(conn, method, full, headers, body, signal, readIdle, watch);
  }

  /** The undici pool for `conn`, loading undici the first time. A failed load is retried on the next request. */
  private undiciFor(conn: Connection): Promise<UndiciPool> {
    if (!this.undici) {
      const pending = UndiciPool.open(conn, { maxSockets: this.opts.maxSockets });
      pending.catch(() => {
        if (this.undici === pending) this.undici = undefined;
      });
      this.undici = pending;
    }
    return this.undici;
  }

  /** The HTTP/2 connection for `conn`, or undefined when HTTP/1.1 is to be used (see the module comment). */
  private http2For(conn: Connection): Http2Connection | undefined {
    if (this.h2) return this.h2.notSupported ? undefined : this.h2;
    if (!conn.secure || !conn.tls || this.opts.http2 === false || process.env['DISABLE_HTTP2']) return undefined;
    this.h2 = new Http2Connection(conn.server, conn.tls, (this.opts.logger ?? getLogger()).child({ component: 'http2' }), {
      ...(this.opts.pingIntervalMs !== undefined ? { pingIntervalMs: this.opts.pingIntervalMs } : {}),
      ...(this.opts.pingTimeoutMs !== undefined ? { pingTimeoutMs: this.opts.pingTimeoutMs } : {}),
      ...(conn.proxy ? { proxy: conn.proxy } : {}),
    });
    return this.h2;
  }
}
