/**
 * One HTTP/2 connection to the apiserver (directly, or inside a proxy's tunnel), shared by every request and watch of
 * a transport, with a health check as client-go's (`ReadIdleTimeout` 30 s, `PingTimeout` 15 s): while the session is
 * open, a PING goes out every `pingIntervalMs`; when its answer does not arrive within `pingTimeoutMs` the connection
 * is dead (a frozen proxy, a vanished peer, a half-open socket) and is destroyed, which fails every stream on it at
 * once — workers' requests and watches alike — so that their callers retry on a fresh connection. `suspect()` checks at once (a caller saw a
 * request stall).
 *
 * Contract: `session()` returns the open session or connects a new one; a session that closes, errors, receives
 * GOAWAY or fails its health check is never handed out again. Timers are unref'd: an idle transport does not keep
 * the process alive. `close()` destroys the session; later calls to `session()` throw.
 */
import http2 from 'node:http2';
import tls from 'node:tls';
import type { Logger } from '../log.js';
import { ConnectionStalledError } from './errors.js';
import type { DeferredSocket, ProxyDialer } from './proxy-url.js';

export interface Http2ConnectionOptions {
  /** Interval between PINGs on an open session. Default 30 000 ms. */
  pingIntervalMs?: number;
  /** A PING not answered within this kills the session. Default 15 000 ms. */
  pingTimeoutMs?: number;
  /** Reach the server through this proxy's tunnel (TLS and HTTP/2 run inside it). */
  proxy?: ProxyDialer;
}

export const DEFAULT_PING_INTERVAL_MS = 30_000;
export const DEFAULT_PING_TIMEOUT_MS = 15_000;
/** Flow-control windows large enough that a big LIST is not throttled by WINDOW_UPDATE round trips. */
const STREAM_WINDOW = 4 << 20;
/** A TCP + TLS connect that takes longer fails (Go's dialer timeout). */
const CONNECT_TIMEOUT_MS = 30_000;
const SESSION_WINDOW = 32 << 20;

export class Http2Connection {
  private current: http2.ClientHttp2Session | undefined;
  private closed = false;
  private readonly pingIntervalMs: number;
  private readonly pingTimeoutMs: number;
  private readonly proxy: ProxyDialer | undefined;

  /** Set when the server answered ALPN without `h2`: the caller must use HTTP/1.1 for this server. */
  notSupported = false;

  constructor(
    private readonly server: URL,
    private readonly tlsOptions: tls.ConnectionOptions,
    private readonly log: Logger,
    opts: Http2ConnectionOptions = {},
  ) {
    this.pingIntervalMs = opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.pingTimeoutMs = opts.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
    this.proxy = opts.proxy;
  }

  /** Open streams per session: a session is ref'd (keeps the process alive) only while it has some. */
  private readonly streams = new WeakMap<http2.ClientHttp2Session, number>();
  /** The proxy tunnel under a session (its socket is not the TLS socket's: it is ref'd and unref'd with the session). */
  private readonly tunnels = new WeakMap<http2.ClientHttp2Session, DeferredSocket>();

  /**
   * Opens a stream on the live session (connecting one when there is none). The session keeps the process alive
   * only while it has streams open, like an HTTP/1.1 keep-alive socket.
   */
  request(headers: http2.OutgoingHttpHeaders, options: http2.ClientSessionRequestOptions): http2.ClientHttp2Stream {
    const session = this.session();
    const stream = session.request(headers, options);
    const open = (this.streams.get(session) ?? 0) + 1;
    this.streams.set(session, open);
    if (open === 1) this.hold(session, true);
    stream.once('close', () => {
      const left = (this.streams.get(session) ?? 1) - 1;
      this.streams.set(session, left);
      if (left === 0 && !session.destroyed) this.hold(session, false);
    });
    return stream;
  }

  /** The live session, connecting a new one when there is none. */
  private session(): http2.ClientHttp2Session {
    if (this.closed) throw new Error('HttpTransport is closed');
    const s = this.current;
    if (s && !s.closed && !s.destroyed) return s;
    return this.connect();
  }

