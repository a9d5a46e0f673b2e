/**
 * The garbage collector's dependency graph on its own (testing/gc/gc-graph.ts): which nodes it hands to the
 * collector for each informer event, as kube-controller-manager's `GraphBuilder` does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OwnerReference } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { DependencyGraph, referencesDiff, type GraphEvent } from '@kubegen/runtime/internal/testing/gc/gc-graph.js';
import { AbsentOwnerCache, alternateOwnerIdentity, GraphNode, type ObjectMetadata } from '@kubegen/runtime/internal/testing/gc/gc-node.js';

const AV = 'gc.kubegen.dev/v1';
const ref = (name: string, uid: string, blockOwnerDeletion?: boolean): OwnerReference => ({ apiVersion: AV, kind: 'Parent', name, uid, ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}) });

function graph() {
  const queued: string[] = [];
  const g = new DependencyGraph(
    {
      attemptToDelete: (n) => void queued.push(`delete:${n.identity.name}`),
      attemptToDeleteLater: (n) => void queued.push(`later:${n.identity.name}`),
      attemptToOrphan: (n) => void queued.push(`orphan:${n.identity.name}`),
    },
    new AbsentOwnerCache(),
    nullLogger,
  );
  const ev = (type: GraphEvent['type'], kind: string, meta: ObjectMetadata, oldMeta?: ObjectMetadata): void =>
    g.process({ type, apiVersion: AV, kind, meta: { namespace: 'ns', ...meta }, ...(oldMeta ? { oldMeta: { namespace: 'ns', ...oldMeta } } : {}) });
  const take = (): string[] => queued.splice(0).sort();
  return { g, ev, take };
}

describe('garbage collector graph', () => {
  it('a dependent seen before its owner makes a virtual owner node, queued to check that it exists; the owner seen later is observed', () => {
    const { g, ev, take } = graph();
    ev('add', 'Child', { name: 'c', uid: 'c1', ownerReferences: [ref('p', 'p1')] });
    assert.deepEqual(take(), ['delete:p']);
    assert.equal(g.read('p1')?.virtual, true);
    assert.deepEqual([...g.read('p1')!.dependents].map((d) => d.identity.name), ['c']);
    ev('add', 'Parent', { name: 'p', uid: 'p1' });
    assert.equal(g.read('p1')?.virtual, false);
    assert.deepEqual(take(), []);
  });

  it('an owner deleted: removed from the graph, remembered absent, its dependents queued', () => {
    const { g, ev, take } = graph();
    ev('add', 'Parent', { name: 'p', uid: 'p1' });
    ev('add', 'Child', { name: 'a', uid: 'a1', ownerReferences: [ref('p', 'p1')] });
    ev('add', 'Child', { name: 'b', uid: 'b1', ownerReferences: [ref('p', 'p1')] });
    take();
    ev('delete', 'Parent', { name: 'p', uid: 'p1' });
    assert.deepEqual(take(), ['delete:a', 'delete:b']);
    assert.equal(g.read('p1'), undefined);
    assert.ok(g.absentOwners.has({ apiVersion: AV, kind: 'Parent', name: 'p', uid: 'p1', namespace: 'ns' }));
  });

  it('a foreground deletion starting marks the owner deleting its dependents and queues it and them; only the first such event does', () => {
    const { g, ev, take } = graph();
    ev('add', 'Parent', { name: 'p', uid: 'p1' });
    ev('add', 'Child', { name: 'a', uid: 'a1', ownerReferences: [ref('p', 'p1', true)] });
    take();
    const deleting = { name: 'p', uid: 'p1', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] };
    ev('update', 'Parent', deleting, { name: 'p', uid: 'p1' });
    assert.deepEqual(take(), ['delete:a', 'delete:p']);
    assert.equal(g.read('p1')?.deletingDependents, true);
    ev('update', 'Parent', deleting, deleting);
    assert.deepEqual(take(), []);
    // The blocking dependent gone: the owner is looked at again (to remove its finalizer).
    ev('delete', 'Child', { name: 'a', uid: 'a1', ownerReferences: [ref('p', 'p1', true)] });
    assert.deepEqual(take(), ['delete:p']);
  });

  it('an orphaning deletion starting queues the owner for orphaning', () => {
    const { ev, take } = graph();
    ev('add', 'Parent', { name: 'p', uid: 'p1' });
    take();
    ev('update', 'Parent', { name: 'p', uid: 'p1', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['orphan'] }, { name: 'p', uid: 'p1' });
    assert.deepEqual(take(), ['orphan:p']);
  });

  it('a blocking reference removed or made non-blocking queues its owner', () => {
    const { ev, take } = graph();
    ev('add', 'Parent', { name: 'p', uid: 'p1' });
    ev('add', 'Child', { name: 'a', uid: 'a1', ownerReferences: [ref('p', 'p1', true)] });
    take();
    ev('update', 'Child', { name: 'a', uid: 'a1', ownerReferences: [ref('p', 'p1', false)] }, { name: 'a', uid: 'a1', ownerReferences: [ref('p', 'p1', true)] });
    assert.deepEqual(take(), ['delete:p']);
    ev('update', 'Child', { name: 'a', uid: 'a1', ownerReferences: [] }, { name: 'a', uid: 'a1', ownerReferences: [ref('p', 'p1', false)] });
    assert.deepEqual(take(), [], 'a non-blocking reference removed holds nobody');
  });

  it('a dependent naming an observed namespaced owner from another namespace is queued (the collector finds that owner absent)', () => {
    const { g, take } = graph();
    g.process({ type: 'add', apiVersion: AV, kind: 'Parent', meta: { name: 'p', uid: 'p1', namespace: 'other' } });
    take();
    g.process({ type: 'add', apiVersion: AV, kind: 'Child', meta: { name: 'c', uid: 'c1', namespace: 'ns', ownerReferences: [ref('p', 'p1')] } });
    assert.deepEqual(take(), ['delete:c']);
  });

  it('a virtual delete keeps an observed node of other coordinates, settling only the dependents that named the absent ones', () => {
    const { g, ev, take } = graph();
    ev('add', 'Parent', { name: 'p', uid: 'p1' });
    ev('add', 'Child', { name: 'wrong', uid: 'w1', ownerReferences: [{ ...ref('p', 'p1'), kind: 'Other' }] });
    take();
    g.virtualDelete({ apiVersion: AV, kind: 'Other', name: 'p', uid: 'p1', namespace: 'ns' });
    assert.ok(g.read('p1'), 'the observed Parent stays');
    assert.deepEqual(take(), ['delete:wrong']);
  });

  it('referencesDiff and alternateOwnerIdentity', () => {
    const d = referencesDiff([ref('p', 'p1', true), ref('q', 'q1')], [ref('p', 'p1', false), ref('r', 'r1')]);
    assert.deepEqual(d.added.map((r) => r.uid), ['r1']);
    assert.deepEqual(d.removed.map((r) => r.uid), ['q1']);
    assert.deepEqual(d.changed.map((c) => [c.before.blockOwnerDeletion, c.after.blockOwnerDeletion]), [[true, false]]);
    const dep = new GraphNode({ apiVersion: AV, kind: 'Child', name: 'c', uid: 'c1', namespace: 'ns' }, [ref('p', 'p1'), { ...ref('p', 'p1'), kind: 'Zed' }]);
    assert.equal(alternateOwnerIdentity([dep], { apiVersion: AV, kind: 'Parent', name: 'p', uid: 'p1', namespace: 'ns' })?.kind, 'Zed');
  });
});
