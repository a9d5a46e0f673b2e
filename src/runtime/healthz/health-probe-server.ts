/**
 * `HealthProbeServer`: liveness (`/healthz`) and readiness (`/readyz`) endpoints on one address, built from named
 * checks, as controller-runtime's manager serves them on `HealthProbeBindAddress`. `"0"` or `""` disables it.
 * Checks may be added before or after `listen()`. Check failures are answered, logged, and never crash anything.
 */
import http from 'node:http';
import { getLogger, type Logger } from '../log.js';
import { closeServer, listenOn, parseBindAddress } from '../metrics/bind-address.js';
import { HealthCheckSet, type HealthChecker } from './checks.js';

export interface HealthProbeServerOptions {
  /** e.g. `:8081`, `127.0.0.1:0`; `"0"` or `""` disables. */
  bindAddress: string;
  /** Default `/healthz`. */
  livenessEndpointName?: string;
  /** Default `/readyz`. */
  readinessEndpointName?: string;
  logger?: Logger;
}

export class HealthProbeServer {
  private readonly bindAddress: string;
  private readonly livenessPath: string;
  private readonly readinessPath: string;
  private readonly healthz = new HealthCheckSet('healthz');
  private readonly readyz = new HealthCheckSet('readyz');
  private readonly log: Logger;
  private server: http.Server | undefined;
  private bound: string | undefined;

  constructor(opts: HealthProbeServerOptions) {
    this.bindAddress = opts.bindAddress;
    parseBindAddress(this.bindAddress);
    this.livenessPath = normalizePath(opts.livenessEndpointName ?? '/healthz');
    this.readinessPath = normalizePath(opts.readinessEndpointName ?? '/readyz');
    this.log = (opts.logger ?? getLogger()).child({ component: 'health-probes' });
  }

  addHealthzCheck(name: string, check: HealthChecker): void {
    this.healthz.add(name, check);
  }

  addReadyzCheck(name: string, check: HealthChecker): void {
    this.readyz.add(name, check);
  }

  get address(): string | undefined {
    return this.bound;
  }

  /** Starts serving; resolves with the bound `host:port`, or undefined when disabled. */
  async listen(): Promise<string | undefined> {
    const addr = parseBindAddress(this.bindAddress);
    if (addr === undefined) return undefined;
    if (this.server !== undefined) throw new Error('HealthProbeServer is already listening');
    const server = http.createServer((req, res) => void this.handle(req, res));
    this.server = server;
    try {
      this.bound = await listenOn(server, addr);
    } catch (err) {
      this.server = undefined;
      throw err;
    }
    this.log.info('serving health probes', { address: this.bound, liveness: this.livenessPath, readiness: this.readinessPath });
    return this.bound;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.bound = undefined;
    if (server) await closeServer(server);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
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
