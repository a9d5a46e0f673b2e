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
import { type ExecConfig, type ExecCluster, type ExecCredentials, type ExecProcessEnv, ExecPluginError, describeExecPlugin, validateExecConfig } from './exec-config.js';

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
