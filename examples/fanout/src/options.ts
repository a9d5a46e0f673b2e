/**
 * The fanout controller's flags (controller-runtime's names where it has one). `parseOptions` throws a TypeError
 * naming the bad flag, with the usage; main exits 2 on it.
 */
import { parseFlags, LOG_FLAGS } from '@kubegen/runtime';
import type { ShardingMode } from '@kubegen/runtime/manager';

export interface Options {
  /** Path to a kubeconfig; unset: `$KUBECONFIG`, in-cluster, `~/.kube/config`. */
  kubeconfig: string | undefined;
  /** Only this namespace's Batches and Tasks (default all). */
  namespace: string | undefined;
  /** Reconciles at once (default 2). */
  workers: number;
  /** `host:port` of `/metrics`; `0` disables (default `:8080`). */
  metricsBindAddress: string;
  /** `host:port` of `/healthz` and `/readyz`; `0` disables (default `:8081`). */
  healthProbeBindAddress: string;
  /** Run as one shard of the ring `fanout` (every replica works; see docs/sharding.md). */
  sharding: boolean;
  shardingMode: ShardingMode;
  /** The shard's identity (default `$POD_NAME`, else the host name). */
  identity: string | undefined;
  /** Namespace of the shard Leases (default `--namespace`, else in-cluster). */
  shardingNamespace: string | undefined;
  shardLeaseDurationMs: number | undefined;
  shardRenewDeadlineMs: number | undefined;
  shardRetryPeriodMs: number | undefined;
  logging: { 'log-level'?: string | undefined; 'log-format'?: string | undefined };
}

export const USAGE = `usage: node dist/main.js [--kubeconfig=PATH] [--namespace=NS] [--workers=N]
  [--metrics-bind-address=ADDR] [--health-probe-bind-address=ADDR]
  [--sharding [--sharding-mode=auto|server|client|labels] [--identity=NAME] [--sharding-namespace=NS]
   [--shard-lease-duration=15s] [--shard-renew-deadline=10s] [--shard-retry-period=2s]]
  [--log-level=debug|info|warn|error|silent] [--log-format=json|text|auto]
Makes the Tasks of every Batch (fanout.kubegen.io/v1alpha1) and counts them in its status.`;

const OPTIONS = {
  kubeconfig: { type: 'string' },
  namespace: { type: 'string' },
  workers: { type: 'string', default: '2' },
  'metrics-bind-address': { type: 'string', default: ':8080' },
  'health-probe-bind-address': { type: 'string', default: ':8081' },
  sharding: { type: 'boolean', default: false },
  'sharding-mode': { type: 'string', default: 'auto' },
  identity: { type: 'string' },
  'sharding-namespace': { type: 'string' },
  'shard-lease-duration': { type: 'string' },
  'shard-renew-deadline': { type: 'string' },
  'shard-retry-period': { type: 'string' },
  ...LOG_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const MODES: readonly ShardingMode[] = ['auto', 'server', 'client', 'labels'];

/** Parses argv (without node and the script); throws a TypeError naming the bad flag (with the usage). */
export function parseOptions(argv: readonly string[]): Options {
  const values = parseFlags(argv, OPTIONS, USAGE);
  const bad = (msg: string): never => {
    throw new TypeError(`${msg}\n${USAGE}`);
  };
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) bad(`--workers must be a positive integer, got ${values.workers}`);
  const mode = values['sharding-mode'] as ShardingMode;
  if (!MODES.includes(mode)) bad(`--sharding-mode must be one of ${MODES.join(', ')}, got ${values['sharding-mode']}`);
  const shardingOnly = ['identity', 'sharding-namespace', 'shard-lease-duration', 'shard-renew-deadline', 'shard-retry-period'] as const;
  for (const f of shardingOnly) if (values[f] !== undefined && !values.sharding) bad(`--${f} needs --sharding`);
  const duration = (flag: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(v.trim());
    if (!m) return bad(`--${flag} must be a duration such as 500ms, 15s or 1m, got ${v}`);
    return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
  };
  return {
    kubeconfig: values.kubeconfig,
    namespace: values.namespace,
    workers,
    metricsBindAddress: values['metrics-bind-address'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    sharding: values.sharding,
    shardingMode: mode,
    identity: values.identity,
    shardingNamespace: values['sharding-namespace'],
    shardLeaseDurationMs: duration('shard-lease-duration', values['shard-lease-duration']),
    shardRenewDeadlineMs: duration('shard-renew-deadline', values['shard-renew-deadline']),
    shardRetryPeriodMs: duration('shard-retry-period', values['shard-retry-period']),
    logging: { 'log-level': values['log-level'], 'log-format': values['log-format'] },
  };
}
