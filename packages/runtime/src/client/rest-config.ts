/**
 * `RestConfig`: everything needed to reach one apiserver as one user, resolved into plain values (client-go's
 * `rest.Config`). Produced by `loadRestConfig()` from a kubeconfig or the pod's service account; consumed by
 * `HttpTransport`. A `RestConfig` is plain data: the transport never mutates it, and callers should not mutate one a
 * transport already uses (it is read once, when the first request is sent).
 */
import fs from 'node:fs';
import net from 'node:net';
import type { ExecConfig } from './exec-config.js';

/** Where Kubernetes mounts a pod's service-account credentials. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Who to act as (client-go's `rest.ImpersonationConfig`): sent as `Impersonate-*` headers with every request. */
export interface Impersonation {
  /** `Impersonate-User`. */
  user?: string;
  /** `Impersonate-Uid`. */
  uid?: string;
  /** One `Impersonate-Group` header each. */
  groups?: string[];
  /** `Impersonate-Extra-<key>` headers. */
  extra?: Record<string, string[]>;
}

/**
 * How to reach one apiserver as one user (client-go's `rest.Config`), as plain data (see the module comment).
 * Only `server` is required; with no credentials, requests are anonymous.
 */
export interface RestConfig {
  /** Server URL (`https://host:port`, maybe with a path prefix). */
  server: string;
  /** PEM certificate authorities to trust (default: Node's built-in roots). */
  caData?: string;
  /** PEM client certificate. */
  certData?: string;
  /** PEM client key. */
  keyData?: string;
  /** Bearer token. With `tokenFile` too, it is used only while the file cannot be read. */
  token?: string;
  /** File holding a bearer token; re-read when it changes (rotated service-account tokens). Wins over `token`. */
  tokenFile?: string;
  /** Basic auth. */
  username?: string;
  password?: string;
  /** Do not verify the server's certificate. */
  insecureSkipTLSVerify?: boolean;
  /** Server name for SNI and certificate verification, when it differs from the URL's host. */
  tlsServerName?: string;
  /** The namespace of the selected context (or of the pod, in a cluster). */
  namespace?: string;
  /**
   * Proxy every connection goes through: `http://`, `https://` (HTTP CONNECT) or `socks5://` (see
   * `proxy-tunnel.ts`); wins over `HTTPS_PROXY` and friends, as in client-go.
   */
  proxyUrl?: string;
  /** Impersonation headers sent with every request. */
  impersonate?: Impersonation;
  /**
   * An exec credential plugin that supplies a token or client certificate (client-go's `ExecProvider`); used only
   * when no token, token file, client certificate or basic auth is set, as in client-go.
   */
  exec?: ExecConfig;
}

/** Whether in-cluster credentials are available (service env vars set and the token file present). */
export function inClusterAvailable(pathPrefix = ''): boolean {
  return Boolean(
    process.env['KUBERNETES_SERVICE_HOST'] && process.env['KUBERNETES_SERVICE_PORT'] && fs.existsSync(`${pathPrefix}${SERVICE_ACCOUNT_DIR}/token`),
  );
}

/**
 * client-go's `rest.InClusterConfig()`: `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` (IPv6 hosts
 * bracketed), the service-account token (as `token` and as `tokenFile`, so rotations are picked up), its CA (left
 * out when unreadable, as client-go does) and its namespace file. `pathPrefix` roots the service-account directory
 * (tests). Throws when the env vars or the token are missing.
 */
export function inClusterRestConfig(pathPrefix = ''): RestConfig {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  const dir = `${pathPrefix}${SERVICE_ACCOUNT_DIR}`;
  const tokenFile = `${dir}/token`;
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  const config: RestConfig = { server: `https://${net.isIPv6(host) ? `[${host}]` : host}:${port}`, token, tokenFile };
  const ca = readOptional(`${dir}/ca.crt`);
  if (ca) config.caData = ca;
  const namespace = readOptional(`${dir}/namespace`)?.trim();
  if (namespace) config.namespace = namespace;
  return config;
}

function readOptional(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
