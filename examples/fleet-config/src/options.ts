/**
 * The fleet-config controller's flags (controller-runtime's names where it has one). `parseOptions` throws a
 * TypeError naming the bad flag, with the usage; main exits 2 on it.
 */
import { parseFlags, LOG_FLAGS } from '@kubegen/runtime';

export interface Options {
  /** Path to the hub's kubeconfig; unset: `$KUBECONFIG`, in-cluster, `~/.kube/config`. */
  kubeconfig: string | undefined;
  /** Hub namespace of the member clusters' kubeconfig Secrets (required). */
  clustersNamespace: string;
  /** Reconciles at once, per cluster (default 2). */
  workers: number;
  /** Timeout of each request to a member cluster, in ms (default 30 s). */
  memberTimeoutMs: number;
  /** `host:port` of `/metrics`; `0` disables (default `:8080`). */
  metricsBindAddress: string;
  /** `host:port` of `/healthz` and `/readyz` (`/readyz/clusters` lists the members); `0` disables (default `:8081`). */
  healthProbeBindAddress: string;
  logging: { 'log-level'?: string | undefined; 'log-format'?: string | undefined };
}

export const USAGE = `usage: node dist/main.js --clusters-namespace=NS [--kubeconfig=HUB] [--workers=N] [--member-timeout=30s]
  [--metrics-bind-address=ADDR] [--health-probe-bind-address=ADDR]
  [--log-level=debug|info|warn|error|silent] [--log-format=json|text|auto]
Writes every FleetConfig (fleet.kubegen.io/v1alpha1) of the hub into a ConfigMap of the same namespace and name in
every member cluster. Members are the Secrets in --clusters-namespace labelled multicluster.kubegen.io/kubeconfig=true,
the kubeconfig under the key "kubeconfig", each cluster named after its Secret.`;

const OPTIONS = {
  kubeconfig: { type: 'string' },
  'clusters-namespace': { type: 'string' },
  workers: { type: 'string', default: '2' },
  'member-timeout': { type: 'string', default: '30s' },
  'metrics-bind-address': { type: 'string', default: ':8080' },
  'health-probe-bind-address': { type: 'string', default: ':8081' },
  ...LOG_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Parses argv (without node and the script); throws a TypeError naming the bad flag (with the usage). */
export function parseOptions(argv: readonly string[]): Options {
  const values = parseFlags(argv, OPTIONS, USAGE);
  const bad = (msg: string): never => {
    throw new TypeError(`${msg}\n${USAGE}`);
  };
  const clustersNamespace = values['clusters-namespace'];
  if (!clustersNamespace) return bad('--clusters-namespace is required: the hub namespace of the member clusters\' kubeconfig Secrets');
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) bad(`--workers must be a positive integer, got ${values.workers}`);
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(values['member-timeout'].trim());
  if (!m) return bad(`--member-timeout must be a duration such as 500ms, 30s or 1m, got ${values['member-timeout']}`);
  return {
    kubeconfig: values.kubeconfig,
    clustersNamespace,
    workers,
    memberTimeoutMs: Number(m[1]) * { ms: 1, s: 1_000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'],
    metricsBindAddress: values['metrics-bind-address'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    logging: { 'log-level': values['log-level'], 'log-format': values['log-format'] },
  };
}
