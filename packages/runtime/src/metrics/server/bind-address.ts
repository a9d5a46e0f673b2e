/**
 * controller-runtime style bind addresses for the runtime's HTTP servers: `":8080"` (all interfaces),
 * `"127.0.0.1:0"` (loopback, any free port), `"[::1]:9090"`, `"localhost:8081"`; `"0"` or `""` disables the server.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListenAddress {
  /** undefined = all interfaces. */
  host: string | undefined;
  port: number;
}

/** Parses a bind address; undefined when it disables the server. Throws a TypeError for malformed addresses. */
export function parseBindAddress(address: string): ListenAddress | undefined {
  const addr = address.trim();
  if (addr === '' || addr === '0') return undefined;
  const colon = addr.lastIndexOf(':');
  if (colon < 0) throw new TypeError(`bind address "${address}" is missing a port (use ":8080" or "host:port")`);
  let host = addr.slice(0, colon);
  const portText = addr.slice(colon + 1);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  else if (host.includes(':')) throw new TypeError(`bind address "${address}": IPv6 hosts must be in brackets`);
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new TypeError(`bind address "${address}" has an invalid port`);
  return { host: host === '' ? undefined : host, port: Number(portText) };
}

/** `host:port` of a listening server (`[v6]:port` for IPv6). */
export function formatBoundAddress(info: AddressInfo): string {
  return info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]:${info.port}` : `${info.address}:${info.port}`;
}

/** Starts `server` on `address` and resolves with the bound `host:port` (rejects on EADDRINUSE etc.). */
export function listenOn(server: Server, address: ListenAddress): Promise<string> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve(formatBoundAddress(server.address() as AddressInfo));
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(address.port, address.host);
  });
}

/** Stops accepting connections, drops idle keep-alive ones, and resolves once the server is closed. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
