/**
 * Resolves a `RestConfig` once into what every request needs: the server URL, the TLS material (CA, client
 * certificate/key, skip-verify, server name), a keep-alive agent for HTTP/1.1, the proxy dialer when the cluster has
 * a `proxy-url`, and the headers. Static credentials (bearer token, basic auth, impersonation) are computed once;
 * credentials that can change are asked for on every request: a token file (re-read when it changes, see
 * `token-file.ts`) and an exec plugin's (`exec-authenticator.ts`: cached until they expire, so that is cheap).
 *
 * An exec plugin is used only when the config has no token, token file, client certificate or basic auth (client-go's
 * rule). It runs when the connection opens (its client certificate, if it returns one, is part of the TLS material);
 * a 401 answered to its credentials runs it again (`unauthorized`). When a later run returns a different client
 * certificate the connection is `outdated()`: the transport opens a new one (client-go closes every connection of a
 * rotated certificate too).
 */
import type http from 'node:http';
import https from 'node:https';
import type tls from 'node:tls';
import { HttpAgent } from '../node-http.js';
import { getLogger } from '../log.js';
import type { ExecAuthenticator } from './exec-authenticator.js';
import type { ExecCluster, ExecCredentials } from './exec-config.js';
import { parseProxyUrl, type ProxyDialer } from './proxy-url.js';
import type { RestConfig } from './rest-config.js';
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
  /** The HTTP/1.1 keep-alive agent (its connections go through the proxy when there is one). */
  readonly agent: http.Agent;
  /**
   * Headers for one request (auth included), names in lower case. Static credentials: the same object every time,
   * returned directly (no promise to wait for on every request); a token file or a plugin: maybe a promise.
   */
  headers(): Headers | Promise<Headers>;
  /** `user:password` for basic auth, if configured. */
  readonly basicAuth: string | undefined;
  /** The TLS material for HTTPS (HTTP/2 and undici connect with it); undefined for `http://` servers. */
  readonly tls: tls.ConnectionOptions | undefined;
  /** Opens tunnels through the cluster's `proxy-url`; undefined without one. */
  readonly proxy: ProxyDialer | undefined;
  /**
   * A request sent with `sent` (what `headers()` returned) was answered 401: an exec plugin runs again unless its
   * credentials were replaced since. Resolves when that is over; never rejects. Undefined without a plugin.
   */
  unauthorized(sent: Headers): Promise<void> | undefined;
  /** Whether an exec plugin has since returned another client certificate: open a new connection. */
  outdated(): boolean;
  /** Destroys the agent's sockets. */
  close(): void;
}

