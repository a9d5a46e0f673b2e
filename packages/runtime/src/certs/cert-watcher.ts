/**
 * `CertWatcher` (controller-runtime `pkg/certwatcher`): the serving certificate and key of an HTTPS server, read
 * from two files in a folder and reloaded when they change, so a rotated certificate (cert-manager renewing its
 * Secret, `writeServingCertificate`) is served to new connections without a restart. Shared by the webhook server
 * and the secured metrics server.
 *
 * Changes are seen through file-change events on the folder and, for volumes that do not deliver them, a poll
 * (every 10 s by default). A pair that cannot be read, or whose certificate and key do not match (mid-rotation), is
 * logged and the previous pair kept; nothing here throws after `start`.
 */
import fs from 'node:fs';
import path from 'node:path';
import https from 'node:https';
import type http from 'node:http';
import type { Logger } from '../log.js';

/** Where a {@link CertWatcher} reads its pair, and how it reports. */
export interface CertWatcherOptions {
  /** Folder of the certificate and key. */
  certDir: string;
  /** Certificate file name in `certDir` (default `tls.crt`). */
  certName?: string;
  /** Key file name in `certDir` (default `tls.key`). */
  keyName?: string;
  /** How often the files are checked besides file-change events (default 10 000 ms). */
  pollIntervalMs?: number;
  /** Who serves the certificate, for log lines and errors (`webhook`, `metrics`). */
  owner: string;
  /** Appended to the error of an unreadable pair: how to provide one. */
  hint?: string;
  logger: Logger;
}

/** A PEM certificate and key. */
export interface CertificatePair {
  cert: Buffer;
  key: Buffer;
}

/** TLS settings every HTTPS server of the runtime uses. */
export const MIN_TLS_VERSION = 'TLSv1.2';

/**
 * An HTTPS server (TLS 1.2+) for the runtime's endpoints (webhooks, secured metrics) serving `pair`: failed
 * handshakes are logged at debug level and malformed requests close their socket, never the process. Throws when the
 * certificate or key does not load.
 */
export function createTlsServer(pair: { cert: Buffer | string; key: Buffer | string }, listener: http.RequestListener, log: Logger): https.Server {
  const server = https.createServer({ cert: pair.cert, key: pair.key, minVersion: MIN_TLS_VERSION }, listener);
  server.on('tlsClientError', (err) => log.debug('TLS handshake failed', { error: err.message }));
  server.on('clientError', (err, socket) => socket.destroy(err));
  return server;
}

/** Reads a serving certificate pair from files and keeps an HTTPS server's copy up to date (module comment). */
export class CertWatcher {
  private readonly opts: CertWatcherOptions;
  private server: https.Server | undefined;
  private current = '';
  private watcher: fs.FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(opts: CertWatcherOptions) {
    this.opts = opts;
  }

  /** The two file paths. */
  files(): { cert: string; key: string } {
    const dir = this.opts.certDir;
    return { cert: path.join(dir, this.opts.certName ?? 'tls.crt'), key: path.join(dir, this.opts.keyName ?? 'tls.key') };
  }

  /** Reads the pair; throws an Error naming both files (and the hint) when either cannot be read. */
  read(): CertificatePair {
    const files = this.files();
    try {
      return { cert: fs.readFileSync(files.cert), key: fs.readFileSync(files.key) };
    } catch (err) {
      throw new Error(`${this.opts.owner} server: cannot read its certificate ${files.cert} and key ${files.key} (${(err as Error).message})` +
        (this.opts.hint ? `; ${this.opts.hint}` : ''));
    }
  }

  /** Starts keeping `server` on the newest pair; `pair` is what it was created with. */
  start(server: https.Server, pair: CertificatePair): void {
    this.server = server;
    this.current = fingerprint(pair);
    const dir = path.dirname(this.files().cert);
    let timer: NodeJS.Timeout | undefined;
    try {
      this.watcher = fs.watch(dir, () => {
        clearTimeout(timer);
        timer = setTimeout(() => this.reload(), 100);
        timer.unref();
      });
      this.watcher.on('error', () => undefined);
    } catch {
      // Folder not watchable (some volume types): the poll below still picks changes up.
    }
    this.poll = setInterval(() => this.reload(), this.opts.pollIntervalMs ?? 10_000);
    this.poll.unref();
  }

  /** Loads the files again if they changed; returns whether a new pair is now served. Never throws. */
  reload(): boolean {
    const server = this.server;
    if (!server) return false;
    const log = this.opts.logger;
    let pair: CertificatePair;
    try {
      pair = this.read();
    } catch (err) {
      log.error(`${this.opts.owner} certificate unreadable; keeping the previous one`, { error: (err as Error).message });
      return false;
    }
    const fp = fingerprint(pair);
    if (fp === this.current) return false;
    try {
      server.setSecureContext({ cert: pair.cert, key: pair.key, minVersion: MIN_TLS_VERSION });
    } catch (err) {
      // Mid-rotation the new certificate may meet the old key: keep serving, the next change completes the pair.
      log.warn(`${this.opts.owner} certificate and key do not load together yet; keeping the previous pair`, { error: (err as Error).message });
      return false;
    }
    this.current = fp;
    log.info(`${this.opts.owner} certificate reloaded`);
    return true;
  }

  /** Stops watching (the server keeps its current pair). */
  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    this.server = undefined;
  }
}

function fingerprint(pair: CertificatePair): string {
  return `${pair.cert.toString('base64')}|${pair.key.toString('base64')}`;
}
