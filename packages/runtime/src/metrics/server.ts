/**
 * `MetricsServer`: serves a prom-client registry on `GET /metrics` in the Prometheus text format
 * (controller-runtime `pkg/metrics/server`, without its TLS/authn filters). Default bind address `:8080`; `"0"`
 * disables it (then `listen()` resolves with undefined and nothing is opened). Scrape errors answer 500 and are
 * logged; they never crash the process.
 */
import http from 'node:http';
import type { Registry } from 'prom-client';
import { getLogger, type Logger } from '../log.js';
import { EndpointServer } from './endpoint-server.js';
import { registerDefaultMetrics } from './default-metrics.js';
import { metricsRegistry } from './registry.js';

/** The metrics server's default bind address: port 8080, all interfaces (as controller-runtime's). */
export const DEFAULT_METRICS_BIND_ADDRESS = ':8080';
/** The only path the {@link MetricsServer} serves; anything else is a 404. */
export const METRICS_PATH = '/metrics';

/** Settings of a {@link MetricsServer} (controller-runtime's `metricsserver.Options` without TLS); all optional. */
export interface MetricsServerOptions {
  /** Default `:8080`; `"0"` disables. */
  bindAddress?: string;
  /** Default the runtime's `metricsRegistry`. */
  registry?: Registry;
  /** Register the Node process/GC collectors on the registry (once per registry). Default true. */
  defaultMetrics?: boolean;
  logger?: Logger;
}

/** Serves a prom-client registry on `GET /metrics` (module comment); `listen()` starts it, `close()` stops it. */
export class MetricsServer extends EndpointServer {
  readonly registry: Registry;

  constructor(opts: MetricsServerOptions = {}) {
    super(opts.bindAddress ?? DEFAULT_METRICS_BIND_ADDRESS, (opts.logger ?? getLogger()).child({ component: 'metrics-server' }));
    this.registry = opts.registry ?? metricsRegistry;
    if (opts.defaultMetrics ?? true) registerDefaultMetrics(this.registry);
  }

  protected listeningMessage(): string {
    return 'serving metrics';
  }

  protected override listeningFields(): Record<string, unknown> {
    return { path: METRICS_PATH };
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== METRICS_PATH) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      const body = await this.registry.metrics();
      res.writeHead(200, { 'Content-Type': this.registry.contentType });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      this.log.error('error gathering metrics', { error: err });
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`error gathering metrics: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
}