  /**
   * A request or watch on the current session stalled: new requests go to a fresh session at once, and the old one
   * is pinged — closed gracefully (its other streams finish) when it answers, destroyed when it does not.
   */
  suspect(request?: string): void {
    const s = this.current;
    if (!s || s.closed || s.destroyed) return;
    this.current = undefined;
    this.log.info('a request to the apiserver stalled; new requests use a new connection while the old one is checked', request ? { request } : {});
    this.ping(s, 'a request stalled', () => s.close());
  }

  close(): void {
    this.closed = true;
    this.current?.destroy();
    this.current = undefined;
  }

  private connect(): http2.ClientHttp2Session {
    const host = this.server.hostname.replace(/^\[|\]$/g, '');
    const port = Number(this.server.port || 443);
    // ALPN offers both protocols, so a server without HTTP/2 answers (and is then used over HTTP/1.1).
    const options: tls.ConnectionOptions = { ...this.tlsOptions, servername: this.tlsOptions.servername ?? (isIp(host) ? '' : host), ALPNProtocols: ['h2', 'http/1.1'] };
    // Through a proxy the session needs its socket now, the tunnel comes later: TLS starts on a stand-in for it.
    const tunnel = this.proxy ? this.proxy.tunnel(host, port) : undefined;
    const socket = tunnel ? tls.connect({ ...options, socket: tunnel }) : tls.connect({ ...options, host, port });
    if (!tunnel) socket.setNoDelay(true);
    const session = http2.connect(this.server.origin, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
    });
    socket.once('secureConnect', () => {
      if (socket.alpnProtocol !== 'h2') {
        this.notSupported = true;
        session.destroy(new Error(`the apiserver does not speak HTTP/2 (ALPN: ${socket.alpnProtocol || 'none'})`));
      }
    });
    this.current = session;
    const forget = (): void => {
      clearInterval(timer);
      if (this.current === session) this.current = undefined;
    };
    // Errors reach the streams (their callers see them); the session only has to be dropped.
    session.on('error', (err: Error) => {
      this.log.debug('apiserver connection failed', { error: err.message });
      forget();
    });
    session.on('goaway', () => forget());
    session.on('close', forget);
    session.once('connect', () => {
      try {
        session.setLocalWindowSize(SESSION_WINDOW);
      } catch {
        // already closing
      }
    });
    const timer = setInterval(() => this.ping(session, 'periodic'), this.pingIntervalMs);
    timer.unref();
    const connectTimer = setTimeout(() => {
      if (session.connecting) session.destroy(new ConnectionStalledError(`connecting to the apiserver timed out after ${CONNECT_TIMEOUT_MS} ms`));
    }, CONNECT_TIMEOUT_MS);
    connectTimer.unref();
    session.once('connect', () => clearTimeout(connectTimer));
    session.once('close', () => clearTimeout(connectTimer));
    if (tunnel) this.tunnels.set(session, tunnel);
    this.hold(session, false);
    return session;
  }

  /** Lets `session` (and its proxy tunnel) keep the process alive, or not. */
  private hold(session: http2.ClientHttp2Session, yes: boolean): void {
    if (yes) session.ref();
    else session.unref();
    const tunnel = this.tunnels.get(session);
    if (yes) tunnel?.ref();
    else tunnel?.unref();
  }

  private ping(session: http2.ClientHttp2Session, why: string, onAnswer?: () => void): void {
    if (session.closed || session.destroyed) return;
    let answered = false;
    const deadline = setTimeout(() => {
      if (answered || session.destroyed) return;
      this.log.info('apiserver connection did not answer a ping; closing it (its requests and watches are retried on a new one)', {
        timeoutMs: this.pingTimeoutMs,
        check: why,
      });
      if (this.current === session) this.current = undefined;
      session.destroy(new ConnectionStalledError(`the HTTP/2 connection to the apiserver did not answer a ping within ${this.pingTimeoutMs} ms`));
    }, this.pingTimeoutMs);
    deadline.unref();
    const send = (): void => {
      try {
        session.ping((err) => {
          answered = true;
          clearTimeout(deadline);
          if (err && !session.destroyed) this.log.debug('ping failed', { error: err.message });
          else if (!err) onAnswer?.();
        });
      } catch {
        clearTimeout(deadline); // too many outstanding pings or the session is closing: the next check decides
      }
    };
    // Not connected yet: the ping goes out once it is, and a connect that hangs fails the same deadline.
    if (session.connecting) session.once('connect', send);
    else send();
  }
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
