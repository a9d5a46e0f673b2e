/**
 * Resolves a client-node `KubeConfig`'s current context once into what every request needs: the server URL, a
 * keep-alive agent carrying the TLS material (CA, client certificate/key, skip-verify, server name), and the
 * headers. Static credentials (bearer token, basic auth, impersonation) are computed once; credentials that can
 * change (exec plugins, auth providers such as the in-cluster token file, custom authenticators) are asked for
 * on every request — client-node's authenticators cache their tokens until they expire, so that is cheap.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

type Headers = Record<string, string>;

export interface ConnectionOptions {
  /** Largest number of sockets per host (default: unlimited; every open watch holds one). */
  maxSockets?: number;
}

export interface Connection {
  /** Server URL without a trailing slash; may carry a path prefix (e.g. behind a proxy). */
  readonly server: URL;
  readonly secure: boolean;
  readonly agent: http.Agent;
  /** Whether the agent is ours (and `close()` should destroy it). */
  readonly ownsAgent: boolean;
  /** Headers for one request (auth included). Returns the same object while credentials are static. */
  headers(): Promise<Headers>;
  /** `user:password` for basic auth, if configured. */
  readonly basicAuth: string | undefined;
}

type AuthOptions = https.RequestOptions & { headers?: Headers };

interface KubeConfigInternals {
  applyOptions?: (opts: AuthOptions) => Promise<void>;
  applyAuthorizationHeader?: (opts: AuthOptions) => Promise<void>;
}

/**
 * TLS options plus headers for the current context, without building an agent. Uses client-node's
 * `applyOptions` (what `applyToHTTPSOptions` runs before it builds an agent) when available, so that plain-HTTP
 * servers and proxies work; falls back to the public `applyToHTTPSOptions`.
 */
async function applyKubeConfig(kc: KubeConfig, opts: AuthOptions): Promise<void> {
  const internals = kc as unknown as KubeConfigInternals;
  if (typeof internals.applyOptions === 'function') await internals.applyOptions.call(kc, opts);
  else await kc.applyToHTTPSOptions(opts);
}

async function applyAuthorization(kc: KubeConfig, opts: AuthOptions): Promise<void> {
  const internals = kc as unknown as KubeConfigInternals;
  if (typeof internals.applyAuthorizationHeader === 'function') await internals.applyAuthorizationHeader.call(kc, opts);
  else await kc.applyToHTTPSOptions(opts);
}

/** Builds the connection for `kc`'s current context. Throws when there is no current cluster. */
export async function openConnection(kc: KubeConfig, opts: ConnectionOptions = {}): Promise<Connection> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster (set current-context or pass a context)');
  const user = kc.getCurrentUser();
  const server = new URL(cluster.server.replace(/\/+$/, ''));
  const secure = server.protocol === 'https:';
  if (!secure && server.protocol !== 'http:') throw new Error(`unsupported server URL ${cluster.server}`);

  const base: AuthOptions = { headers: {} };
  await applyKubeConfig(kc, base);
  const staticHeaders: Headers = { ...(base.headers ?? {}) };
  const basicAuth = user?.username ? `${user.username}:${user.password ?? ''}` : undefined;

  let agent: http.Agent;
  let ownsAgent = true;
  if (cluster.proxyUrl) {
    // client-node knows how to build HTTP(S)/SOCKS proxy agents; reuse its (cached) agent.
    const withAgent: AuthOptions = { headers: {} };
    await kc.applyToHTTPSOptions(withAgent);
    agent = withAgent.agent as http.Agent;
    ownsAgent = false;
  } else if (secure) {
    const tls: https.AgentOptions = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: opts.maxSockets ?? Infinity };
    if (base.ca !== undefined) tls.ca = base.ca;
    if (base.cert !== undefined) tls.cert = base.cert;
    if (base.key !== undefined) tls.key = base.key;
    if (base.pfx !== undefined) tls.pfx = base.pfx;
    if (base.passphrase !== undefined) tls.passphrase = base.passphrase;
    if (base.rejectUnauthorized !== undefined) tls.rejectUnauthorized = base.rejectUnauthorized;
    if (base.servername !== undefined) tls.servername = base.servername;
    agent = new https.Agent(tls);
  } else {
    agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 30_000, maxSockets: opts.maxSockets ?? Infinity });
  }

  const dynamic = Boolean(user && (user.exec || user.authProvider || (!user.token && !user.username && !user.certData && !user.certFile && hasCustomAuth(kc))));
  const headers = dynamic
    ? async (): Promise<Headers> => {
        const fresh: AuthOptions = { headers: {} };
        await applyAuthorization(kc, fresh);
        return { ...staticHeaders, ...(fresh.headers ?? {}) };
      }
    : (): Promise<Headers> => Promise.resolve(staticHeaders);

  return { server, secure, agent, ownsAgent, headers, basicAuth };
}

function hasCustomAuth(kc: KubeConfig): boolean {
  const custom = (kc as unknown as { custom_authenticators?: unknown[] }).custom_authenticators;
  return Array.isArray(custom) && custom.length > 0;
}
