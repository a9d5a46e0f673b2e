/**
 * Command-line flags of the janitor (`--flag=value` or `--flag value`; boolean flags also take Go's `--flag=false`).
 * Lists (`--namespace`, `--exclude-namespaces`, `--include-resources`, `--exclude-resources`) take comma-separated
 * values and may be repeated.
 */
import { parseFlags, LOG_FLAGS } from '@kubegen/runtime';
import { DEFAULT_EXCLUDED_RESOURCES, parseResourceNames, type ResourceFilter } from './resources.js';

export interface Options {
  /** Path to a kubeconfig; unset: `$KUBECONFIG`, in-cluster, `~/.kube/config`. */
  kubeconfig: string | undefined;
  context: string | undefined;
  /** Namespaces whose objects of namespaced kinds are watched (default: all). Cluster-scoped kinds are watched whole. */
  namespaces: string[];
  /** Namespaces whose objects are never deleted (default `kube-system`). */
  excludedNamespaces: string[];
  filter: ResourceFilter;
  /** Log and count what would be deleted; delete nothing. */
  dryRun: boolean;
  /** Reconciles at once per resource (default 2). */
  workers: number;
  /** How often the API groups are compared for new or removed APIs (default 1 min; 0 never). */
  discoveryIntervalMs: number;
  /** `host:port` of `/metrics`; `0` (default) disables. */
  metricsBindAddress: string;
  /** `host:port` of `/healthz` and `/readyz`; `0` (default) disables. */
  healthProbeBindAddress: string;
  leaderElect: boolean;
  leaderElectionId: string;
  leaderElectionNamespace: string | undefined;
  logging: { 'log-level'?: string | undefined; 'log-format'?: string | undefined };
}

export const USAGE = `usage: node dist/main.js [--kubeconfig=PATH] [--context=NAME]
  [--namespace=NS,...] [--exclude-namespaces=NS,...] [--include-resources=NAME,...] [--exclude-resources=NAME,...]
  [--dry-run] [--workers=N] [--discovery-interval=1m]
  [--metrics-bind-address=ADDR] [--health-probe-bind-address=ADDR]
  [--leader-elect] [--leader-election-id=NAME] [--leader-election-namespace=NS]
  [--log-level=debug|info|warn|error|silent] [--log-format=json|text|auto]
Deletes objects of any kind once their janitor.kubegen.io/ttl annotation (30s, 5m, 2h, 7d, 1w) has run out.`;

const OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string', multiple: true },
  'exclude-namespaces': { type: 'string', multiple: true },
  'include-resources': { type: 'string', multiple: true },
  'exclude-resources': { type: 'string', multiple: true },
  'dry-run': { type: 'boolean', default: false },
  workers: { type: 'string', default: '2' },
  'discovery-interval': { type: 'string', default: '1m' },
  'metrics-bind-address': { type: 'string', default: '0' },
  'health-probe-bind-address': { type: 'string', default: '0' },
  'leader-elect': { type: 'boolean', default: false },
  'leader-election-id': { type: 'string', default: 'ttl-janitor' },
  'leader-election-namespace': { type: 'string' },
  ...LOG_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Parses argv (without node and the script); throws a TypeError naming the bad flag (with the usage) on bad input. */
export function parseOptions(argv: readonly string[]): Options {
  const values = parseFlags(argv, OPTIONS, USAGE);
  const bad = (msg: string): never => {
    throw new TypeError(`${msg}\n${USAGE}`);
  };
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) bad(`--workers must be a positive integer, got ${values.workers}`);
  const interval = parseInterval(values['discovery-interval']);
  if (interval === undefined) bad(`--discovery-interval must be a duration such as 30s, 1m or 0, got ${values['discovery-interval']}`);
  const list = (v: string[] | undefined): string[] | undefined => v?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  let filter: ResourceFilter;
  try {
    filter = {
      include: parseResourceNames('--include-resources', list(values['include-resources']) ?? []),
      exclude: parseResourceNames('--exclude-resources', list(values['exclude-resources']) ?? [...DEFAULT_EXCLUDED_RESOURCES]),
    };
  } catch (err) {
    return bad((err as Error).message);
  }
  const namespaces = list(values.namespace) ?? [];
  for (const ns of [...namespaces, ...(list(values['exclude-namespaces']) ?? [])]) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) || ns.length > 63) bad(`${JSON.stringify(ns)} is not a namespace name`);
  }
  return {
    kubeconfig: values.kubeconfig,
    context: values.context,
    namespaces,
    excludedNamespaces: list(values['exclude-namespaces']) ?? ['kube-system'],
    filter,
    dryRun: values['dry-run'],
    workers,
    discoveryIntervalMs: interval!,
    metricsBindAddress: values['metrics-bind-address'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    leaderElect: values['leader-elect'],
    leaderElectionId: values['leader-election-id'],
    leaderElectionNamespace: values['leader-election-namespace'],
    logging: { 'log-level': values['log-level'], 'log-format': values['log-format'] },
  };
}

/** `30s`, `1m`, `2h`, `0` → ms; undefined when malformed. */
function parseInterval(v: string): number | undefined {
  if (v === '0') return 0;
  const m = /^(\d+)(ms|s|m|h)$/.exec(v.trim());
  if (!m) return undefined;
  return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
}
