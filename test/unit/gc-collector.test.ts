/**
 * The garbage collector (testing/gc) against the runtime's fake transport: it discovers the served kinds, watches
 * them metadata-only, and collects background, foreground and orphan deletions as kube-controller-manager does.
 * The fake has no collector of its own and adds no deletion finalizers: a reactor plays the apiserver's part
 * (`propagationPolicy: Foreground`/`Orphan` add `foregroundDeletion`/`orphan`), and one answers 415 to strategic
 * merge patches, as the apiserver does for custom resources.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { unsupportedMediaType } from '@kubegen/runtime/internal/testing/fake/fake-errors.js';
import type { KubeObject, OwnerReference, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { createLogger, nullLogger } from '@kubegen/runtime/internal/log.js';
import { GarbageCollector } from '@kubegen/runtime/internal/testing/gc/garbage-collector.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { until } from '../support/wait.js';

const PARENT: ResourceInfo = { group: 'gc.kubegen.dev', version: 'v1', resource: 'parents', kind: 'Parent', listKind: 'ParentList', namespaced: true };
const CHILD: ResourceInfo = { group: 'gc.kubegen.dev', version: 'v1', resource: 'children', kind: 'Child', listKind: 'ChildList', namespaced: true };
const NS = 'ns';

function fake(): FakeTransport {
  const t = newFakeTransport([PARENT, CHILD, builtinResources.customResourceDefinitions]);
  t.prependReactor('patch', '*', (a) => (a.patchType === 'strategic' ? { handled: true, error: unsupportedMediaType('strategic merge patches are not supported for custom resources') } : undefined));
  // The apiserver's part of a deletion with a propagation policy: the finalizer, then the deletion mark.
  t.prependReactor('delete', '*', (a) => {
    const policy = a.deleteOptions?.['propagationPolicy'];
    const finalizer = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
    const info = a.resource === PARENT.resource ? PARENT : CHILD;
    if (!finalizer) return undefined;
    const obj = t.tracker.get(info, a.namespace, a.name);
    if (!obj.metadata?.deletionTimestamp && !(obj.metadata?.finalizers ?? []).includes(finalizer)) {
      t.tracker.update(info, a.namespace, { ...obj, metadata: { ...obj.metadata, finalizers: [...(obj.metadata?.finalizers ?? []), finalizer] } });
    }
    return undefined;
  });
  return t;
}

const object = (info: ResourceInfo, name: string, ownerReferences: OwnerReference[] = [], finalizers?: string[]): KubeObject => ({
  apiVersion: `${info.group}/${info.version}`,
  kind: info.kind,
  metadata: { name, namespace: NS, ownerReferences, ...(finalizers ? { finalizers } : {}) },
});
const refTo = (owner: KubeObject, blockOwnerDeletion = true): OwnerReference => ({ apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata!.name!, uid: owner.metadata!.uid!, blockOwnerDeletion });

describe('GarbageCollector (fake transport)', () => {
  let gc: GarbageCollector | undefined;
  afterEach(async () => {
    await gc?.stop();
    gc = undefined;
  });

  const exists = (t: FakeTransport, info: ResourceInfo, name: string): boolean => {
    try {
      t.tracker.get(info, NS, name);
      return true;
    } catch {
      return false;
    }
  };

  it('watches every deletable resource it discovers, metadata only', async () => {
    const t = fake();
    gc = await GarbageCollector.start(t, { logger: nullLogger });
    assert.deepEqual(gc.resources().map((r) => r.resource).sort(), ['children', 'customresourcedefinitions', 'parents']);
    const watches = t.actions().filter((a) => a.verb === 'watch' && a.group === 'gc.kubegen.dev');
    assert.ok(watches.length === 2 && watches.every((a) => a.as === 'metadata'), JSON.stringify(watches));
  });

  it('background: the dependents of a deleted owner are deleted; an unowned object and one with a living owner stay, the latter losing its dead reference', async () => {
    const t = fake();
    gc = await GarbageCollector.start(t, { logger: nullLogger });
    const owner = t.tracker.create(PARENT, NS, object(PARENT, 'owner'));
    const other = t.tracker.create(PARENT, NS, object(PARENT, 'other'));
    t.tracker.create(CHILD, NS, object(CHILD, 'a', [refTo(owner)]));
    t.tracker.create(CHILD, NS, object(CHILD, 'both', [refTo(owner), refTo(other, false)]));
    t.tracker.create(CHILD, NS, object(CHILD, 'unowned'));
    await until(() => gc!.graphHasUid(owner.metadata!.uid!), 'the graph has the owner');
    t.tracker.delete(PARENT, NS, 'owner');
    await until(() => !exists(t, CHILD, 'a'), 'a deleted');
    await until(() => (t.tracker.get(CHILD, NS, 'both').metadata?.ownerReferences ?? []).length === 1, 'both loses its reference to owner');
    assert.deepEqual(t.tracker.get(CHILD, NS, 'both').metadata?.ownerReferences?.map((r) => r.name), ['other']);
    assert.ok(exists(t, CHILD, 'unowned'));
    const deletes = t.actions().filter((a) => a.verb === 'delete' && a.resource === 'children');
    assert.deepEqual(deletes.map((a) => [a.name, a.deleteOptions?.['propagationPolicy'], (a.deleteOptions?.['preconditions'] as { uid?: string })?.uid !== undefined]), [['a', 'Background', true]]);
  });

  it('foreground: dependents go first; the owner keeps foregroundDeletion while a blocking dependent is held by its own finalizer', async () => {
    const t = fake();
    gc = await GarbageCollector.start(t, { logger: nullLogger });
    const owner = t.tracker.create(PARENT, NS, object(PARENT, 'owner'));
    t.tracker.create(CHILD, NS, object(CHILD, 'blocking', [refTo(owner, true)], ['test/hold']));
    t.tracker.create(CHILD, NS, object(CHILD, 'free', [refTo(owner, false)]));
    await until(() => gc!.graphHasUid(owner.metadata!.uid!), 'the graph has the owner');
    await t.request({ verb: 'delete', resource: PARENT, namespace: NS, name: 'owner', body: { propagationPolicy: 'Foreground' } });
    await until(() => !exists(t, CHILD, 'free') && Boolean(t.tracker.get(CHILD, NS, 'blocking').metadata?.deletionTimestamp), 'free gone, blocking deleting');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(t.tracker.get(PARENT, NS, 'owner').metadata?.finalizers, ['foregroundDeletion'], 'held by the blocking dependent');
    const blocking = t.tracker.get(CHILD, NS, 'blocking');
    t.tracker.update(CHILD, NS, { ...blocking, metadata: { ...blocking.metadata, finalizers: [] } });
    await until(() => !exists(t, PARENT, 'owner'), 'the owner goes once its blocking dependent has');
  });

  it('orphan: the references to the owner are removed from its dependents (others kept), then its orphan finalizer; nothing is deleted', async () => {
    const t = fake();
    gc = await GarbageCollector.start(t, { logger: nullLogger });
    const owner = t.tracker.create(PARENT, NS, object(PARENT, 'owner'));
    const other = t.tracker.create(PARENT, NS, object(PARENT, 'other'));
    t.tracker.create(CHILD, NS, object(CHILD, 'a', [refTo(owner)]));
    t.tracker.create(CHILD, NS, object(CHILD, 'b', [refTo(owner), refTo(other, false)]));
    await until(() => gc!.graphHasUid(owner.metadata!.uid!), 'the graph has the owner');
    await t.request({ verb: 'delete', resource: PARENT, namespace: NS, name: 'owner', body: { propagationPolicy: 'Orphan' } });
    await until(() => !exists(t, PARENT, 'owner'), 'the owner goes');
    assert.deepEqual(t.tracker.get(CHILD, NS, 'a').metadata?.ownerReferences ?? [], []);
    assert.deepEqual(t.tracker.get(CHILD, NS, 'b').metadata?.ownerReferences?.map((r) => r.name), ['other']);
    assert.equal(t.actions().filter((a) => a.verb === 'delete' && a.resource === 'children').length, 0);
  });

  it('a dependent whose owner never existed (wrong uid) is deleted', async () => {
    const t = fake();
    gc = await GarbageCollector.start(t, { logger: nullLogger });
    t.tracker.create(PARENT, NS, object(PARENT, 'p'));
    t.tracker.create(CHILD, NS, object(CHILD, 'stray', [{ apiVersion: 'gc.kubegen.dev/v1', kind: 'Parent', name: 'p', uid: 'not-the-uid-of-p' }]));
    await until(() => !exists(t, CHILD, 'stray'), 'stray deleted');
    assert.ok(exists(t, PARENT, 'p'));
  });

  it('a failing call is logged naming the kind, the verb and the object, and retried', async () => {
    const t = fake();
    const lines: Record<string, unknown>[] = [];
    gc = await GarbageCollector.start(t, { logger: createLogger({ level: 'error', format: 'json', write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) }) });
    let refusals = 2;
    t.prependReactor('delete', 'children', () => (refusals-- > 0 ? { handled: true, error: new Error('connection reset') } : undefined));
    const owner = t.tracker.create(PARENT, NS, object(PARENT, 'owner'));
    t.tracker.create(CHILD, NS, object(CHILD, 'a', [refTo(owner)]));
    await until(() => gc!.graphHasUid(owner.metadata!.uid!), 'the graph has the owner');
    t.tracker.delete(PARENT, NS, 'owner');
    await until(() => !exists(t, CHILD, 'a'), 'a deleted after the refusals');
    const line = lines.find((l) => l['verb'] === 'delete');
    assert.ok(line, JSON.stringify(lines));
    assert.equal(line['kind'], 'Child');
    assert.equal(line['name'], 'a');
    assert.equal(line['namespace'], NS);
    assert.match(String(line['error']), /connection reset/);
  });
});
