/**
 * `MetricsServer`: serves a prom-client registry on `GET /metrics` in the Prometheus text format
 * (controller-runtime `pkg/metrics/server`); while tracing is on, a scrape whose `Accept` prefers OpenMetrics gets
 * OpenMetrics 1.0 with the reconcile-time histogram's trace exemplars (metrics/openmetrics.ts). Default bind address `:8080`; `"0"` disables it (then `listen()`
 * resolves with undefined and nothing is opened). Scrape errors answer 500 and are logged; they never crash the
 * process.
 *
 * Secured (controller-runtime's `SecureServing` and `FilterProvider`): `secureServing: true` serves HTTPS (TLS 1.2+)
 * with the certificate and key in `certDir` (reloaded when they change, see `CertWatcher`) or, without `certDir`, a
 * self-signed certificate made in memory at `listen()` (for `localhost`, `127.0.0.1`, `::1`; scrapers skip
 * verification or use a real certificate through `certDir`). A `filter` (usually
 * `withAuthenticationAndAuthorization(transport)`) decides per request whether it is served.
 */
import type http from 'node:http';
import type https from 'node:https';
import type { Registry } from '../prom.js';
import { CertWatcher, createTlsServer } from '../../certs/cert-watcher.js';
import { generateServingCertificate } from '../../certs/self-signed.js';
import { getLogger, type Logger } from '../../log.js';
import type { MetricsFilter } from './auth-filter.js';
import { EndpointServer } from './endpoint-server.js';
import { parseBindAddress } from './bind-address.js';
import { registerDefaultMetrics } from '../default-metrics.js';
import { metricsRegistry } from '../registry.js';
import { acceptsOpenMetrics, OPENMETRICS_CONTENT_TYPE, renderOpenMetrics } from '../openmetrics.js';
import { activeTracing } from '../../tracing/otel.js';

/** The metrics server's default bind address: port 8080, all interfaces (as controller-runtime's). */
export const DEFAULT_METRICS_BIND_ADDRESS = ':8080';
/** The only path the {@link MetricsServer} serves; anything else is a 404. */
export const METRICS_PATH = '/metrics';

/** Settings of a {@link MetricsServer} (controller-runtime's `metricsserver.Options`); all optional. */
export interface MetricsServerOptions {
  /** Default `:8080`; `"0"` disables. */
  bindAddress?: string;
  /** Default the runtime's `metricsRegistry`. */
  registry?: Registry;
  /** Register the Node process/GC collectors on the registry (once per registry). Default true. */
  defaultMetrics?: boolean;
  /**
   * Serve HTTPS instead of HTTP (default false). Without `certDir`, a self-signed certificate is made at `listen()`
   * (this needs the optional packages `@peculiar/x509` and `reflect-metadata`).
   */
  secureServing?: boolean;
  /**
   * Folder of the serving certificate and key (with `secureServing`), e.g. a mounted cert-manager Secret. Both files
   * must exist when `listen()` is called (else it rejects, naming them); changes are picked up without a restart.
   */
  certDir?: string;
  /** Certificate file name in `certDir` (default `tls.crt`). */
  certName?: string;
  /** Key file name in `certDir` (default `tls.key`). */
  keyName?: string;
  /** How often `certDir` is checked besides file-change events (default 10 000 ms). */
  certPollIntervalMs?: number;
  /**
   * Decides per request whether it is served (e.g. `withAuthenticationAndAuthorization(transport)`); default: every
   * request is. Also applies over plain HTTP, where bearer tokens travel unencrypted: pair it with `secureServing`.
   */
  filter?: MetricsFilter;
  logger?: Logger;
}

/** Serves a prom-client registry on `GET /metrics` (module comment); `listen()` starts it, `close()` stops it. */
export class MetricsServer extends EndpointServer {
  readonly registry: Registry;
  private readonly opts: MetricsServerOptions;
  private certs: CertWatcher | undefined;

