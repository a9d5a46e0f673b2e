/**
 * The kv-store operator's flags (controller-runtime's names where it has one). `parseOptions` throws a TypeError
 * naming the bad flag, with the usage; main exits 2 on it.
 */
import { parseFlags, LOG_FLAGS } from '@kubegen/runtime';
import { DISRUPTION_BUDGET_VERSIONS, type DisruptionBudgetVersion } from './disruption.js';

export interface Options {
  /** Path to a kubeconfig; unset: `$KUBECONFIG`, in-cluster, `~/.kube/config`. */
  kubeconfig: string | undefined;
  /** The PodDisruptionBudget version: said (`policy/v1`, `policy/v1beta1`) or `auto`, from discovery at start. */
  pdbVersion: DisruptionBudgetVersion | 'auto';
  /** KVStores reconciled at once (default 2). */
  workers: number;
  /** `host:port` of `/metrics`; `0` disables (default `:8080`). */
  metricsBindAddress: string;
  /** `host:port` of `/healthz` and `/readyz`; `0` disables (default `:8081`). */
  healthProbeBindAddress: string;
  logging: { 'log-level'?: string | undefined; 'log-format'?: string | undefined };
}

export const USAGE = `usage: node dist/src/main.js [--kubeconfig=PATH] [--pdb-version=auto|policy/v1|policy/v1beta1] [--workers=N]
  [--metrics-bind-address=ADDR] [--health-probe-bind-address=ADDR]
  [--log-level=debug|info|warn|error|silent] [--log-format=json|text|auto]
Runs every KVStore (kv.kubegen.io/v1alpha1) as a StatefulSet of etcd members with their Services, PodDisruptionBudget,
NetworkPolicy, ServiceAccount, Role, RoleBinding and ConfigMap; deleting a KVStore deletes its PersistentVolumeClaims.
--pdb-version=auto (the default) takes policy/v1 when the apiserver serves it, else policy/v1beta1 (Kubernetes < 1.21).`;

const OPTIONS = {
  kubeconfig: { type: 'string' },
  'pdb-version': { type: 'string', default: 'auto' },
  workers: { type: 'string', default: '2' },
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
  const pdbVersion = values['pdb-version'];
  if (pdbVersion !== 'auto' && !(DISRUPTION_BUDGET_VERSIONS as readonly string[]).includes(pdbVersion)) {
    bad(`--pdb-version must be auto, ${DISRUPTION_BUDGET_VERSIONS.join(' or ')}, got ${pdbVersion}`);
  }
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) bad(`--workers must be a positive integer, got ${values.workers}`);
  return {
    kubeconfig: values.kubeconfig,
    pdbVersion: pdbVersion as Options['pdbVersion'],
    workers,
    metricsBindAddress: values['metrics-bind-address'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    logging: { 'log-level': values['log-level'], 'log-format': values['log-format'] },
  };
}
