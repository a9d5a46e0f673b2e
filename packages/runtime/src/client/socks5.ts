/**
 * A SOCKS5 client for `proxy-url: socks5://…` (RFC 1928 `CONNECT`, RFC 1929 user/password), as client-go's
 * (`golang.org/x/net/proxy`): host names are sent to the proxy to resolve (remote DNS), IP addresses as addresses;
 * without a user the proxy is offered "no authentication" only.
 *
 * Contract: `socks5Connect` resolves with the socket once the proxy reported the tunnel open (bytes it sent after
 * its reply are put back), or rejects saying which step failed (connect, method, authentication, the proxy's reply
 * code in words) or that the proxy took longer than `timeoutMs`; the socket is then destroyed.
 */
import net from 'node:net';

/** Where the SOCKS5 proxy is and who to be there. */
export interface Socks5Proxy {
  host: string;
  port: number;
  /** RFC 1929 user name; empty: no authentication. */
  user: string;
  password: string;
  timeoutMs: number;
}

/** RFC 1928 reply codes. */
const REPLIES: Record<number, string> = {
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

/** Reads exact byte counts from a socket as they arrive. */
class ByteReader {
  private buffered = Buffer.alloc(0);
  private want: { n: number; resolve: (b: Buffer) => void } | undefined;
  private readonly onData = (chunk: Buffer): void => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.deliver();
  };

  constructor(private readonly socket: net.Socket) {
    socket.on('data', this.onData);
  }

  read(n: number): Promise<Buffer> {
    return new Promise((resolve) => {
      this.want = { n, resolve };
      this.deliver();
    });
  }

  /** Stops reading; bytes read beyond the last `read` go back to the socket. */
  release(): void {
    this.socket.off('data', this.onData);
    this.socket.pause();
    if (this.buffered.length > 0) this.socket.unshift(this.buffered);
  }

  private deliver(): void {
    if (!this.want || this.buffered.length < this.want.n) return;
    const { n, resolve } = this.want;
    this.want = undefined;
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    resolve(out);
  }
}

/** The destination as a SOCKS5 address: IPv4, IPv6, or a domain name for the proxy to resolve. */
function address(host: string): Buffer {
  if (net.isIPv4(host)) return Buffer.from([1, ...host.split('.').map(Number)]);
  if (net.isIPv6(host)) return Buffer.concat([Buffer.from([4]), ipv6Bytes(host)]);
  const name = Buffer.from(host, 'utf8');
  if (name.length > 255) throw new Error(`host name ${host} is longer than 255 bytes`);
  return Buffer.concat([Buffer.from([3, name.length]), name]);
}

/** The 16 bytes of an IPv6 address (`::` expanded; a trailing dotted IPv4 part taken as two groups). */
function ipv6Bytes(addr: string): Buffer {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(addr);
  const text = dotted ? addr.slice(0, dotted.index) + ((+dotted[1]! << 8) | +dotted[2]!).toString(16) + ':' + ((+dotted[3]! << 8) | +dotted[4]!).toString(16) : addr;
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** Opens a SOCKS5 tunnel to `host:port` through `proxy` (see the module comment). */
export async function socks5Connect(proxy: Socks5Proxy, host: string, port: number): Promise<net.Socket> {
  const socket = net.connect({ host: proxy.host, port: proxy.port });
  socket.setNoDelay(true);
  let timer: NodeJS.Timeout | undefined;
  let fail: (err: Error) => void = () => undefined;
  const onClose = (): void => fail(new Error('the SOCKS5 proxy closed the connection'));
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
    timer = setTimeout(() => reject(new Error(`no answer within ${proxy.timeoutMs} ms`)), proxy.timeoutMs);
  });
  failed.catch(() => undefined);
  socket.once('error', fail);
  socket.once('close', onClose);
  const step = <T>(p: Promise<T>): Promise<T> => Promise.race([p, failed]);
  try {
    await step(new Promise<void>((resolve) => socket.once('connect', () => resolve())));
    const reader = new ByteReader(socket);
    socket.write(Buffer.from(proxy.user ? [5, 2, 0, 2] : [5, 1, 0]));
    const [version, method] = await step(reader.read(2));
    if (version !== 5) throw new Error(`the proxy does not speak SOCKS5 (version byte ${version})`);
    if (method === 2 && proxy.user) {
      const user = Buffer.from(proxy.user, 'utf8');
      const password = Buffer.from(proxy.password, 'utf8');
      socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([password.length]), password]));
      const [, status] = await step(reader.read(2));
      if (status !== 0) throw new Error('the SOCKS5 proxy refused the user name and password');
    } else if (method !== 0) {
      throw new Error(method === 0xff ? `the SOCKS5 proxy accepts none of the offered authentication methods (${proxy.user ? 'user/password, none' : 'none'})` : `the SOCKS5 proxy chose unsupported method ${method}`);
    }
    socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address(host), Buffer.from([port >> 8, port & 0xff])]));
    const [, reply, , type] = await step(reader.read(4));
    if (reply !== 0) throw new Error(`the SOCKS5 proxy answered: ${REPLIES[reply!] ?? `reply code ${reply}`}`);
    const length = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? (await step(reader.read(1)))[0]! : -1;
    if (length < 0) throw new Error(`the SOCKS5 proxy replied with unknown address type ${type}`);
    await step(reader.read(length + 2));
    reader.release();
    return socket;
  } catch (err) {
    socket.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
    socket.off('error', fail);
    socket.off('close', onClose);
  }
}
