/**
 * What a kubeconfig `exec` credential plugin is (client-go's `clientcmdapi.ExecConfig`) and how it is checked and
 * named in errors, apart from running it (`exec-plugin.ts`), so that reading a kubeconfig does not load the code that
 * starts processes. Contract: `validateExecConfig` throws an `ExecPluginError` naming the user for a config client-go
 * would refuse, and fills in `v1beta1`'s default interactive mode.
 */

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