/** Builds the connection for `config`; runs its exec plugin first when it has one. Throws for a bad server URL. */
export async function openConnection(config: RestConfig, opts: ConnectionOptions = {}): Promise<Connection> {
  if (!config.server) throw new Error('RestConfig has no server');
  const { server, secure } = parseServer(config.server);
  const staticHeaders: Headers = impersonationHeaders(config);
  if (config.token && !config.tokenFile) staticHeaders['authorization'] = `Bearer ${config.token}`;
  const basicAuth = config.username ? `${config.username}:${config.password ?? ''}` : undefined;

  const hasOwnCredentials = Boolean(config.token || config.tokenFile || config.username || config.certData || config.keyData);
  // The exec and proxy code is loaded only for a config that uses it.
  const exec = config.exec && !hasOwnCredentials ? (await import('./exec-authenticator.js')).ExecAuthenticator.for(config.exec, execCluster(config)) : undefined;
  const first = exec ? await exec.credentials() : undefined;

  const tlsOptions: tls.ConnectionOptions = {};
  if (config.caData !== undefined) tlsOptions.ca = config.caData;
  const cert = first ? first.certData : config.certData;
  const key = first ? first.keyData : config.keyData;
  if (cert !== undefined) tlsOptions.cert = cert;
  if (key !== undefined) tlsOptions.key = key;
  if (config.insecureSkipTLSVerify) tlsOptions.rejectUnauthorized = false;
  if (config.tlsServerName !== undefined) tlsOptions.servername = config.tlsServerName;

  const tunnels = config.proxyUrl ? await import('./proxy-tunnel.js') : undefined;
  const proxy = tunnels && config.proxyUrl
    ? tunnels.proxyDialer(parseProxyUrl(config.proxyUrl), {
        ...(config.caData !== undefined ? { ca: config.caData } : {}),
        ...(config.insecureSkipTLSVerify ? { rejectUnauthorized: false } : {}),
      })
    : undefined;
  // noDelay: requests are small and latency-bound (no Nagle batching); lifo: reuse the warmest socket first.
  const common = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: opts.maxSockets ?? Infinity, noDelay: true, scheduling: 'lifo' as const };
  const agentOptions: https.AgentOptions = secure ? { ...common, ...tlsOptions } : common;
  const agent = tunnels && proxy ? tunnels.proxyAgent(secure, proxy, agentOptions) : secure ? new https.Agent(agentOptions) : new HttpAgent(common);

  const base = { server, secure, agent, basicAuth, tls: secure ? tlsOptions : undefined, proxy, close: () => agent.destroy() };
  if (exec && first) return { ...base, ...execHeaders(exec, first, staticHeaders) };
  if (config.tokenFile) {
    const source = new FileTokenSource(config.tokenFile, {
      ...(config.token ? { fallback: config.token } : {}),
      ...(opts.tokenFileCheckIntervalMs !== undefined ? { checkIntervalMs: opts.tokenFileCheckIntervalMs } : {}),
      logger: getLogger(),
    });
    let last: { token: string | undefined; headers: Headers } = { token: undefined, headers: staticHeaders };
    const headers = async (): Promise<Headers> => {
      const token = await source.token();
      if (token !== last.token) last = { token, headers: token ? { ...staticHeaders, authorization: `Bearer ${token}` } : staticHeaders };
      return last.headers;
    };
    return { ...base, headers, unauthorized: () => undefined, outdated: () => false };
  }
  return { ...base, headers: () => staticHeaders, unauthorized: () => undefined, outdated: () => false };
}

/** The headers, 401 and rotation hooks of a connection whose credentials come from `exec` (`first` built its TLS). */
function execHeaders(exec: ExecAuthenticator, first: ExecCredentials, staticHeaders: Headers): Pick<Connection, 'headers' | 'unauthorized' | 'outdated'> {
  // A new object per credentials, also without a token: `unauthorized` tells by identity which ones a request used.
  const headersOf = (c: ExecCredentials): Headers => (c.token ? { ...staticHeaders, authorization: `Bearer ${c.token}` } : { ...staticHeaders });
  let last = { creds: first, headers: headersOf(first) };
  let outdated = false;
  const use = (c: ExecCredentials): Headers => {
    if (c !== last.creds) {
      last = { creds: c, headers: headersOf(c) };
      if (c.certData !== first.certData || c.keyData !== first.keyData) outdated = true;
    }
    return last.headers;
  };
  // The first request uses what the connection was just opened with, even if it expires at once (one run, not two).
  let opened = true;
  return {
    headers: () => {
      if (opened) {
        opened = false;
        return last.headers;
      }
      const c = exec.credentials();
      return c instanceof Promise ? c.then(use) : use(c);
    },
    unauthorized: (sent) => (sent === last.headers ? exec.unauthorized(last.creds) : undefined),
    outdated: () => outdated,
  };
}

/** What an exec plugin with `provideClusterInfo` is told about the cluster (client-go's `ConfigToExecCluster`). */
function execCluster(config: RestConfig): ExecCluster {
  const cluster: ExecCluster = { server: config.server };
  if (config.tlsServerName !== undefined) cluster['tls-server-name'] = config.tlsServerName;
  if (config.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
  if (config.caData !== undefined) cluster['certificate-authority-data'] = Buffer.from(config.caData, 'utf8').toString('base64');
  if (config.proxyUrl !== undefined) cluster['proxy-url'] = config.proxyUrl;
  if (config.exec?.clusterConfig !== undefined) cluster.config = config.exec.clusterConfig;
  return cluster;
}

function parseServer(raw: string): { server: URL; secure: boolean } {
  const server = new URL(raw.replace(/\/+$/, ''));
  const secure = server.protocol === 'https:';
  if (!secure && server.protocol !== 'http:') throw new Error(`unsupported server URL ${raw}`);
  return { server, secure };
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
