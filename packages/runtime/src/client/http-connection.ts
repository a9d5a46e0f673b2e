/**
 * Resolves a `RestConfig`, or a client-node `KubeConfig`'s current context, once into what every request needs: the
 * server URL, a keep-alive agent carrying the TLS material (CA, client certificate/key, skip-verify, server name),
 * and the headers. Static credentials (bearer token, basic auth, impersonation) are computed once; credentials that
 * can change are asked for on every request: a `RestConfig`'s token file (re-read when it changes, see
 * `token-file.ts`), and a `KubeConfig`'s exec plugins, auth providers (such as the in-cluster token file) and custom
 * authenticators — client-node's authenticators cache their tokens until they expire, so that is cheap.
 * A `RestConfig` never loads `@kubernetes/client-node`, except for its proxy agents when `proxyUrl` is set.
 */
import type http from 'node:http';
import { HttpAgent } from '../node-http.js';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { getLogger } from '../log.js';
import { isRestConfig, restConfigToKubeConfig, type RestConfig } from './rest-config.js';
import { FileTokenSource } from './token-file.js';

type Headers = Record<string, string | string[]>;

export interface ConnectionOptions {
  /** Largest number of sockets per host (default: unlimited; every open watch holds one). */
  maxSockets?: number;
  /** Least time between checks of a `RestConfig.tokenFile` for a rotated token (default 10 000 ms). */
  tokenFileCheckIntervalMs?: number;
}

export interface Connection {
  /** Server URL without a trailing slash; may carry a path prefix (e.g. behind a proxy). */
  readonly server: URL;
  readonly secure: boolean;
  readonly agent: http.Agent;
  /** Whether the agent is ours (and `close()` should destroy it). */
  readonly ownsAgent: boolean;
  /**
   * Headers for one request (auth included), names in lower case. Static credentials: the same object every time,
   * returned directly (no promise to wait for on every request); a token file or a plugin: a promise.
   */
  headers(): Headers | Promise<Headers>;
  /** `user:password` for basic auth, if configured. */
  readonly basicAuth: string | undefined;
  /** The TLS material of `agent`, for a direct HTTPS connection (HTTP/2); undefined through a proxy or for http. */
  readonly tls: https.AgentOptions | undefined;
}

type AuthOptions = https.RequestOptions & { headers?: Record<string, string> };

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

/** Builds the connection for `config` (a `KubeConfig`'s current context). Throws when there is no current cluster. */
export async function openConnection(config: RestConfig | KubeConfig, opts: ConnectionOptions = {}): Promise<Connection> {
  return isRestConfig(config) ? openRestConnection(config, opts) : openKubeConfigConnection(config, opts);
}

function parseServer(raw: string): { server: URL; secure: boolean } {
  const server = new URL(raw.replace(/\/+$/, ''));
  const secure = server.protocol === 'https:';
  if (!secure && server.protocol !== 'http:') throw new Error(`unsupported server URL ${raw}`);
  return { server, secure };
}

function keepAliveAgent(secure: boolean, opts: ConnectionOptions, tls: https.AgentOptions): http.Agent {
  // noDelay: requests are small and latency-bound (no Nagle batching); lifo: reuse the warmest socket first.
  const common = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: opts.maxSockets ?? Infinity, noDelay: true, scheduling: 'lifo' as const };
  return secure ? new https.Agent({ ...common, ...tls }) : new HttpAgent(common);
}

