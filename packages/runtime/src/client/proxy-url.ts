/**
 * A kubeconfig cluster's `proxy-url` as read and checked (client-go's `parseProxyURL`), and what a tunnel through
 * it offers the transports (`ProxyDialer`), apart from the code that opens tunnels (`proxy-tunnel.ts`), which the
 * transport loads only for a cluster that has a proxy.
 */
import type net from 'node:net';
import type tls from 'node:tls';
import type { Duplex } from 'node:stream';

/** The `proxy-url` schemes the runtime supports (client-go's too). */
export const PROXY_SCHEMES: readonly string[] = ['http', 'https', 'socks5'];

/**
 * Parses a `proxy-url`; throws naming `where` (e.g. `cluster "prod"`) when it is not a URL or its scheme is not
 * one of `PROXY_SCHEMES` (client-go's `parseProxyURL` rule).
 */
export function parseProxyUrl(raw: string, where = 'proxy-url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${where}: proxy-url ${JSON.stringify(raw)} is not a URL`);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!PROXY_SCHEMES.includes(scheme)) {
    throw new Error(`${where}: proxy-url ${JSON.stringify(url.password ? redact(url) : raw)} has unsupported scheme ${JSON.stringify(scheme)}, must be http, https, or socks5`);
  }
  return url;
}

/** The proxy URL without its password, for messages. */
export function redact(url: URL): string {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = '***';
  return copy.href;
}

/** Opens tunnels to the apiserver through one proxy (see the module comment). */
export interface ProxyDialer {
  /** The proxy, without its password. */
  readonly proxy: string;
  /** A socket tunnelled to `host:port`, once the proxy agreed. */
  connect(host: string, port: number): Promise<net.Socket>;
  /** A stand-in socket usable at once, carrying the tunnel to `host:port` once it is open (`deferredSocket`). */
  tunnel(host: string, port: number): DeferredSocket;
}

/** TLS settings for reaching an `https://` proxy: the cluster's trust (client-go uses the same TLS config). */
export type ProxyTlsOptions = Pick<tls.ConnectionOptions, 'ca' | 'rejectUnauthorized'>;

/** A stand-in socket (see `deferredSocket`); `ref()`/`unref()` reach the tunnel's socket, now or once it is there. */
export type DeferredSocket = Duplex & { ref(): void; unref(): void };
