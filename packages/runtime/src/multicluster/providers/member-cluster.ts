/**
 * How providers make a member `Cluster` from a client configuration: its own transport (with a request timeout, so
 * a member that stops answering fails its requests instead of hanging its lane), its own cache and recorders. The
 * cluster watches nothing until a controller's lane asks; `close()` closes the transport once it was disengaged.
 */
import { Cluster, type ClusterOptions } from '../../cluster/cluster.js';
import { HttpTransport, type TransportOptions } from '../../client/http-transport.js';
import type { RestConfig } from '../../client/rest-config.js';
import type { Transport } from '../../client/types.js';

/** Default per-request timeout of a member's transport (non-watch requests): 30 s. */
export const DEFAULT_MEMBER_REQUEST_TIMEOUT_MS = 30_000;

/** How a provider makes its clusters (all optional). */
export interface MemberClusterOptions {
  /** Settings of each member `Cluster` (cache, resync, read-your-writes, logger, clock, registry). */
  clusterOptions?: Omit<ClusterOptions, 'transport' | 'name'>;
  /** Settings of each member's `HttpTransport`; `timeoutMs` defaults to {@link DEFAULT_MEMBER_REQUEST_TIMEOUT_MS}. */
  transportOptions?: TransportOptions;
  /** Makes a member's transport from its `RestConfig` instead of an `HttpTransport` (tests: a fake). */
  newTransport?: (config: RestConfig, cluster: string) => Transport;
}

/** A member cluster and how to let go of its transport. */
export interface MemberCluster {
  cluster: Cluster;
  /** Closes the transport (after the cluster was disengaged). */
  close(): void;
}

/** A member `Cluster` named `name` over its own transport for `config`. */
export function newMemberCluster(name: string, config: RestConfig, opts: MemberClusterOptions = {}): MemberCluster {
  const transport = opts.newTransport
    ? opts.newTransport(config, name)
    : new HttpTransport(config, { timeoutMs: DEFAULT_MEMBER_REQUEST_TIMEOUT_MS, ...opts.transportOptions });
  const cluster = new Cluster({ ...opts.clusterOptions, transport, name });
  return { cluster, close: () => (transport as { close?: () => void }).close?.() };
}
