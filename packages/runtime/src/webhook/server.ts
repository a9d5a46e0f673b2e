/**
 * The webhook server (controller-runtime `pkg/webhook`): one HTTPS server, owned by the manager, serving admission
 * handlers (AdmissionReview v1) and conversion handlers (ConversionReview v1) at the paths they are registered on.
 *
 * Defaults are controller-runtime's: port 9443 on all interfaces, certificates `tls.crt` / `tls.key` in
 * `<tmpdir>/k8s-webhook-server/serving-certs`, TLS 1.2 or newer. The certificate files are watched (and polled
 * every 10 s): a rotated certificate (cert-manager renewing it, or `writeServingCertificate`) is served to new
 * connections without a restart; a pair that does not load is logged and the previous one kept.
 *
 * Every request gets an answer, whatever its body: an AdmissionReview that cannot be read (wrong content type,
 * over `maxRequestBytes`, not JSON, not `admission.k8s.io/v1`) is answered with `allowed: false` and a 400/413
 * status inside a well-formed review, as controller-runtime does, so the apiserver reports the reason; a handler
 * that throws is answered with code 500. Nothing a client sends can crash the process.
 */
import type https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import type { Registry } from '../metrics/prom.js';
import { CertWatcher, createTlsServer } from '../certs/cert-watcher.js';
import type { HealthChecker } from '../healthz/checks.js';
import { getLogger, type Logger } from '../log.js';
import { closeServer, listenOn } from '../metrics/server/bind-address.js';
import { errored, type AdmissionHandler, type AdmissionRequest, type AdmissionResponse } from './admission.js';
import { ConversionHandler, type ConversionRequest, type ConversionResponse } from './conversion.js';
import { startWebhookSpan, type WebhookSpan } from '../tracing/webhook-span.js';
import { initWebhookMetrics, webhookMetrics, type WebhookMetrics } from './metrics.js';

/** controller-runtime's default webhook port. */
export const DEFAULT_WEBHOOK_PORT = 9443;
/** controller-runtime's default certificate folder. */
export const DEFAULT_WEBHOOK_CERT_DIR = path.join(os.tmpdir(), 'k8s-webhook-server', 'serving-certs');
/** Largest review body read (7 MiB, as controller-runtime); larger ones are answered with 413. */
export const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;

/** Options of `WebhookServer` (controller-runtime's `webhook.Options`); every field has a default. */
export interface WebhookServerOptions {
  /** Interface to listen on (default: all). */
  host?: string;
  /** Port (default 9443); 0 picks a free one (see `address`). */
  port?: number;
  /** Folder of the serving certificate and key (default {@link DEFAULT_WEBHOOK_CERT_DIR}). */
  certDir?: string;
  /** Certificate file name in `certDir` (default `tls.crt`). */
  certName?: string;
  /** Key file name in `certDir` (default `tls.key`). */
  keyName?: string;
  /** Largest request body accepted (default {@link DEFAULT_MAX_REQUEST_BYTES}). */
  maxRequestBytes?: number;
  /** How often the certificate files are checked besides file-change events (default 10 000 ms). */
  certPollIntervalMs?: number;
  logger?: Logger;
  /** Registry of the webhook metrics (default the runtime's `metricsRegistry`). */
  registry?: Registry;
}

type Handler = AdmissionHandler | ConversionHandler;

/** An HTTPS server for admission and conversion webhooks; a manager `Runnable` that runs on every replica. */
export class WebhookServer {
  /** Webhooks serve on every replica, leader or not (the apiserver calls whichever pod the Service picks). */
  readonly needLeaderElection = false;
  private readonly handlers = new Map<string, Handler>();
  private readonly opts: WebhookServerOptions;
  private readonly log: Logger;
  private readonly metrics: WebhookMetrics;
  private server: https.Server | undefined;
  private bound: string | undefined;
  private readonly certs: CertWatcher;
  private readonly closing = new AbortController();
  private readonly counts = new Map<string, number>();
  /** Requests being answered, and who waits for there to be none (`close`). */
  private active = 0;
  private idle: (() => void) | undefined;

