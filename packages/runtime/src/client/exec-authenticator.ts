/**
 * `ExecAuthenticator`: the credentials of one kubeconfig `exec` plugin, as client-go's exec `Authenticator` keeps
 * them. The plugin runs when credentials are first needed; what it returned is used until its
 * `expirationTimestamp` has passed (no expiry: until a 401), then it runs again. A 401 answered to a request sent
 * with the current credentials runs it again (`unauthorized`); one answered to credentials already replaced does
 * not. Requests that need credentials while the plugin runs wait for that one run: never two runs at once.
 *
 * Authenticators are shared by every transport of the process with the same exec config and cluster
 * (`ExecAuthenticator.for`, client-go's global cache), so transports made one after another (a Clientset, a
 * manager's cluster, a leader election) run the plugin once between them.
 *
 * Contract: `credentials()` returns the cached credentials directly while they are valid (no promise to wait for on
 * every request), else a promise of the next run; a failed run rejects every caller waiting for it with the
 * plugin's `ExecPluginError` and keeps the credentials it had (expired ones make the next call run the plugin again;
 * ones a 401 condemned stay in use, as in client-go). `unauthorized()` never rejects
 * (a failed run is logged; the caller already has its 401).
 */
import type { Clock } from '../clock.js';
import { getLogger, type Logger } from '../log.js';
import { describeExecPlugin, type ExecCluster, type ExecConfig, type ExecCredentials, type ExecProcessEnv } from './exec-config.js';
import { runExecPlugin } from './exec-plugin.js';

/** Settings of an `ExecAuthenticator` made directly (tests); `ExecAuthenticator.for` uses the defaults. */
export interface ExecAuthenticatorOptions {
  /** Wall-clock time source for `expirationTimestamp` (default `Date.now`). */
  clock?: Pick<Clock, 'now'>;
  /** What the plugin inherits from this process (default: its stdin's terminal state and its environment). */
  processEnv?: ExecProcessEnv;
  logger?: Pick<Logger, 'error'>;
}

const shared = new Map<string, ExecAuthenticator>();

export class ExecAuthenticator {
  private cached: ExecCredentials | undefined;
  private running: Promise<ExecCredentials> | undefined;
  private readonly clock: Pick<Clock, 'now'>;
  /** How many times the plugin was started (for tests and metrics). */
  runs = 0;

  constructor(
    private readonly config: ExecConfig,
    private readonly cluster: ExecCluster | undefined,
    private readonly opts: ExecAuthenticatorOptions = {},
  ) {
    this.clock = opts.clock ?? { now: Date.now };
  }

  /** The process-wide authenticator of `config` and `cluster` (made on first use). */
  static for(config: ExecConfig, cluster: ExecCluster | undefined): ExecAuthenticator {
    const key = JSON.stringify([config, cluster ?? null]);
    let a = shared.get(key);
    if (!a) {
      a = new ExecAuthenticator(config, cluster);
      shared.set(key, a);
    }
    return a;
  }

  /** The current credentials, running the plugin when there are none or they expired (see the module comment). */
  credentials(): ExecCredentials | Promise<ExecCredentials> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || this.clock.now() <= c.expiresAt)) return c;
    return this.refresh();
  }

  /**
   * A request sent with `used` was answered 401: run the plugin again unless that already happened (client-go's
   * `maybeRefreshCreds`). Resolves when the run (this one or the one under way) is over.
   */
  async unauthorized(used: ExecCredentials): Promise<void> {
    if (this.running) {
      await this.running.catch(() => undefined);
      return;
    }
    if (used !== this.cached) return;
    try {
      await this.refresh();
    } catch (err) {
      (this.opts.logger ?? getLogger()).error('refreshing credentials after 401 Unauthorized failed', {
        plugin: describeExecPlugin(this.config),
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private refresh(): Promise<ExecCredentials> {
    if (!this.running) {
      this.runs++;
      const run = runExecPlugin(this.config, this.cluster, this.opts.processEnv).then(
        (creds) => {
          this.cached = creds;
          this.running = undefined;
          return creds;
        },
        (err: unknown) => {
          this.running = undefined;
          throw err;
        },
      );
      this.running = run;
    }
    return this.running;
  }
}
