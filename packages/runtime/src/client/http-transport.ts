/**
 * `HttpTransport`: the real `Transport`, talking HTTP/1.1 to a kube-apiserver with credentials from a `RestConfig`
 * (our own, see `rest-config.ts`) or a client-node `KubeConfig` (resolved once, see `http-connection.ts`) over a
 * keep-alive agent. Neither this module nor a `RestConfig` loads `@kubernetes/client-node`.
 *
 * Contract:
 * - `request()` sends one request and resolves with the decoded JSON body (`undefined` for an empty body), or
 *   rejects with an `ApiError` for a non-2xx answer, or with the network/abort error. Nothing is retried here:
 *   retrying is the caller's business (informers, controllers).
 * - `watch()` resolves once the apiserver accepted the watch; the returned `Watch` yields events as lines arrive,
 *   ends when the server closes the stream or on `stop()`/abort of `req.signal`, and throws a network error that
 *   happens mid-stream.
 * - Client-side throttling is off unless `qps` is given (then a token bucket of `burst` covers requests and watch
 *   opens, as client-go's rate limiter). `timeoutMs` bounds a whole request including its body, never a watch.
 * - Request bodies are never mutated; response objects are freshly parsed and owned by the caller.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { openConnection, type Connection, type ConnectionOptions } from './http-connection.js';
import { parseJsonLines } from './json-lines.js';
import { buildRequestUrl, VERB_METHODS } from './request-url.js';
import { apiErrorFromResponse } from './response-status.js';
import { TokenBucket } from './throttle.js';
import type { Clock } from '../clock.js';
import { isRestConfig, type RestConfig } from './rest-config.js';
import { PATCH_CONTENT_TYPES, type ResourceRequest, type Transport, type Watch, type WatchEvent } from './types.js';

export interface TransportOptions {
  /** Client-side rate limit in requests per second. Unset or <= 0: no client-side throttling (the default). */
  qps?: number;
  /** Token bucket size when `qps` is set (default: `ceil(qps)`). */
  burst?: number;
  /** `User-Agent` header; default `kubegen/<platform>/<arch> node/<version>`. */
  userAgent?: string;
  /** Per-request timeout in milliseconds for non-watch requests (default: none). */
  timeoutMs?: number;
  /** Largest number of concurrent sockets to the server (default: unlimited). */
  maxSockets?: number;
  /** Least time between checks of a `RestConfig.tokenFile` for a rotated token (default 10 000 ms). */
  tokenFileCheckIntervalMs?: number;
  /** Time source for the throttle (tests). */
  throttleClock?: Clock;
}

/** A raw response, for paths outside the resource API (`/readyz`, `/version`, discovery). */
export interface RawResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface RawRequestInit {
  method?: string;
  body?: string | Buffer;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

const DEFAULT_USER_AGENT = `kubegen (${process.platform}/${process.arch}) node/${process.versions.node}`;

export class HttpTransport implements Transport {
  /** What this transport was built from; read when the first request is sent, never mutated. */
  readonly config: RestConfig | KubeConfig;
  private readonly opts: TransportOptions;
  private readonly throttle: TokenBucket | undefined;
  private connection: Promise<Connection> | undefined;
  private closed = false;

  constructor(config: RestConfig | KubeConfig, opts: TransportOptions = {}) {
    this.config = config;
    this.opts = opts;
    this.throttle =
      opts.qps !== undefined && opts.qps > 0
        ? new TokenBucket({ qps: opts.qps, ...(opts.burst !== undefined ? { burst: opts.burst } : {}), ...(opts.throttleClock ? { clock: opts.throttleClock } : {}) })
        : undefined;
  }

  /** The client-node `KubeConfig` this transport was built from, if it was built from one. */
  get kubeConfig(): KubeConfig | undefined {
    return isRestConfig(this.config) ? undefined : this.config;
  }

  /** The server URL (of the kubeconfig's current cluster). */
  get server(): string {
    return isRestConfig(this.config) ? this.config.server : (this.config.getCurrentCluster()?.server ?? '');
  }

  async request<T = unknown>(req: ResourceRequest): Promise<T> {
    if (req.verb === 'watch') throw new TypeError('use watch() for watch requests');
    const method = VERB_METHODS[req.verb];
    const hasBody = req.body !== undefined && method !== 'GET';
    const body = hasBody ? Buffer.from(JSON.stringify(req.body), 'utf8') : undefined;
    const contentType = req.verb === 'patch' ? PATCH_CONTENT_TYPES[req.patchType ?? 'merge'] : 'application/json';
    const res = await this.raw(method, buildRequestUrl(req), { body, contentType, signal: req.signal, timeoutMs: this.opts.timeoutMs });
    if (res.statusCode < 200 || res.statusCode > 299) throw apiErrorFromResponse(res.statusCode, res.body);
    if (res.body.length === 0) return undefined as T;
    return JSON.parse(res.body.toString('utf8')) as T;
  }

