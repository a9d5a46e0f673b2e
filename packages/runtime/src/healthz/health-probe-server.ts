/**
 * `HealthProbeServer`: liveness (`/healthz`) and readiness (`/readyz`) endpoints on one address, built from named
 * checks, as controller-runtime's manager serves them on `HealthProbeBindAddress`. `"0"` or `""` disables it.
 * Checks may be added before or after `listen()`. Check failures are answered, logged, and never crash anything.
 */
import type http from 'node:http';
import { getLogger, type Logger } from '../log.js';
import { EndpointServer } from '../metrics/server/endpoint-server.js';
import { HealthCheckSet, type HealthChecker } from './checks.js';

/** Settings of a {@link HealthProbeServer}: the bind address (required; `"0"`/`""` disables) and endpoint paths. */
export interface HealthProbeServerOptions {
  /** e.g. `:8081`, `127.0.0.1:0`; `"0"` or `""` disables. */
  bindAddress: string;
  /** Default `/healthz`. */
  livenessEndpointName?: string;
  /** Default `/readyz`. */
  readinessEndpointName?: string;
  logger?: Logger;
}

/**
 * Serves the liveness and readiness checks over HTTP (see the module comment); `addHealthzCheck` / `addReadyzCheck`
 * register them. Only GET and HEAD are answered.
 */
export class HealthProbeServer extends EndpointServer {
  private readonly livenessPath: string;
  private readonly readinessPath: string;
  private readonly healthz = new HealthCheckSet('healthz');
  private readonly readyz = new HealthCheckSet('readyz');

  constructor(opts: HealthProbeServerOptions) {
    super(opts.bindAddress, (opts.logger ?? getLogger()).child({ component: 'health-probes' }));
    this.livenessPath = normalizePath(opts.livenessEndpointName ?? '/healthz');
    this.readinessPath = normalizePath(opts.readinessEndpointName ?? '/readyz');
  }

  addHealthzCheck(name: string, check: HealthChecker): void {
    this.healthz.add(name, check);
  }

  addReadyzCheck(name: string, check: HealthChecker): void {
    this.readyz.add(name, check);
  }

  /** Removes a readiness check (a controller removed from its manager); false when there was none of that name. */
  removeReadyzCheck(name: string): boolean {
    return this.readyz.remove(name);
  }

  protected listeningMessage(): string {
    return 'serving health probes';
  }

  protected override listeningFields(): Record<string, unknown> {
    return { liveness: this.livenessPath, readiness: this.readinessPath };
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      if (await this.healthz.serve(this.livenessPath, req, res, this.log)) return;
      if (await this.readyz.serve(this.readinessPath, req, res, this.log)) return;
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
    } catch (err) {
      this.log.error('error serving health probe', { error: err });
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('internal server error\n');
    }
  }
}

function normalizePath(p: string): string {
  const withSlash = p.startsWith('/') ? p : `/${p}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}
