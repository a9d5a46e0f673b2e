/**
 * A kubeconfig cluster's `proxy-url`: every connection to the apiserver goes through a tunnel the proxy opens.
 * `http://` and `https://` proxies are asked with HTTP `CONNECT host:port` (with `Proxy-Authorization: Basic` when
 * the URL carries a user), `socks5://` proxies with a SOCKS5 `CONNECT` (the host name is resolved by the proxy;
 * user and password as RFC 1929). TLS to the apiserver runs inside the tunnel, end to end, so the transport's
 * HTTP/2, HTTP/1.1 and undici engines all work through a proxy as they do directly. An `https://` proxy is itself
 * reached over TLS, verified against the cluster's certificate authority and skip-verify setting, as client-go
 * (Go's transport) does.
 *
 * As in client-go, a cluster's `proxy-url` is used for every request to it, whatever `HTTPS_PROXY`, `HTTP_PROXY`
 * and `NO_PROXY` say. (Without a `proxy-url`, client-go honours those variables; the runtime does not, and connects
 * directly.)
 *
 * Contract: `ProxyDialer.connect()` resolves with a socket whose next byte is the apiserver's (anything the proxy
 * sent after its answer is put back), or rejects with an error naming the proxy (without its password) and the
 * target: the proxy cannot be reached, refuses the tunnel (its status), or does not answer within 30 s.
 */
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { Duplex, PassThrough } from 'node:stream';
import type http from 'node:http';
import { HttpAgent, httpRequest } from '../node-http.js';
import { socks5Connect } from './socks5.js';
import { redact, type DeferredSocket, type ProxyDialer, type ProxyTlsOptions } from './proxy-url.js';

/** How long the proxy may take to open a tunnel (Go's dialer timeout). */
const TUNNEL_TIMEOUT_MS = 30_000;

/** A dialer for `proxy` (a URL `parseProxyUrl` accepted). */
export function proxyDialer(proxy: URL, proxyTls: ProxyTlsOptions = {}): ProxyDialer {
  const display = redact(proxy);
  const scheme = proxy.protocol.replace(/:$/, '');
  const host = proxy.hostname.replace(/^\[|\]$/g, '');
  const port = Number(proxy.port || (scheme === 'https' ? 443 : scheme === 'socks5' ? 1080 : 80));
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  const connect =
    scheme === 'socks5'
      ? (targetHost: string, targetPort: number) => socks5Connect({ host, port, user, password, timeoutMs: TUNNEL_TIMEOUT_MS }, targetHost, targetPort)
      : (targetHost: string, targetPort: number) =>
          httpConnect({ secure: scheme === 'https', host, port, tls: proxyTls, auth: user ? `${user}:${password}` : undefined }, targetHost, targetPort);
  const dialer: ProxyDialer = {
    proxy: display,
    connect: (targetHost, targetPort) =>
      connect(targetHost, targetPort).catch((err: unknown) => {
        throw new Error(`proxy ${display}: cannot open a tunnel to ${hostPort(targetHost, targetPort)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }),
    tunnel: (targetHost, targetPort) => deferredSocket(dialer.connect(targetHost, targetPort)),
  };
  return dialer;
}

function hostPort(host: string, port: number): string {
  return `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}

interface HttpProxy {
  secure: boolean;
  host: string;
  port: number;
  tls: ProxyTlsOptions;
  auth: string | undefined;
}

/** `CONNECT host:port` to an HTTP(S) proxy; resolves with the tunnelled socket. */
function httpConnect(proxy: HttpProxy, host: string, port: number): Promise<net.Socket> {
  const target = hostPort(host, port);
  const headers: Record<string, string> = { host: target };
  if (proxy.auth !== undefined) headers['proxy-authorization'] = `Basic ${Buffer.from(proxy.auth).toString('base64')}`;
  const options: https.RequestOptions = { host: proxy.host, port: proxy.port, method: 'CONNECT', path: target, headers, agent: false, timeout: TUNNEL_TIMEOUT_MS };
  if (proxy.secure) {
    if (proxy.tls.ca !== undefined) options.ca = proxy.tls.ca;
    if (proxy.tls.rejectUnauthorized !== undefined) options.rejectUnauthorized = proxy.tls.rejectUnauthorized;
    // The proxy's own name, not the Host header's (the target's), which node:https would take for SNI and the check.
    options.servername = net.isIP(proxy.host) ? '' : proxy.host;
    options.checkServerIdentity = (_name, cert) => tls.checkServerIdentity(proxy.host, cert);
  }
  return new Promise<net.Socket>((resolve, reject) => {
    const req = proxy.secure ? https.request(options) : httpRequest(options);
    req.once('connect', (res: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new Error(`the proxy answered CONNECT with ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''}`));
        return;
      }
      socket.setTimeout(0);
      socket.setNoDelay(true);
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${TUNNEL_TIMEOUT_MS} ms`)));
    req.once('error', reject);
    req.end();
  });
}

/**
 * A stream usable as a socket at once, carrying the bytes of `socket` once it resolves (what is written before is
 * held until then). For HTTP/2, whose `createConnection` must return a socket synchronously. A failed `socket`
 * destroys the stream with its error; destroying the stream destroys the socket. Like a socket it keeps the process
 * alive until `unref()`.
 */
export function deferredSocket(socket: Promise<net.Socket>): DeferredSocket {
  const outbound = new PassThrough();
  const inbound = new PassThrough();
  const duplex = Duplex.from({ readable: inbound, writable: outbound }) as DeferredSocket;
  let raw: net.Socket | undefined;
  let referenced = true;
  duplex.ref = () => {
    referenced = true;
    raw?.ref();
  };
  duplex.unref = () => {
    referenced = false;
    raw?.unref();
  };
  socket.then(
    (s) => {
      if (duplex.destroyed) {
        s.destroy();
        return;
      }
      raw = s;
      if (!referenced) s.unref();
      outbound.pipe(s);
      s.pipe(inbound);
      s.once('error', (err) => duplex.destroy(err));
      s.once('close', () => duplex.destroy());
      duplex.once('close', () => s.destroy());
    },
    (err: unknown) => duplex.destroy(err instanceof Error ? err : new Error(String(err))),
  );
  return duplex;
}

/**
 * A keep-alive agent whose connections go through `dialer`: TLS to the apiserver inside the tunnel when `secure`
 * (the agent's options carry the TLS material and server name), plain HTTP otherwise.
 */
export function proxyAgent(secure: boolean, dialer: ProxyDialer, options: https.AgentOptions): http.Agent {
  const open = (opts: { host?: string | null; hostname?: string | null; port?: number | string | null }): Promise<net.Socket> =>
    dialer.connect(String(opts.hostname ?? opts.host ?? 'localhost').replace(/^\[|\]$/g, ''), Number(opts.port));
  if (secure) {
    return new (class extends https.Agent {
      override createConnection(opts: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
        open(opts).then(
          (raw) => {
            const socket = tls.connect({ ...(opts as tls.ConnectionOptions), socket: raw });
            callback?.(null, socket);
          },
          (err: Error) => callback?.(err, undefined as unknown as Duplex),
        );
        return undefined;
      }
    })(options);
  }
  return new (class extends HttpAgent {
    override createConnection(opts: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
      open(opts).then(
        (raw) => callback?.(null, raw),
        (err: Error) => callback?.(err, undefined as unknown as Duplex),
      );
      return undefined;
    }
  })(options);
}
