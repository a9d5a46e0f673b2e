/**
 * A KVStore's status from what the reconcile saw (pure): the conditions `Ready` and `Available`, the members ready,
 * and the PodDisruptionBudget's version. The reconciler applies it to the status subresource under its field
 * manager, only when it differs from the status the store has.
 */
import { setStatusCondition, type Condition, type ConditionInput } from '@kubegen/runtime';
import { kvStoreApply, type KVStore, type KVStoreApply } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { quorum, replicasOf } from './names.js';

/** The condition types this operator owns. */
export const CONDITION_TYPES = ['Ready', 'Available'] as const;

/** What one reconcile saw: the owned objects applied and this many members ready, or an apply that failed. */
export type Observed =
  | { applied: true; readyReplicas: number; disruptionBudgetVersion: string }
  | { applied: false; error: string; invalid: boolean };

/** The conditions `observed` gives, for the store's generation. */
function conditionsOf(store: KVStore, observed: Observed): ConditionInput[] {
  const generation = store.metadata?.generation;
  const gen = generation !== undefined ? { observedGeneration: generation } : {};
  if (!observed.applied) {
    const reason = observed.invalid ? 'InvalidSpec' : 'ApplyFailed';
    return [{ type: 'Ready', status: 'False', reason, message: observed.error, ...gen }];
  }
  const replicas = replicasOf(store);
  const ready = observed.readyReplicas;
  const members = `${ready}/${replicas} members ready`;
  return [
    ready >= replicas
      ? { type: 'Ready', status: 'True', reason: 'MembersReady', message: members, ...gen }
      : { type: 'Ready', status: 'False', reason: 'MembersNotReady', message: members, ...gen },
    ready >= quorum(replicas)
      ? { type: 'Available', status: 'True', reason: 'QuorumReady', message: `${members}; a quorum is ${quorum(replicas)}`, ...gen }
      : { type: 'Available', status: 'False', reason: 'QuorumNotReady', message: `${members}; a quorum is ${quorum(replicas)}`, ...gen },
  ];
}

/**
 * The status to apply, or undefined when the store's status already says it. Conditions keep their
 * `lastTransitionTime` unless their status flips; a failed apply leaves `Available` and the counts as they were.
 */
export function statusApply(store: KVStore, observed: Observed, now?: () => Date): KVStoreApply | undefined {
  const current = store.status ?? {};
  const conditions: Condition[] = structuredClone(current.conditions ?? []);
  let changed = false;
  for (const c of conditionsOf(store, observed)) changed = setStatusCondition(conditions, c, now) || changed;
  const counts = observed.applied ? { readyReplicas: observed.readyReplicas, disruptionBudgetVersion: observed.disruptionBudgetVersion } : {};
  if (observed.applied) changed ||= current.readyReplicas !== counts.readyReplicas || current.disruptionBudgetVersion !== counts.disruptionBudgetVersion;
  if (!changed) return undefined;
  // Everything this field manager owns, every time: what it leaves out of an apply it no longer owns.
  const owned = conditions.filter((c) => (CONDITION_TYPES as readonly string[]).includes(c.type));
  const kept = observed.applied ? counts : { readyReplicas: current.readyReplicas, disruptionBudgetVersion: current.disruptionBudgetVersion };
  return {
    ...kvStoreApply(store.metadata?.name ?? '', store.metadata?.namespace),
    status: {
      conditions: owned,
      ...(kept.readyReplicas !== undefined ? { readyReplicas: kept.readyReplicas } : {}),
      ...(kept.disruptionBudgetVersion !== undefined ? { disruptionBudgetVersion: kept.disruptionBudgetVersion } : {}),
    },
  };
}