  constructor(opts: WebhookServerOptions = {}) {
    this.opts = opts;
    this.log = (opts.logger ?? getLogger()).child({ component: 'webhook' });
    this.metrics = webhookMetrics(opts.registry);
    this.certs = new CertWatcher({
      certDir: opts.certDir ?? DEFAULT_WEBHOOK_CERT_DIR,
      ...(opts.certName !== undefined ? { certName: opts.certName } : {}),
      ...(opts.keyName !== undefined ? { keyName: opts.keyName } : {}),
      ...(opts.certPollIntervalMs !== undefined ? { pollIntervalMs: opts.certPollIntervalMs } : {}),
      owner: 'webhook',
      hint: 'mount them (cert-manager in a cluster) or write them with generateServingCertificate + writeServingCertificate',
      logger: this.log,
    });
  }

  /**
   * Serves `handler` at `path` (e.g. `/validate-samplecontroller-k8s-io-v1alpha1-foo`). A path is registered once; its
   * metrics series exist from here: requests answered 200 and 500 at 0, as controller-runtime makes them.
   */
  register(path: string, handler: Handler): void {
    if (!path.startsWith('/')) throw new TypeError(`webhook path "${path}" must start with /`);
    if (this.handlers.has(path)) throw new Error(`a webhook is already registered at ${path}`);
    this.handlers.set(path, handler);
    initWebhookMetrics(this.metrics, path);
  }

  /** Registered paths. */
  paths(): string[] {
    return [...this.handlers.keys()];
  }

  /** How many requests were answered at `path` since the server was created (tests wait on it). */
  served(path: string): number {
    return this.counts.get(path) ?? 0;
  }

  /** `host:port` once listening. */
  get address(): string | undefined {
    return this.bound;
  }

  /** Starts listening; resolves with the bound `host:port`. Fails when the certificate cannot be read or loaded. */
  async listen(): Promise<string> {
    if (this.server) return this.bound!;
    const pair = this.certs.read();
    const server = createTlsServer(pair, (req, res) => void this.serve(req, res), this.log);
    this.bound = await listenOn(server as unknown as http.Server, { host: this.opts.host, port: this.opts.port ?? DEFAULT_WEBHOOK_PORT });
    this.server = server;
    this.certs.start(server, pair);
    this.log.info('serving webhooks', { address: this.bound, paths: this.paths() });
    return this.bound;
  }

  /** Runs until `signal` aborts (manager `Runnable`). */
  async start(signal: AbortSignal): Promise<void> {
    await this.listen();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await this.close();
  }

