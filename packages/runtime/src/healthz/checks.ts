/**
 * Named health checks and their HTTP rendering (controller-runtime `pkg/healthz`).
 *
 * A check passes when it returns (or resolves) anything but `false`; it fails when it returns `false`, throws or
 * rejects. The aggregated endpoint answers `200 ok` when all pass, otherwise `500` with one line per check
 * (`[+]name ok` / `[-]name failed: reason withheld`); `?verbose` lists the lines on success too and
 * `?exclude=name` skips a check. `<path>/<name>` runs one check: `200 ok` (followed by the detail a passing check
 * returned as a string, on lines of their own), `500 internal server error: <reason>`, or 404 for an unknown name. With no checks registered a built-in `ping` passes.
 */
import type http from 'node:http';
import type { Logger } from '../log.js';

/**
 * A health check (controller-runtime's `healthz.Checker`): passes unless it returns or resolves `false`, throws or
 * rejects.
 */
export type HealthChecker = () => unknown;

/** Always healthy (`healthz.Ping`). */
export const ping: HealthChecker = () => true;

interface CheckStatus {
  name: string;
  healthy: boolean;
  excluded: boolean;
}

/** The named checks behind one endpoint, `healthz` or `readyz`, and how it is served (see the module comment). */
export class HealthCheckSet {
  private readonly checks = new Map<string, HealthChecker>();

  constructor(readonly kind: 'healthz' | 'readyz') {}

  /** Adds a named check; names must be unique, non-empty and free of `/`. */
  add(name: string, check: HealthChecker): void {
    if (!name || name.includes('/')) throw new TypeError(`invalid ${this.kind} check name "${name}"`);
    if (this.checks.has(name)) throw new Error(`${this.kind} check "${name}" is already registered`);
    this.checks.set(name, check);
  }

  /** Removes a check; false when there was none of that name. */
  remove(name: string): boolean {
    return this.checks.delete(name);
  }

  names(): string[] {
    return [...this.checks.keys()];
  }

  /** Runs one check: undefined when it passed, else the reason. */
  async run(name: string): Promise<string | undefined> {
    return (await this.outcome(name)).reason;
  }

  /** Runs one check: the reason it failed, or the detail a passing check returned as a string. */
  private async outcome(name: string): Promise<{ reason?: string; detail?: string }> {
    const check = this.checks.get(name);
    if (check === undefined) return { reason: `no check named ${name}` };
    try {
      const ok = await check();
      if (ok === false) return { reason: 'check returned false' };
      return typeof ok === 'string' && ok !== '' ? { detail: ok } : {};
    } catch (err) {
      return { reason: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Serves `basePath` (aggregated) and `basePath/<name>`; returns false when the URL is not under `basePath`. */
  async serve(basePath: string, req: http.IncomingMessage, res: http.ServerResponse, log: Logger): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === basePath || path === `${basePath}/`) {
      await this.serveAggregated(url, res, log);
      return true;
    }
    if (!path.startsWith(`${basePath}/`)) return false;
    const name = decodeURIComponent(path.slice(basePath.length + 1));
    if (!this.checks.has(name) && !(name === 'ping' && this.checks.size === 0)) {
      text(res, 404, '404 page not found\n');
      return true;
    }
    const { reason, detail } = this.checks.size === 0 ? {} : await this.outcome(name);
    if (reason === undefined) text(res, 200, detail === undefined ? 'ok' : `ok\n${detail}\n`);
    else text(res, 500, `internal server error: ${reason}\n`);
    return true;
  }

  private async serveAggregated(url: URL, res: http.ServerResponse, log: Logger): Promise<void> {
    const excluded = new Set(url.searchParams.getAll('exclude').flatMap((e) => e.split(',')).filter((e) => e !== ''));
    const verbose = url.searchParams.has('verbose');
    const parts: CheckStatus[] = [];
    let failed = false;
    for (const name of this.checks.keys()) {
      if (excluded.delete(name)) {
        parts.push({ name, healthy: true, excluded: true });
        continue;
      }
      const reason = await this.run(name);
      if (reason !== undefined) {
        log.debug(`${this.kind} check failed`, { checker: name, error: reason });
        failed = true;
      }
      parts.push({ name, healthy: reason === undefined, excluded: false });
    }
    if (this.checks.size === 0) parts.push({ name: 'ping', healthy: true, excluded: false });
    parts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (!failed && !verbose) {
      text(res, 200, 'ok');
      return;
    }
    let body = '';
    for (const p of parts) {
      if (p.excluded) body += `[+]${p.name} excluded: ok\n`;
      else if (p.healthy) body += `[+]${p.name} ok\n`;
      else body += `[-]${p.name} failed: reason withheld\n`;
    }
    if (excluded.size > 0) body += `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((e) => `"${e}"`).join(',')}\n`;
    if (failed) {
      log.info(`${this.kind} check failed`, { statuses: parts.map((p) => `${p.healthy ? '+' : '-'}${p.name}`) });
      body += `${this.kind} check failed\n`;
    } else {
      body += `${this.kind} check passed\n`;
    }
    text(res, failed ? 500 : 200, body);
  }
}

function text(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}
