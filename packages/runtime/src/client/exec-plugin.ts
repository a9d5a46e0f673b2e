/**
 * One run of a kubeconfig `exec` credential plugin (client-go's `plugin/pkg/client/auth/exec`, API group
 * `client.authentication.k8s.io`, versions `v1` and `v1beta1`): the command is started with its args, the
 * environment of this process plus the config's `env`, and `KUBERNETES_EXEC_INFO` (an `ExecCredential` whose spec
 * says whether the plugin may talk to the user and, with `provideClusterInfo`, which cluster it authenticates to);
 * it must print an `ExecCredential` of the same apiVersion whose status holds a bearer token, or a client certificate
 * and key, or both, and may say when they expire.
 *
 * Interactive mode, as client-go: `Never` gives the plugin no stdin; `IfAvailable` (the default of `v1beta1`) gives
 * it this process's stdin when that is a terminal; `Always` requires one and fails at once without it. An
 * interactive plugin shares this process's stdin and stderr (its prompts reach the user); otherwise its stderr is
 * kept, and its last lines are quoted when it fails (client-go copies it to stderr; a controller's log is the better
 * place for it).
 *
 * Contract: `runExecPlugin` resolves with the credentials, or rejects with an `ExecPluginError` whose message names
 * the kubeconfig user and the command and says what went wrong (not found — with the config's `installHint` —,
 * exit code and stderr, output that is not an `ExecCredential`, no credentials, a certificate without its key).
 * Nothing here caches or retries: `exec-authenticator.ts` does. The plugin's output is never put into an error
 * (it holds secrets); only its size and what is wrong with it.
 */
import tls from 'node:tls';

/** The `client.authentication.k8s.io` versions a plugin may speak (client-go 1.36's: `v1alpha1` is gone). */
export const EXEC_API_VERSIONS: readonly string[] = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** Whether a plugin may talk to the user on this process's terminal (client-go's `ExecInteractiveMode`). */
export type ExecInteractiveMode = 'Never' | 'IfAvailable' | 'Always';
const INTERACTIVE_MODES: readonly string[] = ['Never', 'IfAvailable', 'Always'];

/** One `env` entry of an exec config. */
export interface ExecEnvVar {
  name: string;
  value: string;
}

/**
 * A kubeconfig user's `exec` section (client-go's `clientcmdapi.ExecConfig`, same field names), plus what the
 * kubeconfig around it says: the user's name and the cluster's `client.authentication.k8s.io/exec` extension.
 */
export interface ExecConfig {
  /** `client.authentication.k8s.io/v1` or `…/v1beta1`: the version of `ExecCredential` exchanged. */
  apiVersion: string;
  /** The program: a name looked up on `PATH`, or a path (relative ones are resolved against the kubeconfig's folder). */
  command: string;
  args?: string[];
  /** Added to this process's environment. */
  env?: ExecEnvVar[];
  /** Shown when the command is not found (how to install it). */
  installHint?: string;
  /** Pass the cluster (server, CA, proxy, the extension) to the plugin in `KUBERNETES_EXEC_INFO`. */
  provideClusterInfo?: boolean;
  /** Required with `v1`; `v1beta1` defaults to `IfAvailable`. */
  interactiveMode?: ExecInteractiveMode;
  /** The kubeconfig user this belongs to, named in errors. */
  user?: string;
  /** The cluster's `client.authentication.k8s.io/exec` extension (`spec.cluster.config` with `provideClusterInfo`). */
  clusterConfig?: unknown;
}

/** The cluster as a plugin sees it with `provideClusterInfo` (`client.authentication.k8s.io` `Cluster`, wire names). */
export interface ExecCluster {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the PEM certificate authorities. */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  config?: unknown;
}

/** What a plugin returned. */
export interface ExecCredentials {
  /** Bearer token. */
  token?: string;
  /** PEM client certificate and key (always both or neither). */
  certData?: string;
  keyData?: string;
  /** When they expire (ms since the epoch); undefined: they do not (they are replaced only after a 401). */
  expiresAt?: number;
}

