/**
 * A loopback TCP proxy for fault injection (TLS stays end to end). `freeze()` makes the connections open now
 * silent in both directions without closing them — a frozen middlebox: the peer's kernel still ACKs, nothing is
 * delivered — while new connections pass; `refuse` closes new connections at once; `unfreeze()` lets them flow
 * again. `connections` counts every accepted connection.
 */
import net from 'node:net';

export class TcpProxy {
  refuse = false;
  connections = 0;
  private readonly conns = new Set<{ client: net.Socket; upstream: net.Socket; frozen: boolean }>();
  private readonly server: net.Server;

  constructor(private readonly targetPort: number) {
    this.server = net.createServer((client) => {
      if (this.refuse) {
        client.destroy();
        return;
      }
      this.connections++;
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      const conn = { client, upstream, frozen: false };
      this.conns.add(conn);
      client.on('data', (d) => void (conn.frozen || upstream.write(d)));
      upstream.on('data', (d) => void (conn.frozen || client.write(d)));
      const close = (): void => {
        this.conns.delete(conn);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Freezes every open connection; returns how many. */
  freeze(): number {
    for (const c of this.conns) c.frozen = true;
    return this.conns.size;
  }

  /** Open connections that are not frozen. */
  get live(): number {
    return [...this.conns].filter((c) => !c.frozen).length;
  }

  async close(): Promise<void> {
    for (const c of this.conns) (c.client.destroy(), c.upstream.destroy());
    this.server.unref();
    // server.close() waits for every accepted socket to end; do not let a straggler keep the test process alive.
    await Promise.race([new Promise<void>((resolve) => this.server.close(() => resolve())), new Promise((r) => setTimeout(r, 2000).unref())]);
  }
}
