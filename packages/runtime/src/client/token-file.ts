/**
 * A bearer token read from a file and re-read when the file changes (kubelet rotates projected service-account
 * tokens by swapping the file). client-go re-reads such a file every minute; here the file is `stat`ed at most once
 * per `checkIntervalMs` (default 10 s) and read again only when its identity, size or mtime changed.
 *
 * Contract: `token()` never throws. If the file cannot be read (or is empty) it keeps the last token it read, else
 * returns `fallback` (a static token configured alongside the file), else `undefined`; the first failure of a run
 * is logged. Not shared across processes;
 * callers own an instance each.
 */
import fs from 'node:fs/promises';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';

export interface FileTokenSourceOptions {
  /** Token to use while the file cannot be read. */
  fallback?: string;
  /** Least time between two checks of the file (default 10 000 ms). */
  checkIntervalMs?: number;
  /** Time source (tests). Only `now()` is used. */
  clock?: Pick<Clock, 'now'>;
  logger?: Pick<Logger, 'error'>;
}

const DEFAULT_CHECK_INTERVAL_MS = 10_000;

export class FileTokenSource {
  private current: string | undefined;
  private version = '';
  private checkedAt = -Infinity;
  private pending: Promise<string | undefined> | undefined;
  private failing = false;
  private readonly checkIntervalMs: number;
  private readonly now: () => number;

  constructor(
    readonly file: string,
    private readonly opts: FileTokenSourceOptions = {},
  ) {
    this.checkIntervalMs = opts.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
    const clock = opts.clock;
    this.now = clock ? () => clock.now() : Date.now;
  }

  /** The token to send now (see the contract above). Concurrent callers share one file check. */
  token(): Promise<string | undefined> {
    if (this.now() - this.checkedAt < this.checkIntervalMs) return Promise.resolve(this.current ?? this.opts.fallback);
    this.pending ??= this.refresh().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async refresh(): Promise<string | undefined> {
    try {
      const st = await fs.stat(this.file);
      const version = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
      if (version !== this.version || this.current === undefined) {
        const text = (await fs.readFile(this.file, 'utf8')).trim();
        if (text === '') throw new Error('token file is empty');
        this.current = text;
        this.version = version;
      }
      this.failing = false;
    } catch (err) {
      // Logged once per run of failures, not at every check.
      if (!this.failing) this.opts.logger?.error('cannot read bearer token file, keeping the previous token', { file: this.file, error: err });
      this.failing = true;
    }
    this.checkedAt = this.now();
    return this.current ?? this.opts.fallback;
  }
}