/** What a plugin run needs from this process (tests pass their own). */
export interface ExecProcessEnv {
  /** Whether stdin is a terminal (default: `process.stdin.isTTY`). */
  stdinIsTerminal?: boolean;
  /** The environment the plugin inherits (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** A plugin that could not be run or returned nothing usable; the message names the user and the command. */
export class ExecPluginError extends Error {
  override readonly name = 'ExecPluginError';
}

/** How an exec config is named in errors: `kubeconfig user "u": exec plugin "cmd"`. */
export function describeExecPlugin(config: Pick<ExecConfig, 'command' | 'user'>): string {
  return `${config.user !== undefined ? `kubeconfig user ${JSON.stringify(config.user)}: ` : ''}exec plugin ${JSON.stringify(config.command)}`;
}

/**
 * Checks an exec config as client-go's kubeconfig validation and `newAuthenticator` do, and fills in `v1beta1`'s
 * default interactive mode. Throws an `ExecPluginError` naming the user for a missing command or apiVersion, an
 * apiVersion other than `v1`/`v1beta1`, a missing (`v1`) or unknown interactive mode, or an env entry without a name.
 */
export function validateExecConfig(config: ExecConfig): ExecConfig {
  const who = config.user !== undefined ? `kubeconfig user ${JSON.stringify(config.user)}` : 'exec config';
  const fail = (what: string): never => {
    throw new ExecPluginError(`${who}: ${what}`);
  };
  if (typeof config.command !== 'string' || config.command === '') fail('exec: command must be specified');
  if (typeof config.apiVersion !== 'string' || config.apiVersion === '') fail(`exec: apiVersion must be specified (one of ${EXEC_API_VERSIONS.join(', ')})`);
  if (!EXEC_API_VERSIONS.includes(config.apiVersion)) fail(`exec: apiVersion ${JSON.stringify(config.apiVersion)} is not supported (one of ${EXEC_API_VERSIONS.join(', ')})`);
  for (const [i, v] of (config.env ?? []).entries()) {
    if (typeof v?.name !== 'string' || v.name === '') fail(`exec: env[${i}].name must be specified`);
  }
  let mode = config.interactiveMode;
  if (mode === undefined || (mode as string) === '') {
    if (config.apiVersion !== 'client.authentication.k8s.io/v1beta1') fail('exec: interactiveMode must be specified (Never, IfAvailable or Always)');
    mode = 'IfAvailable';
  }
  if (!INTERACTIVE_MODES.includes(mode)) fail(`exec: interactiveMode ${JSON.stringify(mode)} is not one of Never, IfAvailable, Always`);
  return { ...config, interactiveMode: mode };
}

/** Most of a failed plugin's stderr quoted in the error (its end: where the reason usually is). */
const STDERR_QUOTE_BYTES = 2048;

/**
 * Runs the plugin once (see the module comment). `cluster` is passed when the config asks for it
 * (`provideClusterInfo`). Rejects with an `ExecPluginError`.
 */
export async function runExecPlugin(input: ExecConfig, cluster: ExecCluster | undefined, io: ExecProcessEnv = {}): Promise<ExecCredentials> {
  const config = validateExecConfig(input);
  const what = describeExecPlugin(config);
  const terminal = io.stdinIsTerminal ?? process.stdin.isTTY === true;
  let interactive = false;
  if (config.interactiveMode === 'IfAvailable') interactive = terminal;
  if (config.interactiveMode === 'Always') {
    if (!terminal) throw new ExecPluginError(`${what} needs an interactive terminal (interactiveMode: Always), but standard input is not a terminal`);
    interactive = true;
  }
  const info = {
    kind: 'ExecCredential',
    apiVersion: config.apiVersion,
    spec: { ...(config.provideClusterInfo && cluster ? { cluster } : {}), interactive },
  };
  const env: NodeJS.ProcessEnv = { ...(io.env ?? process.env) };
  for (const v of config.env ?? []) env[v.name] = v.value;
  env['KUBERNETES_EXEC_INFO'] = JSON.stringify(info);

  // Loaded on first use: a controller whose kubeconfig has no exec user never pays for child_process.
  const { spawn } = await import('node:child_process');
  const stdout = await new Promise<Buffer>((resolve, reject) => {
    const child = spawn(config.command, config.args ?? [], { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', interactive ? 'inherit' : 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => {
      err = (err + c.toString('utf8')).slice(-STDERR_QUOTE_BYTES);
    });
    child.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') {
        reject(new ExecPluginError(`${what}: executable ${config.command} not found${config.installHint ? `\n\n${config.installHint}` : ''}`));
      } else {
        reject(new ExecPluginError(`${what}: cannot run ${config.command}: ${e.message}`));
      }
    });
    child.once('close', (code, signal) => {
      const quoted = err.trim() ? `: ${err.trim()}` : '';
      if (signal) reject(new ExecPluginError(`${what}: executable ${config.command} was killed by ${signal}${quoted}`));
      else if (code !== 0) reject(new ExecPluginError(`${what}: executable ${config.command} failed with exit code ${code}${quoted}`));
      else resolve(Buffer.concat(out));
    });
  });
  return decodeExecCredential(stdout, config, what);
}