  /**
   * Stops listening and watching; requests in flight are answered first, then every connection is dropped.
   * Node's idle detection alone is not enough: kube-apiserver keeps a connection that served a conversion open
   * until its own 90 s idle timeout, and the server would wait for it.
   */
  async close(): Promise<void> {
    this.closing.abort();
    this.certs.stop();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = closeServer(server as unknown as http.Server);
    if (this.active > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    server.closeAllConnections();
    await closed;
  }

  /** A readiness check: passes once the server listens with a certificate loaded (controller-runtime's `StartedChecker`). */
  startedChecker(): HealthChecker {
    return () => {
      if (!this.server?.listening) throw new Error('webhook server not started');
      return true;
    };
  }

  /** Loads the certificate files again if they changed; returns whether a new pair is now served. */
  reloadCertificate(): boolean {
    return this.certs.reload();
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://webhook');
    const handler = this.handlers.get(url.pathname);
    const webhook = url.pathname;
    if (!handler) {
      reply(res, 404, { message: `no webhook at ${url.pathname}` });
      return;
    }
    const started = performance.now();
    this.active++;
    this.metrics.inFlight.inc({ webhook });
    let code = 200;
    // Traced (tracing/webhook-span.ts): a server span under the apiserver's traceparent; undefined while off.
    const span = startWebhookSpan(req, webhook);
    let failure: unknown;
    try {
      code = await (span ? span.run(() => this.dispatch(req, res, handler, span)) : this.dispatch(req, res, handler, undefined));
    } catch (err) {
      failure = err;
      code = 500;
      this.log.error('webhook failed', { webhook, error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) reply(res, 500, { message: 'internal error' });
    } finally {
      span?.end(code, failure);
      this.metrics.inFlight.dec({ webhook });
      this.metrics.latency.observe({ webhook }, (performance.now() - started) / 1000);
      this.metrics.requests.inc({ webhook, code: String(code) });
      this.counts.set(webhook, (this.counts.get(webhook) ?? 0) + 1);
      if (--this.active === 0) this.idle?.();
    }
  }

  /** Answers one request; returns the HTTP status written. */
  private async dispatch(req: http.IncomingMessage, res: http.ServerResponse, handler: Handler, span: WebhookSpan | undefined): Promise<number> {
    const conversion = handler instanceof ConversionHandler;
    const fail = (status: number, message: string): number => {
      if (req.method !== 'POST') return reply(res, 405, { message });
      // Admission: a review saying why, so the apiserver shows it; conversion: the HTTP error itself.
      if (conversion) return reply(res, status, conversionReview('', { convertedObjects: [], result: { status: 'Failure', message } }));
      return reply(res, 200, admissionReview('', errored(status, new Error(message))));
    };
    if (req.method !== 'POST') return fail(405, `method ${req.method} not allowed; webhooks take POST`);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return fail(400, `content type ${JSON.stringify(type)} not supported; expected application/json`);
    const body = await readLimited(req, this.opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
    if (body === 'too-large') return fail(413, `request body over ${this.opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES} bytes`);
    let review: unknown;
    try {
      review = JSON.parse(body.toString('utf8'));
    } catch (err) {
      return fail(400, `request body is not JSON: ${(err as Error).message}`);
    }
    const signal = AbortSignal.any([this.closing.signal, closedSignal(res)]);
    if (conversion) {
      const r = review as { apiVersion?: unknown; kind?: unknown; request?: Partial<ConversionRequest> };
      if (r?.apiVersion !== 'apiextensions.k8s.io/v1' || r.kind !== 'ConversionReview') return fail(400, 'expected a ConversionReview of apiextensions.k8s.io/v1');
      const cr = r.request;
      if (!cr || typeof cr.uid !== 'string' || typeof cr.desiredAPIVersion !== 'string' || !Array.isArray(cr.objects)) return fail(400, 'ConversionReview without request.uid, desiredAPIVersion and objects');
      span?.conversion(cr.desiredAPIVersion, cr.objects.length);
      return reply(res, 200, conversionReview(cr.uid, handler.convert(cr as ConversionRequest)));
    }
    const r = review as { apiVersion?: unknown; kind?: unknown; request?: Partial<AdmissionRequest> };
    if (r?.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview') {
      return fail(400, `expected an AdmissionReview of admission.k8s.io/v1, got ${String(r?.kind)} of ${String(r?.apiVersion)}`);
    }
    const ar = r.request;
    if (!ar || typeof ar.uid !== 'string' || typeof ar.operation !== 'string') return fail(400, 'AdmissionReview without request.uid and request.operation');
    let response: AdmissionResponse;
    try {
      response = await handler.handle(ar as AdmissionRequest, signal);
    } catch (err) {
      this.log.error('admission handler threw', { webhook: req.url, uid: ar.uid, error: err instanceof Error ? err.message : String(err) });
      response = errored(500, err);
    }
    span?.admission(ar as AdmissionRequest, response);
    return reply(res, 200, admissionReview(ar.uid, response));
  }
}

function admissionReview(uid: string, response: AdmissionResponse): object {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, ...response } };
}

function conversionReview(uid: string, response: ConversionResponse): object {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid, ...response } };
}

function reply(res: http.ServerResponse, status: number, body: object): number {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
  return status;
}

function readLimited(req: http.IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Aborts when the client goes away before the answer is written (one listener per response, none on the socket). */
function closedSignal(res: http.ServerResponse): AbortSignal {
  const c = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) c.abort(new Error('client closed the connection'));
  });
  return c.signal;
}