  constructor(opts: MetricsServerOptions = {}) {
    super(opts.bindAddress ?? DEFAULT_METRICS_BIND_ADDRESS, (opts.logger ?? getLogger()).child({ component: 'metrics-server' }));
    if (!opts.secureServing && (opts.certDir !== undefined || opts.certName !== undefined || opts.keyName !== undefined)) {
      throw new TypeError('metrics server: certDir, certName and keyName need secureServing: true');
    }
    if (opts.certDir === '') throw new TypeError('metrics server: certDir is empty (leave it unset for a self-signed certificate)');
    this.opts = opts;
    this.registry = opts.registry ?? metricsRegistry;
    // The process collectors only where they are served (they load perf_hooks, v8 and their native code).
    if ((opts.defaultMetrics ?? true) && parseBindAddress(this.bindAddress) !== undefined) registerDefaultMetrics(this.registry);
  }

  /** `https` or `http`: how the server is reached. */
  get scheme(): 'https' | 'http' {
    return this.opts.secureServing ? 'https' : 'http';
  }

  protected listeningMessage(): string {
    return 'serving metrics';
  }

  protected override listeningFields(): Record<string, unknown> {
    return {
      path: METRICS_PATH,
      secure: this.opts.secureServing ?? false,
      ...(this.opts.secureServing ? { certificate: this.opts.certDir ?? 'self-signed' } : {}),
      authorization: this.opts.filter !== undefined,
    };
  }

  protected override async createServer(listener: http.RequestListener): Promise<http.Server> {
    if (!this.opts.secureServing) return super.createServer(listener);
    let pair: { cert: Buffer | string; key: Buffer | string };
    if (this.opts.certDir !== undefined) {
      this.certs = new CertWatcher({
        certDir: this.opts.certDir,
        ...(this.opts.certName !== undefined ? { certName: this.opts.certName } : {}),
        ...(this.opts.keyName !== undefined ? { keyName: this.opts.keyName } : {}),
        ...(this.opts.certPollIntervalMs !== undefined ? { pollIntervalMs: this.opts.certPollIntervalMs } : {}),
        owner: 'metrics',
        hint: 'mount them (e.g. a cert-manager Secret) or leave certDir unset for a self-signed certificate',
        logger: this.log,
      });
      pair = this.certs.read();
    } else {
      pair = await generateServingCertificate({ hosts: ['localhost', '127.0.0.1', '::1'] });
    }
    let server: https.Server;
    try {
      server = createTlsServer(pair, listener, this.log);
    } catch (err) {
      throw new Error(`metrics server: the certificate and key do not load (${(err as Error).message})`);
    }
    if (this.certs) this.certs.start(server, { cert: Buffer.from(pair.cert), key: Buffer.from(pair.key) });
    return server as unknown as http.Server;
  }

  protected override closed(): void {
    this.certs?.stop();
    this.certs = undefined;
  }

  /** Loads the certificate files in `certDir` again if they changed; returns whether a new pair is now served. */
  reloadCertificate(): boolean {
    return this.certs?.reload() ?? false;
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      if (this.opts.filter) {
        let decision;
        try {
          decision = await this.opts.filter(req);
        } catch (err) {
          this.log.error('metrics filter failed', { error: err instanceof Error ? err.message : String(err) });
          decision = { allowed: false as const, status: 500, message: 'Internal Server Error' };
        }
        if (!decision.allowed) {
          res.writeHead(decision.status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }).end(`${decision.message}\n`);
          return;
        }
      }
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== METRICS_PATH) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      // While tracing is on, a scrape that asks for OpenMetrics gets it, with the reconcile-time exemplars.
      const tracing = activeTracing() !== undefined;
      const openMetrics = tracing && acceptsOpenMetrics(req.headers.accept);
      const body = openMetrics ? await renderOpenMetrics(this.registry) : await this.registry.metrics();
      res.writeHead(200, { 'Content-Type': openMetrics ? OPENMETRICS_CONTENT_TYPE : this.registry.contentType, ...(tracing ? { Vary: 'Accept' } : {}) });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      this.log.error('error gathering metrics', { error: err });
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`error gathering metrics: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
}