/** Reads the plugin's stdout as client-go does (`refreshCredsLocked`); throws an `ExecPluginError` saying what is wrong. */
function decodeExecCredential(stdout: Buffer, config: ExecConfig, what: string): ExecCredentials {
  let cred: unknown;
  try {
    cred = JSON.parse(stdout.toString('utf8'));
  } catch {
    throw new ExecPluginError(`${what}: printed ${stdout.length} bytes that are not an ExecCredential in JSON`);
  }
  if (typeof cred !== 'object' || cred === null || Array.isArray(cred)) throw new ExecPluginError(`${what}: printed JSON that is not an ExecCredential object`);
  const { kind, apiVersion, status } = cred as { kind?: unknown; apiVersion?: unknown; status?: unknown };
  if (kind !== 'ExecCredential') throw new ExecPluginError(`${what}: printed kind ${JSON.stringify(kind ?? null)}, not ExecCredential`);
  if (apiVersion !== config.apiVersion) {
    throw new ExecPluginError(`${what}: is configured for API version ${config.apiVersion}, but printed version ${JSON.stringify(apiVersion ?? null)}`);
  }
  if (typeof status !== 'object' || status === null) throw new ExecPluginError(`${what}: didn't return a status field`);
  const s = status as Record<string, unknown>;
  const field = (name: string): string | undefined => {
    const v = s[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new ExecPluginError(`${what}: status.${name} is not a string`);
    return v;
  };
  const token = field('token');
  const certData = field('clientCertificateData');
  const keyData = field('clientKeyData');
  const expiration = field('expirationTimestamp');
  if (token === undefined && certData === undefined && keyData === undefined) throw new ExecPluginError(`${what}: didn't return a token or cert/key pair`);
  if ((certData === undefined) !== (keyData === undefined)) throw new ExecPluginError(`${what}: returned only certificate or key, not both`);
  const out: ExecCredentials = {};
  if (token !== undefined) out.token = token;
  if (certData !== undefined && keyData !== undefined) {
    try {
      tls.createSecureContext({ cert: certData, key: keyData });
    } catch (err) {
      throw new ExecPluginError(`${what}: failed parsing client key/certificate: ${(err as Error).message}`);
    }
    out.certData = certData;
    out.keyData = keyData;
  }
  if (expiration !== undefined) {
    const at = Date.parse(expiration);
    if (!Number.isFinite(at)) throw new ExecPluginError(`${what}: status.expirationTimestamp ${JSON.stringify(expiration)} is not an RFC 3339 time`);
    out.expiresAt = at;
  }
  return out;
}
