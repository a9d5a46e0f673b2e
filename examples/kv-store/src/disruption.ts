/**
 * The store's PodDisruptionBudget: a quorum of members stays up through voluntary disruptions (a node drain evicts
 * one member at a time, and waits while a member is down).
 *
 * PodDisruptionBudget is served as `policy/v1` from Kubernetes 1.21 on, and as `policy/v1beta1` up to 1.24; current
 * clusters serve only `policy/v1`, kube-apiserver 1.20 (envtest's `full` profile) only `policy/v1beta1`. The version
 * is the operator's `--pdb-version` flag: `policy/v1` or `policy/v1beta1` is used as said, with no lookup; `auto` (the
 * default) asks discovery once at start and takes `policy/v1` when the server serves it, else `policy/v1beta1`, and
 * refuses to start when it serves neither. A version said but not served holds the controller back (the runtime's
 * `/readyz` names the kind, and every request fails with `ResourceNotServedError`).
 */
import type { ApplyOptions, KubeClientset, ResourceDescriptor, Transport } from '@kubegen/runtime';
import { DiscoveryClient } from '@kubegen/runtime/discovery';
import * as policyv1 from '@kubegen/runtime/api/policy/v1';
import * as policyv1beta1 from '@kubegen/runtime/api/policy/v1beta1';
import type { KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { ownedNames, quorum, replicasOf, selectorLabels } from './names.js';
import { owned } from './owned.js';

/** The versions of PodDisruptionBudget the operator knows, newest first. */
export const DISRUPTION_BUDGET_VERSIONS = ['policy/v1', 'policy/v1beta1'] as const;
export type DisruptionBudgetVersion = (typeof DISRUPTION_BUDGET_VERSIONS)[number];

/** The descriptor of PodDisruptionBudget in `version`: what the controller watches and its client serves. */
export function disruptionBudgetResource(version: DisruptionBudgetVersion): ResourceDescriptor {
  return version === 'policy/v1' ? policyv1.podDisruptionBudgetResource : policyv1beta1.podDisruptionBudgetResource;
}

/** A PodDisruptionBudget of either version, as applied. */
export type DisruptionBudgetApply = policyv1.PodDisruptionBudgetApply | policyv1beta1.PodDisruptionBudgetApply;

/** The store's PodDisruptionBudget in `version`: its members, a quorum of them available. */
export function disruptionBudget(store: KVStore, version: DisruptionBudgetVersion): DisruptionBudgetApply {
  const name = ownedNames(store).store;
  const namespace = store.metadata?.namespace;
  // One spec for both versions: policy/v1 kept v1beta1's fields (an empty selector selects every Pod in v1, none in
  // v1beta1; this one is never empty).
  const spec: policyv1.PodDisruptionBudgetSpecApply = { minAvailable: quorum(replicasOf(store)), selector: { matchLabels: selectorLabels(store) } };
  return version === 'policy/v1'
    ? owned(store, { ...policyv1.podDisruptionBudgetApply(name, namespace), spec })
    : owned(store, { ...policyv1beta1.podDisruptionBudgetApply(name, namespace), spec });
}

/** Applies `config` through the typed client of its version. */
export async function applyDisruptionBudget(kube: KubeClientset, config: DisruptionBudgetApply, opts: ApplyOptions): Promise<void> {
  const namespace = config.metadata.namespace ?? '';
  if (config.apiVersion === 'policy/v1') await kube.policyV1.podDisruptionBudgets(namespace).apply(config, opts);
  else await kube.policyV1beta1.podDisruptionBudgets(namespace).apply(config, opts);
}

/** The server serves no PodDisruptionBudget version the operator knows. */
export class NoDisruptionBudgetError extends Error {
  constructor(served: readonly string[]) {
    super(
      `the apiserver serves no PodDisruptionBudget (neither ${DISRUPTION_BUDGET_VERSIONS.join(' nor ')}; ` +
        `its policy group: ${served.length ? served.join(', ') : 'not served'}): kv-store needs one to keep a quorum of members up`,
    );
    this.name = 'NoDisruptionBudgetError';
  }
}

/**
 * The version to use: `asked` when it names one (no request), else the newest the server serves, from discovery.
 * Rejects with {@link NoDisruptionBudgetError} when it serves none, and with discovery's error when it cannot be asked.
 */
export async function disruptionBudgetVersion(transport: Transport, asked: DisruptionBudgetVersion | 'auto', signal?: AbortSignal): Promise<DisruptionBudgetVersion> {
  if (asked !== 'auto') return asked;
  const groups = await new DiscoveryClient(transport).serverGroups(signal);
  const served = (groups.find((g) => g.name === 'policy')?.versions ?? []).map((v) => `policy/${v}`);
  const version = DISRUPTION_BUDGET_VERSIONS.find((v) => served.includes(v));
  if (!version) throw new NoDisruptionBudgetError(served);
  return version;
}