  async watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>> {
    const controller = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal;
    const res = await this.open('GET', buildRequestUrl(req), { signal }, true);
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      const body = await readBody(res);
      throw apiErrorFromResponse(code, body, res.statusMessage);
    }
    return new HttpWatch<T>(res, controller, signal);
  }

  /**
   * Sends a request to any path on the server (relative to the server URL, query included) with the same auth,
   * throttle and timeout as `request()`; resolves with the status, headers and body whatever the status is.
   */
  async raw(method: string, path: string, init: RawRequestInit = {}): Promise<RawResponse> {
    const timeoutMs = init.timeoutMs ?? this.opts.timeoutMs;
    const signals: AbortSignal[] = [];
    if (init.signal) signals.push(init.signal);
    if (timeoutMs !== undefined && timeoutMs > 0) signals.push(AbortSignal.timeout(timeoutMs));
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const res = await this.open(method, path, { body: init.body, contentType: init.contentType, signal }, false);
    const body = await readBody(res);
    return { statusCode: res.statusCode ?? 0, headers: res.headers, body };
  }

  /** Destroys this transport's sockets. Later requests fail. */
  close(): void {
    this.closed = true;
    void this.connection?.then(
      (c) => {
        if (c.ownsAgent) c.agent.destroy();
      },
      () => undefined,
    );
  }

  private connect(): Promise<Connection> {
    if (!this.connection) {
      const connOpts: ConnectionOptions = {};
      if (this.opts.maxSockets !== undefined) connOpts.maxSockets = this.opts.maxSockets;
      if (this.opts.tokenFileCheckIntervalMs !== undefined) connOpts.tokenFileCheckIntervalMs = this.opts.tokenFileCheckIntervalMs;
      const pending = openConnection(this.config, connOpts);
      // A failed setup (e.g. an exec plugin error) is retried on the next request.
      pending.catch(() => {
        if (this.connection === pending) this.connection = undefined;
      });
      this.connection = pending;
    }
    return this.connection;
  }

  private async open(
    method: string,
    path: string,
    init: { body?: string | Buffer | undefined; contentType?: string | undefined; signal?: AbortSignal | undefined },
    watch: boolean,
  ): Promise<http.IncomingMessage> {
    if (this.closed) throw new Error('HttpTransport is closed');
    init.signal?.throwIfAborted();
    const conn = await this.connect();
    if (this.throttle) await this.throttle.acquire(init.signal);
    const auth = await conn.headers();
    const headers: Record<string, string | string[] | number> = {
      ...auth,
      Accept: 'application/json',
      'User-Agent': this.opts.userAgent ?? DEFAULT_USER_AGENT,
    };
    const body = typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : init.body;
    if (body !== undefined) {
      headers['Content-Type'] = init.contentType ?? 'application/json';
      headers['Content-Length'] = body.length;
    }
    const options: https.RequestOptions = {
      protocol: conn.server.protocol,
      hostname: conn.server.hostname.replace(/^\[|\]$/g, ''),
      port: conn.server.port || (conn.secure ? 443 : 80),
      path: conn.server.pathname === '/' ? path : conn.server.pathname + path,
      method,
      headers,
      agent: conn.agent,
    };
    if (conn.basicAuth) options.auth = conn.basicAuth;
    if (init.signal) options.signal = init.signal;
    const send = conn.secure ? https.request : http.request;
    return new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = send(options, resolve);
      req.on('error', reject);
      if (watch) req.setNoDelay(true);
      req.end(body);
    });
  }
}

function readBody(res: http.IncomingMessage): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
    });
    res.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

/** A streaming watch over one HTTP response. Single use. */
class HttpWatch<T> implements Watch<T> {
  private stopped = false;
  private iterated = false;

  constructor(
    private readonly res: http.IncomingMessage,
    private readonly controller: AbortController,
    private readonly signal: AbortSignal,
  ) {
    // Errors surface through the iterator; without a listener an error before iteration would be uncaught.
    res.on('error', () => undefined);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.controller.abort();
    this.res.destroy();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.iterated) throw new Error('a Watch can be iterated only once');
    this.iterated = true;
    try {
      for await (const value of parseJsonLines(this.res)) {
        if (this.stopped) return;
        yield value as WatchEvent<T>;
      }
      // The stream ended: check it ended cleanly (not cut mid-response by a dropped connection).
      if (!this.res.complete && !this.stopped && !this.signal.aborted) throw new Error('watch stream closed before the response completed');
    } catch (err) {
      if (this.stopped || this.signal.aborted) return;
      throw err;
    } finally {
      if (!this.res.complete) this.res.destroy();
    }
  }
}