async function openRestConnection(config: RestConfig, opts: ConnectionOptions): Promise<Connection> {
  if (!config.server) throw new Error('RestConfig has no server');
  const { server, secure } = parseServer(config.server);
  const staticHeaders: Headers = impersonationHeaders(config);
  if (config.token && !config.tokenFile) staticHeaders['authorization'] = `Bearer ${config.token}`;
  const basicAuth = config.username ? `${config.username}:${config.password ?? ''}` : undefined;

  let agent: http.Agent;
  let ownsAgent = true;
  let direct: https.AgentOptions | undefined;
  if (config.proxyUrl) {
    // Proxy agents (HTTP(S) CONNECT, SOCKS) come from client-node; reuse its cached agent.
    const withAgent: AuthOptions = { headers: {} };
    await restConfigToKubeConfig(config).applyToHTTPSOptions(withAgent);
    agent = withAgent.agent as http.Agent;
    ownsAgent = false;
  } else {
    const tls: https.AgentOptions = {};
    if (config.caData !== undefined) tls.ca = config.caData;
    if (config.certData !== undefined) tls.cert = config.certData;
    if (config.keyData !== undefined) tls.key = config.keyData;
    if (config.insecureSkipTLSVerify) tls.rejectUnauthorized = false;
    if (config.tlsServerName !== undefined) tls.servername = config.tlsServerName;
    agent = keepAliveAgent(secure, opts, tls);
    if (secure) direct = tls;
  }

  let headers: () => Headers | Promise<Headers>;
  if (config.tokenFile) {
    const source = new FileTokenSource(config.tokenFile, {
      ...(config.token ? { fallback: config.token } : {}),
      ...(opts.tokenFileCheckIntervalMs !== undefined ? { checkIntervalMs: opts.tokenFileCheckIntervalMs } : {}),
      logger: getLogger(),
    });
    let last: { token: string | undefined; headers: Headers } = { token: undefined, headers: staticHeaders };
    headers = async () => {
      const token = await source.token();
      if (token !== last.token) last = { token, headers: token ? { ...staticHeaders, authorization: `Bearer ${token}` } : staticHeaders };
      return last.headers;
    };
  } else {
    headers = () => staticHeaders;
  }
  return { server, secure, agent, ownsAgent, headers, basicAuth, tls: direct };
}

function impersonationHeaders(config: RestConfig): Headers {
  const out: Headers = {};
  const imp = config.impersonate;
  if (!imp) return out;
  if (imp.user) out['impersonate-user'] = imp.user;
  if (imp.uid) out['impersonate-uid'] = imp.uid;
  if (imp.groups?.length) out['impersonate-group'] = [...imp.groups];
  for (const [key, values] of Object.entries(imp.extra ?? {})) out[`impersonate-extra-${encodeURIComponent(key)}`] = [...values];
  return out;
}

async function openKubeConfigConnection(kc: KubeConfig, opts: ConnectionOptions): Promise<Connection> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster (set current-context or pass a context)');
  const user = kc.getCurrentUser();
  const { server, secure } = parseServer(cluster.server);

  const base: AuthOptions = { headers: {} };
  await applyKubeConfig(kc, base);
  const staticHeaders: Headers = lowerCaseNames(base.headers ?? {});
  const basicAuth = user?.username ? `${user.username}:${user.password ?? ''}` : undefined;

  let agent: http.Agent;
  let ownsAgent = true;
  let direct: https.AgentOptions | undefined;
  if (cluster.proxyUrl) {
    // client-node knows how to build HTTP(S)/SOCKS proxy agents; reuse its (cached) agent.
    const withAgent: AuthOptions = { headers: {} };
    await kc.applyToHTTPSOptions(withAgent);
    agent = withAgent.agent as http.Agent;
    ownsAgent = false;
  } else {
    const tls: https.AgentOptions = {};
    if (base.ca !== undefined) tls.ca = base.ca;
    if (base.cert !== undefined) tls.cert = base.cert;
    if (base.key !== undefined) tls.key = base.key;
    if (base.pfx !== undefined) tls.pfx = base.pfx;
    if (base.passphrase !== undefined) tls.passphrase = base.passphrase;
    if (base.rejectUnauthorized !== undefined) tls.rejectUnauthorized = base.rejectUnauthorized;
    if (base.servername !== undefined) tls.servername = base.servername;
    agent = keepAliveAgent(secure, opts, tls);
    if (secure) direct = tls;
  }

  const dynamic = Boolean(user && (user.exec || user.authProvider || (!user.token && !user.username && !user.certData && !user.certFile && hasCustomAuth(kc))));
  const headers = dynamic
    ? async (): Promise<Headers> => {
        const fresh: AuthOptions = { headers: {} };
        await applyAuthorization(kc, fresh);
        return { ...staticHeaders, ...lowerCaseNames(fresh.headers ?? {}) };
      }
    : (): Headers => staticHeaders;

  return { server, secure, agent, ownsAgent, headers, basicAuth, tls: direct };
}

/** A copy of `headers` with lower-case names (HTTP/2's only form; the transport adds its own in lower case too). */
function lowerCaseNames(headers: Record<string, string | string[]>): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function hasCustomAuth(kc: KubeConfig): boolean {
  const custom = (kc as unknown as { custom_authenticators?: unknown[] }).custom_authenticators;
  return Array.isArray(custom) && custom.length > 0;
}
