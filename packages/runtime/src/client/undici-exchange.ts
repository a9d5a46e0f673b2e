/**
 * The `undici` engine of `HttpTransport`: requests over a keep-alive pool of HTTP/1.1 connections of the `undici`
 * npm package (an optional peer dependency of the runtime, loaded with a dynamic import the first time a transport
 * uses this engine; install it with `npm install undici`). HTTP/1.1 semantics are those of the `node-http1` engine:
 * one request per connection at a time, one connection per open watch, a non-watch request whose connection receives
 * nothing for `readIdleTimeoutMs` fails (undici's headers and body timeouts) and its connection is closed.
 *
 * Contract: `open()` resolves with the response once its headers arrived (any status), or rejects with the network
 * error, the abort reason of `signal`, or a timeout. Through a proxy, each connection is a tunnel of the connection's
 * `ProxyDialer` with TLS inside it. `close()` destroys every connection.
 */
import type { Readable } from 'node:stream';
import net from 'node:net';
import tls from 'node:tls';
import type { buildConnector, Dispatcher, Pool } from 'undici';
import type { Connection } from './http-connection.js';
import type { OpenResponse } from './http-exchange.js';

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;

/** Loads the `undici` package once; throws, saying how to install it, when it is not installed. */
export function loadUndici(): Promise<Undici> {
  undici ??= import('undici').catch((err: unknown) => {
    undici = undefined;
    throw new Error(`the HTTP engine 'undici' needs the package undici: npm install undici (${err instanceof Error ? err.message : String(err)})`);
  });
  return undici;
}

/** Settings of an `UndiciPool` (see `TransportOptions`). */
export interface UndiciPoolOptions {
  /** Largest number of connections to the server (default: unlimited; every open watch holds one). */
  maxSockets?: number | undefined;
  /** Offer HTTP/2 in ALPN and use it when the server agrees (undici's own HTTP/2 client). Default false. */
  http2?: boolean;
}

/** How long an idle keep-alive connection is kept (Go's `IdleConnTimeout` is 90 s; Node's agent keeps 30 s probes). */
const KEEP_ALIVE_MS = 30_000;

/**
 * undici's headers and body timeouts, in the words of the node-http1 engine's read-idle timeout (the message of
 * undici's error is rewritten in place, its code and class stay); other errors are returned as they are.
 */
function idleError(err: unknown, timeoutMs: number): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')) {
    err.message = `no data from the apiserver for ${timeoutMs} ms; connection abandoned`;
  }
  return err;
}

/**
 * undici's connector for a server behind `conn.proxy`: a tunnel, then TLS inside it (HTTPS servers) with the
 * connection's material, called back once the handshake is done (undici's own connector does the same).
 */
function tunnelConnector(conn: Connection, http2: boolean): buildConnector.connector {
  const host = conn.server.hostname.replace(/^\[|\]$/g, '');
  const port = Number(conn.server.port || (conn.secure ? 443 : 80));
  return (_options, callback) => {
    conn.proxy!.connect(host, port).then(
      (raw) => {
        if (!conn.secure) return callback(null, raw);
        const servername = conn.tls?.servername ?? (net.isIP(host) ? undefined : host);
        const socket = tls.connect({ ...conn.tls, socket: raw, ...(servername ? { servername } : {}), ALPNProtocols: http2 ? ['h2', 'http/1.1'] : ['http/1.1'] });
        const failed = (err: Error): void => callback(err, null);
        socket.once('error', failed);
        socket.once('secureConnect', () => {
          socket.off('error', failed);
          callback(null, socket);
        });
      },
      (err: Error) => callback(err, null),
    );
  };
}

/** A keep-alive pool of connections to one apiserver over the `undici` package. */
export class UndiciPool {
  private constructor(
    private readonly pool: Pool,
    private readonly basicAuth: string | undefined,
  ) {}

  /** Loads undici and builds the pool for `conn`. */
  static async open(conn: Connection, opts: UndiciPoolOptions = {}): Promise<UndiciPool> {
    const { Pool } = await loadUndici();
    const material = conn.tls ?? {};
    let connect: Record<string, unknown> | buildConnector.connector = { noDelay: true };
    for (const key of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const) {
      if (material[key] !== undefined) connect[key] = material[key];
    }
    if (conn.proxy) connect = tunnelConnector(conn, opts.http2 === true);
    const pool = new Pool(conn.server.origin, {
      connect,
      connections: opts.maxSockets !== undefined && Number.isFinite(opts.maxSockets) ? opts.maxSockets : null,
      pipelining: 1,
      allowH2: opts.http2 === true,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
    });
    return new UndiciPool(pool, conn.basicAuth);
  }

  /**
   * Sends one request; `readIdleTimeoutMs` bounds the wait for the headers and for each chunk of the body (none for
   * a watch: it may be silent for minutes, the reflector's deadlines watch it).
   */
  async open(
    method: string,
    path: string,
    headers: Record<string, string | string[] | number>,
    body: Buffer | undefined,
    signal: AbortSignal | undefined,
    readIdleTimeoutMs: number | undefined,
  ): Promise<OpenResponse> {
    const out: Record<string, string | string[]> = {};
    for (const name in headers) {
      const v = headers[name]!;
      out[name] = typeof v === 'number' ? String(v) : v;
    }
    if (this.basicAuth && out['authorization'] === undefined) {
      out['authorization'] = `Basic ${Buffer.from(this.basicAuth).toString('base64')}`;
    }
    const timeout = readIdleTimeoutMs !== undefined && readIdleTimeoutMs > 0 ? readIdleTimeoutMs : 0;
    const options: Dispatcher.RequestOptions = { path, method: method as Dispatcher.HttpMethod, headers: out, body: body ?? null, headersTimeout: timeout, bodyTimeout: timeout };
    if (signal) options.signal = signal;
    let res: Dispatcher.ResponseData;
    try {
      res = await this.pool.request(options);
    } catch (err) {
      throw idleError(err, timeout);
    }
    const stream = res.body as unknown as Readable;
    let ended = false;
    stream.once('end', () => (ended = true));
    // Runs before the reader's listeners: a body that went silent fails with the same words as the headers' wait.
    stream.prependListener('error', (err) => idleError(err, timeout));
    return {
      statusCode: res.statusCode,
      statusMessage: undefined,
      headers: res.headers as OpenResponse['headers'],
      body: stream,
      complete: () => ended,
      destroy: () => stream.destroy(),
      // Destroying an unfinished body closes its connection: a silent one is never reused.
      stalled: () => stream.destroy(),
    };
  }

  /** Destroys every connection; requests in flight fail. */
  close(): void {
    void this.pool.destroy().catch(() => undefined);
  }
}
