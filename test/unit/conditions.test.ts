import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findStatusCondition, isStatusConditionFalse, isStatusConditionTrue, removeStatusCondition, setStatusCondition } from '@kubegen/runtime';
import type { Condition } from '@kubegen/runtime';

describe('status conditions', () => {
  it('adds, updates (transition time only on a status change), finds, tests and removes conditions', () => {
    let t = 0;
    const now = (): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, t++));
    const conditions: Condition[] = [];
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Creating', message: 'm1', observedGeneration: 1 }, now), true);
    assert.equal(conditions[0]!.lastTransitionTime, '2026-01-01T00:00:00.000Z');
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Creating', message: 'm1', observedGeneration: 1 }, now), false, 'nothing changed');
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'm2', observedGeneration: 2 }, now), true);
    assert.equal(conditions[0]!.lastTransitionTime, '2026-01-01T00:00:00.000Z', 'same status: same transition time');
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done', message: '' }, now), true);
    assert.deepEqual(conditions, [{ type: 'Ready', status: 'True', reason: 'Done', message: '', lastTransitionTime: '2026-01-01T00:00:01.000Z' }]);
    setStatusCondition(conditions, { type: 'Degraded', status: 'False', reason: 'OK', message: '', lastTransitionTime: '2025-01-01T00:00:00Z' }, now);
    assert.equal(findStatusCondition(conditions, 'Degraded')?.lastTransitionTime, '2025-01-01T00:00:00Z');
    assert.equal(isStatusConditionTrue(conditions, 'Ready'), true);
    assert.equal(isStatusConditionFalse(conditions, 'Degraded'), true);
    assert.equal(isStatusConditionTrue(undefined, 'Ready'), false);
    assert.equal(removeStatusCondition(conditions, 'Ready'), true);
    assert.equal(removeStatusCondition(conditions, 'Ready'), false);
    assert.deepEqual(conditions.map((c) => c.type), ['Degraded']);
  });
});
