/**
 * Helpers for `status.conditions` lists of metav1.Condition (apimachinery `meta.SetStatusCondition` and friends).
 * They mutate the array they are given (the caller owns it: a copy of an object from the cache, never the cached
 * object itself) and never touch the API: write the status afterwards (`updateStatus`).
 */
import type { Condition } from '../api-types.js';

/** What `setStatusCondition` takes: `lastTransitionTime` may be left out (it is set when the status changes). */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/**
 * Adds `condition` to `conditions`, or updates the one of the same `type`. `lastTransitionTime` changes only when the
 * status does (to `condition.lastTransitionTime`, else now); reason, message and observedGeneration are always
 * taken. Returns whether anything changed, so a reconciler can skip a status write that would change nothing.
 */
export function setStatusCondition(conditions: Condition[], condition: ConditionInput, now: () => Date = () => new Date()): boolean {
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push({ ...condition, lastTransitionTime: condition.lastTransitionTime ?? now().toISOString() });
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime ?? now().toISOString();
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== condition.message) {
    existing.message = condition.message;
    changed = true;
  }
  if (existing.observedGeneration !== condition.observedGeneration) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** The condition of `type`, or undefined. */
export function findStatusCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Removes the condition of `type`; returns whether there was one. */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** Whether the condition of `type` is present with status `True`. */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'True';
}

/** Whether the condition of `type` is present with status `False`. */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'False';
}
