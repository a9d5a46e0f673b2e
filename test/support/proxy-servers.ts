/**
 * Forward proxies for tests, on loopback: `ConnectProxy` answers HTTP `CONNECT` (over plain HTTP, or over TLS with a
 * certificate the test gives), `Socks5Proxy` speaks SOCKS5 (`CONNECT` only, no authentication or RFC 1929
 * user/password). Whatever host a client asks for, both connect to 127.0.0.1 at the asked port, and record the
 * target as asked (`host:port`) — so a test can use a name that does not resolve and see it reached the proxy — and,
 * for `ConnectProxy`, the `Proxy-Authorization` header. `refuse` makes the next tunnels fail (403, or SOCKS reply 2).
 */
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface ProxyRecord {
  target: string;
  auth?: string | undefined;
}

function tunnel(client: Duplex, port: number, onOpen: () => void): void {
  const upstream = net.connect(port, '127.0.0.1', () => {
    onOpen();
    upstream.pipe(client).pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  // A tunnel ends with either side: a proxy that closes its clients must not leave their upstream sockets open (they
  // would keep a test process alive as long as the apiserver lives, e.g. the suite's shared control plane).
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

export class ConnectProxy {
  readonly records: ProxyRecord[] = [];
  refuse = false;
  /** The `Proxy-Authorization` header required (else 407), if any. */
  requireAuth: string | undefined;
  private readonly server: http.Server;
  private readonly sockets = new Set<Duplex>();

  constructor(tls?: { cert: string; key: string }) {
    const refuseOthers = (_req: http.IncomingMessage, res: http.ServerResponse): void => void res.writeHead(405).end();
    this.server = tls ? https.createServer(tls, refuseOthers) : http.createServer(refuseOthers);
    this.server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      const auth = req.headers['proxy-authorization'];
      this.records.push({ target: req.url!, auth });
      if (this.refuse) return void socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      if (this.requireAuth !== undefined && auth !== this.requireAuth) return void socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      const port = Number(req.url!.slice(req.url!.lastIndexOf(':') + 1));
      tunnel(socket, port, () => socket.write('HTTP/1.1 200 Connection Established\r\n\r\n'));
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

export class Socks5Proxy {
  readonly records: ProxyRecord[] = [];
  refuse = false;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  /** With `user`, only RFC 1929 user/password authentication with these is accepted. */
  constructor(private readonly user?: { name: string; password: string }) {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => undefined);
      void this.serve(client).catch(() => client.destroy());
    });
  }

  private async serve(client: net.Socket): Promise<void> {
    const { read, release } = reader(client);
    const [, n] = await read(2);
    const methods = [...(await read(n!))];
    const method = this.user ? 2 : 0;
    if (!methods.includes(method)) return void client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, method]));
    let auth: string | undefined;
    if (this.user) {
      const [, ulen] = await read(2);
      const name = (await read(ulen!)).toString();
      const [plen] = await read(1);
      const password = (await read(plen!)).toString();
      auth = `${name}:${password}`;
      if (name !== this.user.name || password !== this.user.password) return void client.end(Buffer.from([1, 1]));
      client.write(Buffer.from([1, 0]));
    }
    const [, , , type] = await read(4);
    let host: string;
    if (type === 1) host = [...(await read(4))].join('.');
    else if (type === 3) host = (await read((await read(1))[0]!)).toString();
    else host = (await read(16)).toString('hex').match(/.{4}/g)!.join(':');
    const port = (await read(2)).readUInt16BE(0);
    this.records.push({ target: `${host}:${port}`, auth });
    if (this.refuse) return void client.end(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
    release();
    tunnel(client, port, () => client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0])));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Reads exact byte counts from `socket` (the SOCKS handshake); `release()` leaves the rest to the tunnel's pipe. */
function reader(socket: net.Socket): { read(n: number): Promise<Buffer>; release(): void } {
  let buffered = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    waiting?.();
  };
  socket.on('data', onData);
  return {
    async read(n) {
      while (buffered.length < n) await new Promise<void>((resolve) => (waiting = resolve));
      const out = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      return out;
    },
    release() {
      socket.off('data', onData);
      socket.pause();
      if (buffered.length > 0) socket.unshift(buffered);
    },
  };
}
