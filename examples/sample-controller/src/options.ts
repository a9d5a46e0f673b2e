/**
 * Command-line flags of the sample controller. Both `--flag=value` and `--flag value` work, and so do Go-style single
 * dashes (`-kubeconfig PATH`, as the Go sample-controller takes them).
 */
import { parseFlags, LOG_FLAGS } from '@kubegen/runtime';

export interface Options {
  /** Path to a kubeconfig; unset = `$KUBECONFIG`, `~/.kube/config` or in-cluster. */
  kubeconfig: string | undefined;
  /** kubeconfig context to use instead of the current one. */
  context: string | undefined;
  /** Watch and manage Foos of this namespace only (default: all namespaces). */
  namespace: string | undefined;
  /** Worker loops (default 2, like the Go original). */
  workers: number;
  /** Campaign for a Lease before doing any work (default off). */
  leaderElect: boolean;
  /** Name of the Lease, in the kubeconfig context's namespace. */
  leaderElectionId: string;
  /** Lease namespace override (default: the kubeconfig context's namespace). */
  leaderElectionNamespace: string | undefined;
  /**
   * Run as one shard of the ring `sample-controller` (default off): reconcile only the Foos (and their Deployments)
   * the sharder assigned to `identity`. Exclusive with `leaderElect`.
   */
  sharding: boolean;
  /** Shard identity (default `$POD_NAME`, else the host name): unique among replicas, stable across restarts. */
  identity: string | undefined;
  /** Namespace of the shard Leases (default: `--leader-election-namespace`, else the kubeconfig context's). */
  shardingNamespace: string | undefined;
  /** Shard and sharder Lease timings in ms (defaults 15 s, 10 s, 2 s; `--shard-lease-duration=8s`). */
  shardLeaseDurationMs: number | undefined;
  shardRenewDeadlineMs: number | undefined;
  shardRetryPeriodMs: number | undefined;
  /** `host:port` for `/metrics`; `0` (default) disables. */
  metricsBindAddress: string;
  /**
   * Serve `/metrics` over HTTPS to clients the apiserver authenticates and authorizes (TokenReview +
   * SubjectAccessReview for `get` on `/metrics`); default false (plain HTTP, as the benches compare it).
   */
  metricsSecure: boolean;
  /** With `metricsSecure`: folder of the metrics `tls.crt` and `tls.key` (default: a self-signed certificate). */
  metricsCertDir: string | undefined;
  /** `host:port` for `/healthz` and `/readyz`; `0` (default) disables. */
  healthProbeBindAddress: string;
  /** Port of the webhook server (defaulting, validation, v1 ↔ v1alpha1 conversion); 0 (default): no webhooks. */
  webhookPort: number;
  /** Folder of the webhook server's `tls.crt` and `tls.key` (default: controller-runtime's). */
  webhookCertDir: string | undefined;
  /** `--log-level` (debug, info, warn, error, silent) and `--log-format` (json, text, auto): see `setupLogging`. */
  logging: { 'log-level'?: string | undefined; 'log-format'?: string | undefined };
}

export const USAGE = `usage: node examples/sample-controller/dist/main.js [--kubeconfig=PATH] [--context=NAME] [--namespace=NS] [--workers=N]
  [--leader-elect] [--leader-election-id=NAME] [--leader-election-namespace=NS]
  [--sharding [--identity=NAME] [--sharding-namespace=NS] [--shard-lease-duration=15s] [--shard-renew-deadline=10s] [--shard-retry-period=2s]]
  [--metrics-bind-address=ADDR] [--metrics-secure[=true|false]] [--metrics-cert-dir=DIR] [--health-probe-bind-address=ADDR]
  [--webhook-port=9443 --webhook-cert-dir=DIR]
  [--log-level=debug|info|warn|error|silent]
  [--log-format=json|text|auto]`;

/** The flags, for `parseArgs`. */
const OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string' },
  workers: { type: 'string', default: '2' },
  'leader-elect': { type: 'boolean', default: false },
  'leader-election-id': { type: 'string', default: 'sample-controller-lock' },
  'leader-election-namespace': { type: 'string' },
  sharding: { type: 'boolean', default: false },
  identity: { type: 'string' },
  'sharding-namespace': { type: 'string' },
  'shard-lease-duration': { type: 'string' },
  'shard-renew-deadline': { type: 'string' },
  'shard-retry-period': { type: 'string' },
  'metrics-bind-address': { type: 'string', default: '0' },
  'metrics-secure': { type: 'boolean', default: false },
  'metrics-cert-dir': { type: 'string' },
  'health-probe-bind-address': { type: 'string', default: '0' },
  'webhook-port': { type: 'string', default: '0' },
  'webhook-cert-dir': { type: 'string' },
  ...LOG_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Parses argv (without node and script); throws a TypeError with a usage hint on bad input. */
export function parseOptions(argv: readonly string[]): Options {
  const normalized = argv.map((a) => (/^-[a-z]{2,}/.test(a) ? `-${a}` : a));
  const values = parseFlags(normalized, OPTIONS, USAGE);
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) throw new TypeError(`--workers must be a positive integer, got ${values.workers}\n${USAGE}`);
  if (values['metrics-cert-dir'] !== undefined && !values['metrics-secure']) throw new TypeError(`--metrics-cert-dir needs --metrics-secure\n${USAGE}`);
  const webhookPort = Number(values['webhook-port']);
  if (!Number.isInteger(webhookPort) || webhookPort < 0 || webhookPort > 65535) throw new TypeError(`--webhook-port must be a port number, got ${values['webhook-port']}\n${USAGE}`);
  if (values.sharding && values['leader-elect']) throw new TypeError(`--sharding and --leader-elect exclude each other (every shard works)\n${USAGE}`);
  const shardingOnly = ['identity', 'sharding-namespace', 'shard-lease-duration', 'shard-renew-deadline', 'shard-retry-period'] as const;
  for (const f of shardingOnly) if (values[f] !== undefined && !values.sharding) throw new TypeError(`--${f} needs --sharding\n${USAGE}`);
  return {
    kubeconfig: values.kubeconfig,
    context: values.context,
    namespace: values.namespace,
    workers,
    leaderElect: values['leader-elect'],
    leaderElectionId: values['leader-election-id'],
    leaderElectionNamespace: values['leader-election-namespace'],
    sharding: values.sharding,
    identity: values.identity,
    shardingNamespace: values['sharding-namespace'],
    shardLeaseDurationMs: parseDuration('--shard-lease-duration', values['shard-lease-duration']),
    shardRenewDeadlineMs: parseDuration('--shard-renew-deadline', values['shard-renew-deadline']),
    shardRetryPeriodMs: parseDuration('--shard-retry-period', values['shard-retry-period']),
    metricsBindAddress: values['metrics-bind-address'],
    metricsSecure: values['metrics-secure'],
    metricsCertDir: values['metrics-cert-dir'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    webhookPort,
    webhookCertDir: values['webhook-cert-dir'],
    logging: { 'log-level': values['log-level'], 'log-format': values['log-format'] },
  };
}

/** `15s`, `1500ms`, `1m` (Go duration units s, ms, m; a bare number is seconds) → ms; undefined stays undefined. */
function parseDuration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) throw new TypeError(`${flag} must be a duration such as 15s or 1500ms, got ${value}\n${USAGE}`);
  const n = Number(m[1]);
  return Math.round(m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000);
}
