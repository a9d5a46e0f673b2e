/**
 * `FaultProxy`: an HTTPS reverse proxy between a controller under test and its apiserver, for the load harness. The
 * controller gets a kubeconfig pointing at the proxy (its own CA, a bearer token only the proxy accepts); the proxy
 * forwards each request to the apiserver with the real credentials, counts requests by verb and resource, and injects
 * faults on demand:
 *
 * - `latencyMs`: every request waits this long before it is forwarded;
 * - `freezeWatches(ms)`: watch streams go silent (data held back, connections open, as behind a network partition);
 *   new watches opened meanwhile are silent too; at the end the silent connections are reset;
 * - `dropConnections()`: every open client connection is reset at once.
 *
 * An apiserver that is down shows as reset connections (the client's request fails, as with a refused connection).
 * The proxy speaks HTTP/1.1 only (no ALPN `h2`), so Go and Node clients alike use one request per connection slot.
 * Never throws from a request handler: a failed upstream request resets the client's connection.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { generateServingCertificate } from '../../certs/self-signed.js';
import type { RestConfig } from '../../client/rest-config.js';
import { classifyRequest, type RequestCounts } from './request-verbs.js';

/** Settings of {@link FaultProxy.start}. */
export interface FaultProxyOptions {
  /** The apiserver and the credentials to reach it with (e.g. `loadRestConfig({ kubeconfig })`). */
  upstream: RestConfig;
  /** Added delay per request in ms (default 0; may be changed later through `latencyMs`). */
  latencyMs?: number;
}

/** An HTTPS fault-injecting proxy in front of an apiserver (module comment). Start with `FaultProxy.start`. */
export class FaultProxy {
  /** Added delay per request, in ms; may be changed while running. */
  latencyMs: number;
  /** Requests seen, by verb and by `verb resource`. */
  readonly counts: RequestCounts = { byVerb: {}, byResource: {} };
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<http.ServerResponse>();
  private readonly silent = new Set<http.ServerResponse>();
  private frozenUntil = 0;
  private freezeTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly server: https.Server,
    private readonly upstream: RestConfig,
    private readonly agent: https.Agent,
    /** The proxy's URL, `https://127.0.0.1:<port>`. */
    readonly url: string,
    /** PEM CA that signed the proxy's serving certificate. */
    readonly caCert: string,
    /** The bearer token clients must present. */
    readonly token: string,
    latencyMs: number,
  ) {
    this.latencyMs = latencyMs;
  }

  /** Starts the proxy on a free loopback port. */
  static async start(opts: FaultProxyOptions): Promise<FaultProxy> {
    const cert = await generateServingCertificate({ hosts: ['127.0.0.1', 'localhost'] });
    const upstream = { ...opts.upstream };
    if (upstream.tokenFile) upstream.token = fs.readFileSync(upstream.tokenFile, 'utf8').trim();
    const agent = new https.Agent({
      keepAlive: true,
      maxSockets: 256,
      ...(upstream.caData ? { ca: upstream.caData } : {}),
      ...(upstream.certData ? { cert: upstream.certData, key: upstream.keyData } : {}),
      rejectUnauthorized: upstream.insecureSkipTLSVerify !== true,
      ...(upstream.tlsServerName ? { servername: upstream.tlsServerName } : {}),
    });
    const server = https.createServer({ cert: cert.cert, key: cert.key });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as { port: number }).port;
    const proxy = new FaultProxy(server, upstream, agent, `https://127.0.0.1:${port}`, cert.caCert, randomBytes(24).toString('hex'), opts.latencyMs ?? 0);
    server.on('secureConnection', (socket: Socket) => {
      proxy.sockets.add(socket);
      socket.on('close', () => proxy.sockets.delete(socket));
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => proxy.handle(req, res));
    return proxy;
  }

  /** A kubeconfig (YAML-compatible JSON text) that connects to this proxy. */
  kubeconfig(namespace = 'default'): string {
    return `${JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'loadtest', cluster: { server: this.url, 'certificate-authority-data': Buffer.from(this.caCert).toString('base64') } }],
        users: [{ name: 'loadtest', user: { token: this.token } }],
        contexts: [{ name: 'loadtest', context: { cluster: 'loadtest', user: 'loadtest', namespace } }],
        'current-context': 'loadtest',
      },
      null,
      2,
    )}\n`;
  }

  /** Writes {@link kubeconfig} to `file` (mode 0600). */
  writeKubeconfig(file: string, namespace?: string): void {
    fs.writeFileSync(file, this.kubeconfig(namespace), { mode: 0o600 });
  }

  /** Makes every watch stream silent for `ms`, then resets the silent connections. */
  freezeWatches(ms: number): void {
    this.frozenUntil = Date.now() + ms;
    for (const res of this.watches) this.silent.add(res);
    clearTimeout(this.freezeTimer);
    this.freezeTimer = setTimeout(() => {
      this.frozenUntil = 0;
      for (const res of this.silent) res.socket?.destroy();
      this.silent.clear();
    }, ms);
    this.freezeTimer.unref();
  }

  /** Whether watch streams are silent now. */
  get frozen(): boolean {
    return Date.now() < this.frozenUntil;
  }

  /** Resets every open client connection. */
  dropConnections(): number {
    const n = this.sockets.size;
    for (const s of this.sockets) s.destroy();
    return n;
  }

  async close(): Promise<void> {
    clearTimeout(this.freezeTimer);
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' }));
      return;
    }
    const { verb, resource } = classifyRequest(req.method ?? 'GET', req.url ?? '/', String(req.headers['content-type'] ?? ''));
    this.counts.byVerb[verb] = (this.counts.byVerb[verb] ?? 0) + 1;
    const key = `${verb} ${resource}`;
    this.counts.byResource[key] = (this.counts.byResource[key] ?? 0) + 1;
    const forward = (): void => this.forward(req, res, verb === 'watch');
    if (this.latencyMs > 0) setTimeout(forward, this.latencyMs);
    else forward();
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, watch: boolean): void {
    const target = new URL(req.url ?? '/', this.upstream.server.replace(/\/$/, '') + '/');
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: target.host };
    delete headers.authorization;
    delete headers.connection;
    if (this.upstream.token) headers.authorization = `Bearer ${this.upstream.token}`;
    else if (this.upstream.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${this.upstream.username}:${this.upstream.password ?? ''}`).toString('base64')}`;
    const reset = (): void => void res.socket?.destroy();
    const up = https.request(target, { method: req.method, headers, agent: this.agent }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      res.flushHeaders();
      if (!watch) {
        upRes.pipe(res);
        upRes.on('error', reset);
        upRes.on('aborted', reset);
        return;
      }
      // Watch: pass data through unless frozen; a frozen stream holds its data back and is reset when the freeze ends.
      upRes.on('data', (chunk: Buffer) => void (this.silent.has(res) ? undefined : res.write(chunk)));
      upRes.on('end', () => (this.silent.has(res) ? undefined : res.end()));
      upRes.on('error', reset);
      upRes.on('aborted', reset);
    });
    up.on('error', reset);
    res.on('close', () => {
      this.watches.delete(res);
      this.silent.delete(res);
      up.destroy();
    });
    if (watch) {
      this.watches.add(res);
      if (this.frozen) this.silent.add(res);
    }
    req.pipe(up);
  }
}
