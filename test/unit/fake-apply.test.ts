/**
 * Server-side apply in the fake tracker (issue 12): ownership in `metadata.managedFields` (FieldsV1), typed
 * conflicts as the apiserver words them, `force`, shared ownership, removal of released fields, list-maps merged by
 * key, sets, the status subresource, and the default field manager.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { defaultFieldManager } from '@kubegen/runtime/internal/client/apply.js';
import type { ApplyObjectMeta, ListMapEntry } from '@kubegen/runtime/internal/client/apply.js';
import { ApplyConflictError, isApplyConflict, isConflict, retryReason } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeList, KubeObject } from '@kubegen/runtime/internal/client/types.js';
import type { FakeResource } from '@kubegen/runtime/internal/testing/fake/fake-resource.js';
import { newFakeTransportWithOptions } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import type { FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { newFakeTransportFromCrds } from '@kubegen/runtime/internal/testing/fake/fake-validation.js';
import { exploreCrds } from '../support/explore-controllers.js';
import { FIXED_NOW } from './fake-fixtures.js';

interface Port { name?: string; protocol?: string; port?: number }
interface Gadget extends KubeObject {
  spec?: { replicas?: number; color?: string; ports?: Port[]; tags?: string[]; rules?: { host?: string }[]; template?: { config?: { mode?: string } } };
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}
interface GadgetApply {
  apiVersion: 'apply.kubegen.io/v1';
  kind: 'Gadget';
  metadata: ApplyObjectMeta;
  spec?: {
    replicas?: number;
    color?: string;
    ports?: ListMapEntry<Port, 'name'>[];
    tags?: string[];
    rules?: { host?: string }[];
    template?: { config?: { mode?: string } };
  };
  status?: { phase?: string; conditions?: ListMapEntry<{ type?: string; status?: string }, 'type'>[] };
}

const GADGETS: FakeResource = {
  group: 'apply.kubegen.io',
  version: 'v1',
  resource: 'gadgets',
  kind: 'Gadget',
  listKind: 'GadgetList',
  namespaced: true,
  statusSubresource: true,
  associativeLists: [
    { path: ['spec', 'ports'], keys: ['name', 'protocol'], keyDefaults: { protocol: 'TCP' } },
    { path: ['spec', 'tags'] },
    { path: ['status', 'conditions'], keys: ['type'] },
  ],
};

const gadget = (spec: GadgetApply['spec'], status?: GadgetApply['status']): GadgetApply => ({
  apiVersion: 'apply.kubegen.io/v1',
  kind: 'Gadget',
  metadata: { name: 'g' },
  ...(spec ? { spec } : {}),
  ...(status ? { status } : {}),
});

function setup(): { fake: FakeTransport; gadgets: ResourceClient<Gadget, KubeList<Gadget>, GadgetApply>; now: { ms: number } } {
  const now = { ms: FIXED_NOW };
  const fake = newFakeTransportWithOptions({ clock: { now: () => now.ms } }, [GADGETS]);
  return { fake, gadgets: new ResourceClient<Gadget, KubeList<Gadget>, GadgetApply>(fake, GADGETS, 'ns'), now };
}

async function conflictOf(p: Promise<unknown>): Promise<ApplyConflictError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isApplyConflict(e), `an ApplyConflictError, got ${String(e)}`);
    return e;
  }
  assert.fail('the apply succeeded; a conflict was expected');
}

type Entry = { manager: string; operation: string; apiVersion: string; time?: string; fieldsType: string; fieldsV1: unknown; subresource?: string };
const entries = (o: KubeObject): Entry[] => (o.metadata?.managedFields ?? []) as Entry[];
const fieldsOf = (o: KubeObject, manager: string): unknown => entries(o).find((e) => e.manager === manager)?.fieldsV1;

describe('fake server-side apply: ownership', () => {
  it('records the applier as an Apply entry in FieldsV1, and creates the object', async () => {
    const { gadgets } = setup();
    const g = await gadgets.apply(gadget({ replicas: 2, color: 'red' }), { fieldManager: 'a' });
    assert.equal(g.metadata!.generation, 1);
    assert.deepEqual(entries(g), [
      { manager: 'a', operation: 'Apply', apiVersion: 'apply.kubegen.io/v1', time: '2024-05-06T07:08:09Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:color': {}, 'f:replicas': {} } } },
    ]);
    assert.deepEqual((await gadgets.get('g')).metadata!.managedFields, g.metadata!.managedFields, 'stored as returned');
  });

  it('a second manager setting a different value gets a typed 409 naming the owner and the field; the object is unchanged', async () => {
    const { gadgets } = setup();
    const first = await gadgets.apply(gadget({ replicas: 2, color: 'red' }), { fieldManager: 'a' });
    const err = await conflictOf(gadgets.apply(gadget({ replicas: 3 }), { fieldManager: 'b' }));
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.ok(isConflict(err));
    assert.equal(retryReason(err), undefined, 'not a stale read: retrying does not help');
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "a": .spec.replicas');
    assert.deepEqual(err.conflicts, [{ field: '.spec.replicas', manager: 'a', message: 'conflict with "a"' }]);
    assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' }], 'the cause type under `reason`, as on the wire');
    assert.deepEqual(await gadgets.get('g'), first);
  });

  it('lists every conflicting field, grouped by manager in the message', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ replicas: 2 }), { fieldManager: 'a' });
    await gadgets.apply(gadget({ color: 'red', tags: ['x'] }), { fieldManager: 'b' });
    const err = await conflictOf(gadgets.apply(gadget({ replicas: 3, color: 'blue' }), { fieldManager: 'c' }));
    assert.deepEqual(err.conflicts.map((c) => [c.manager, c.field]), [['a', '.spec.replicas'], ['b', '.spec.color']]);
    assert.equal(err.message, 'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.replicas\nconflicts with "b":\n- .spec.color');
  });

  it('force moves the fields to the applier; the previous owner keeps the rest', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ replicas: 2, color: 'red' }), { fieldManager: 'a' });
    const g = await gadgets.apply(gadget({ replicas: 5 }), { fieldManager: 'b', force: true });
    assert.equal(g.spec!.replicas, 5);
    assert.deepEqual(fieldsOf(g, 'a'), { 'f:spec': { 'f:color': {} } });
    assert.deepEqual(fieldsOf(g, 'b'), { 'f:spec': { 'f:replicas': {} } });
    await conflictOf(gadgets.apply(gadget({ replicas: 2, color: 'red' }), { fieldManager: 'a' }));
  });

  it('applying the same value shares ownership, and a shared field stays when one owner lets go', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ replicas: 2, color: 'red' }), { fieldManager: 'a' });
    const shared = await gadgets.apply(gadget({ replicas: 2 }), { fieldManager: 'b' });
    assert.deepEqual(fieldsOf(shared, 'b'), { 'f:spec': { 'f:replicas': {} } });
    assert.deepEqual(fieldsOf(shared, 'a'), { 'f:spec': { 'f:color': {}, 'f:replicas': {} } });
    const released = await gadgets.apply(gadget({ color: 'red' }), { fieldManager: 'a' });
    assert.equal(released.spec!.replicas, 2, 'b still owns replicas');
    assert.deepEqual(fieldsOf(released, 'a'), { 'f:spec': { 'f:color': {} } });
    const gone = await gadgets.apply(gadget({ tags: [] }), { fieldManager: 'b' });
    assert.equal(gone.spec!.replicas, undefined, 'nobody owns replicas now: removed');
  });

  it('removes the fields a manager stops applying when nobody else owns them', async () => {
    const { gadgets } = setup();
    await gadgets.apply({ ...gadget({ replicas: 2, color: 'red', rules: [{ host: 'h' }] }), metadata: { name: 'g', labels: { app: 'x', tier: 'web' } } }, { fieldManager: 'a' });
    const g = await gadgets.apply({ ...gadget({ color: 'red' }), metadata: { name: 'g', labels: { app: 'x' } } }, { fieldManager: 'a' });
    assert.deepEqual(g.spec, { color: 'red' });
    assert.deepEqual(g.metadata!.labels, { app: 'x' });
    assert.deepEqual(fieldsOf(g, 'a'), { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:color': {} } });
  });

  it('re-applying the same configuration writes nothing; an entry\'s time moves only when the object changes', async () => {
    const { gadgets, now } = setup();
    const a = await gadgets.apply(gadget({ replicas: 2 }), { fieldManager: 'a' });
    now.ms += 60_000;
    const b = await gadgets.apply(gadget({ replicas: 2 }), { fieldManager: 'a' });
    assert.equal(b.metadata!.resourceVersion, a.metadata!.resourceVersion, 'nothing stored');
    assert.deepEqual(b.metadata!.managedFields, a.metadata!.managedFields);
    const c = await gadgets.apply(gadget({ replicas: 2 }), { fieldManager: 'b' });
    assert.notEqual(c.metadata!.resourceVersion, a.metadata!.resourceVersion, 'ownership changed: stored');
    assert.deepEqual(entries(c).map((e) => [e.manager, e.time]), [['b', undefined], ['a', '2024-05-06T07:08:09Z']], 'a no-op apply: no time; sorted by time');
    const d = await gadgets.apply(gadget({ replicas: 2, color: 'red' }), { fieldManager: 'a' });
    assert.deepEqual(entries(d).map((e) => [e.manager, e.time]), [['b', undefined], ['a', '2024-05-06T07:09:09Z']]);
  });

  it('a field applied again after its manager applied nothing of it is set again (spec {value}, {}, {value})', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ replicas: 0 }), { fieldManager: 'a' });
    const empty = await gadgets.apply(gadget({}), { fieldManager: 'a' });
    // Owned as {}, emptied by the removal: null, as structured-merge-diff leaves it (a CRD whose spec is not
    // nullable refuses it, as the 1.36 apiserver does: test/integration/apply.test.ts; this fake has no schema).
    assert.equal(empty.spec, null);
    assert.deepEqual(fieldsOf(empty, 'a'), { 'f:spec': {} });
    const again = await gadgets.apply(gadget({ replicas: 1 }), { fieldManager: 'a' });
    assert.deepEqual(again.spec, { replicas: 1 }, 'spec itself is released, but replicas below it is applied: it stays');
    assert.deepEqual(fieldsOf(again, 'a'), { 'f:spec': { 'f:replicas': {} } });
  });

  it('with the CRD schema, the null an emptied {} leaves is refused with the apiserver\'s 422, and the object kept', async () => {
    const fake = await newFakeTransportFromCrds(exploreCrds as never);
    const parents = new ResourceClient<KubeObject & { spec?: { value?: number } }>(fake, fake.tracker.resourceFor('explore.test/v1', 'Parent')!, 'ns');
    const parent = (spec?: object) => ({ apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { name: 'p' }, ...(spec ? { spec } : {}) }) as never;
    await parents.apply(parent({ value: 0 }), { fieldManager: 'a' });
    await assert.rejects(parents.apply(parent({}), { fieldManager: 'a' }), { message: 'Parent.explore.test "p" is invalid: spec: Invalid value: "null": spec in body must be of type object: "null"' });
    assert.deepEqual((await parents.get('p')).spec, { value: 0 });
    assert.deepEqual((await parents.apply(parent({ value: 1 }), { fieldManager: 'a' })).spec, { value: 1 });
  });

  it('a manager that applies nothing any more owns nothing: its entry goes, and a new apply sets its fields again', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ replicas: 0 }), { fieldManager: 'a' });
    const none = await gadgets.apply(gadget(undefined), { fieldManager: 'a' });
    assert.equal(none.spec, undefined, 'replicas released and removed, then spec left empty');
    assert.equal(none.metadata!.managedFields, undefined, 'no entry left (not the stored one kept)');
    const again = await gadgets.apply(gadget({ replicas: 1 }), { fieldManager: 'a' });
    assert.deepEqual(again.spec, { replicas: 1 });
    assert.deepEqual(fieldsOf(again, 'a'), { 'f:spec': { 'f:replicas': {} } });
  });

  it('removes the objects a removal leaves empty, unless someone owns them as such', async () => {
    const { gadgets } = setup();
    await gadgets.apply({ ...gadget({ color: 'red' }), spec: { color: 'red', template: { config: { mode: 'fast' } } } } as GadgetApply, { fieldManager: 'a' });
    const g = await gadgets.apply(gadget({ color: 'red' }), { fieldManager: 'a' });
    assert.deepEqual(g.spec, { color: 'red' }, 'template and template.config are gone');
    await gadgets.apply({ ...gadget({}), spec: { template: {} } } as GadgetApply, { fieldManager: 'b' });
    await gadgets.apply({ ...gadget({}), spec: { template: { config: { mode: 'fast' } } } } as GadgetApply, { fieldManager: 'a' });
    const h = await gadgets.apply(gadget({ color: 'red' }), { fieldManager: 'a' });
    assert.deepEqual(h.spec, { color: 'red', template: {} }, "b owns the empty template: it stays");
  });

  it('an update without managedFields keeps them; create and update own nothing', async () => {
    const { gadgets } = setup();
    const a = await gadgets.apply(gadget({ replicas: 2 }), { fieldManager: 'a' });
    const u = await gadgets.update({ apiVersion: 'apply.kubegen.io/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'ns' }, spec: { replicas: 2, color: 'x' } });
    assert.deepEqual(u.metadata!.managedFields, a.metadata!.managedFields);
  });
});

describe('fake server-side apply: associative lists and the status subresource', () => {
  it('merges list-map entries by key between managers, and conflicts on a field of an entry another owns', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }), { fieldManager: 'a' });
    const both = await gadgets.apply(gadget({ ports: [{ name: 'dns', protocol: 'UDP', port: 53 }] }), { fieldManager: 'b' });
    assert.deepEqual(both.spec!.ports, [{ name: 'http', protocol: 'TCP', port: 80 }, { name: 'dns', protocol: 'UDP', port: 53 }]);
    assert.deepEqual(fieldsOf(both, 'b'), {
      'f:spec': { 'f:ports': { 'k:{"name":"dns","protocol":"UDP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } } },
    });
    const err = await conflictOf(gadgets.apply(gadget({ ports: [{ name: 'http', protocol: 'TCP', port: 81 }] }), { fieldManager: 'b' }));
    assert.deepEqual(err.conflicts, [{ field: '.spec.ports[name="http",protocol="TCP"].port', manager: 'a', message: 'conflict with "a"' }]);
    const released = await gadgets.apply(gadget({ color: 'red' }), { fieldManager: 'a' });
    assert.deepEqual(released.spec!.ports, [{ name: 'dns', protocol: 'UDP', port: 53 }], "a's entry is removed, b's stays");
  });

  it('fills in a defaulted key the way the apiserver does (not owned), and matches entries with it', async () => {
    const { gadgets } = setup();
    const g = await gadgets.apply(gadget({ ports: [{ name: 'http', port: 80 }] }), { fieldManager: 'a' });
    assert.deepEqual(g.spec!.ports, [{ protocol: 'TCP', name: 'http', port: 80 }]);
    assert.deepEqual(fieldsOf(g, 'a'), { 'f:spec': { 'f:ports': { 'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });
    const err = await conflictOf(gadgets.apply(gadget({ ports: [{ name: 'http', protocol: 'TCP', port: 81 }] }), { fieldManager: 'b' }));
    assert.equal(err.conflicts[0]!.field, '.spec.ports[name="http",protocol="TCP"].port');
  });

  it('orders conflicts as the apiserver: a level\'s own fields before deeper ones', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ replicas: 2, color: 'red', ports: [{ name: 'http', port: 80 }] }), { fieldManager: 'a' });
    const err = await conflictOf(gadgets.apply(gadget({ replicas: 3, color: 'blue', ports: [{ name: 'http', port: 81 }] }), { fieldManager: 'b' }));
    // as kube-apiserver 1.36 answered the same requests
    assert.equal(err.message, 'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.color\n- .spec.replicas\n- .spec.ports[name="http",protocol="TCP"].port');
  });

  it('keeps an entry (with its keys) that another manager still owns a field of', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }), { fieldManager: 'a' });
    await gadgets.apply(gadget({ ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }), { fieldManager: 'b' });
    const g = await gadgets.apply(gadget({ color: 'red' }), { fieldManager: 'a' });
    assert.deepEqual(g.spec!.ports, [{ name: 'http', protocol: 'TCP', port: 80 }]);
  });

  it('merges sets by value and replaces atomic lists', async () => {
    const { gadgets } = setup();
    await gadgets.apply(gadget({ tags: ['a'], rules: [{ host: 'x' }] }), { fieldManager: 'a' });
    const g = await gadgets.apply(gadget({ tags: ['b'] }), { fieldManager: 'b' });
    assert.deepEqual(g.spec!.tags, ['a', 'b']);
    assert.deepEqual(fieldsOf(g, 'a'), { 'f:spec': { 'f:rules': {}, 'f:tags': { 'v:"a"': {} } } });
    const err = await conflictOf(gadgets.apply(gadget({ rules: [{ host: 'y' }] }), { fieldManager: 'b' }));
    assert.equal(err.conflicts[0]!.field, '.spec.rules');
  });

  it('applyStatus owns status fields under subresource status; an apply to the main resource ignores status', async () => {
    const { gadgets } = setup();
    const created = await gadgets.apply(gadget({ replicas: 1 }, { phase: 'Ignored' }), { fieldManager: 'a' });
    assert.equal(created.status, undefined);
    assert.deepEqual(fieldsOf(created, 'a'), { 'f:spec': { 'f:replicas': {} } });
    const s = await gadgets.applyStatus(gadget({ replicas: 9 }, { phase: 'Ready', conditions: [{ type: 'Ready', status: 'True' }] }), { fieldManager: 'ctrl' });
    assert.equal(s.spec!.replicas, 1, 'spec is not taken through status');
    const entry = entries(s).find((e) => e.manager === 'ctrl')!;
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } });
    const err = await conflictOf(gadgets.applyStatus(gadget(undefined, { phase: 'Failed' }), { fieldManager: 'other' }));
    assert.deepEqual(err.conflicts, [{ field: '.status.phase', manager: 'ctrl', message: 'conflict with "ctrl" with subresource "status"' }]);
  });
});

describe('fake server-side apply: atomic objects', () => {
  const ATOMIC: FakeResource = { ...GADGETS, atomicObjects: [['spec', 'template']] };
  const setupAtomic = () => new ResourceClient<Gadget, KubeList<Gadget>, GadgetApply>(newFakeTransportWithOptions({ clock: { now: () => FIXED_NOW } }, [ATOMIC]), ATOMIC, 'ns');
  type Template = NonNullable<GadgetApply['spec']>['template'] & { other?: string };

  it('an atomic object is owned as one field, conflicts as one, and force replaces it whole', async () => {
    const gadgets = setupAtomic();
    const a = await gadgets.apply(gadget({ template: { config: { mode: 'fast' } } }), { fieldManager: 'a' });
    assert.deepEqual(fieldsOf(a, 'a'), { 'f:spec': { 'f:template': {} } });
    const shared = await gadgets.apply(gadget({ template: { config: { mode: 'fast' } } }), { fieldManager: 'b' });
    assert.deepEqual(fieldsOf(shared, 'b'), { 'f:spec': { 'f:template': {} } }, 'the same value: shared');
    const err = await conflictOf(gadgets.apply(gadget({ template: { other: 'x' } as Template }), { fieldManager: 'c' }));
    assert.deepEqual(err.conflicts.map((c) => [c.manager, c.field]), [['a', '.spec.template'], ['b', '.spec.template']]);
    const forced = await gadgets.apply(gadget({ template: { other: 'x' } as Template }), { fieldManager: 'c', force: true });
    assert.deepEqual(forced.spec!.template, { other: 'x' }, 'replaced, not merged');
  });

  it('an owner reference is atomic: its entry is owned by uid, nothing inside it', async () => {
    const gadgets = setupAtomic();
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u-1' };
    const g = await gadgets.apply({ ...gadget(undefined), metadata: { name: 'g', ownerReferences: [ref] } }, { fieldManager: 'a' });
    assert.deepEqual(fieldsOf(g, 'a'), { 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u-1"}': {} } } });
    const err = await conflictOf(gadgets.apply({ ...gadget(undefined), metadata: { name: 'g', ownerReferences: [{ ...ref, name: 'other' }] } }, { fieldManager: 'b' }));
    assert.deepEqual(err.conflicts.map((c) => c.field), ['.metadata.ownerReferences[uid="u-1"]']);
  });
});

describe('fake server-side apply: field manager', () => {
  it('defaults to the program name, then the transport, then the call', async () => {
    const { fake, gadgets } = setup();
    const expected = path.basename(process.argv[1]!).replace(/\.js$/, '');
    assert.equal(defaultFieldManager(), expected);
    const g = await gadgets.apply(gadget({ replicas: 1 }));
    assert.deepEqual(entries(g).map((e) => e.manager), [expected]);
    fake.fieldManager = 'from-transport';
    const h = await gadgets.apply(gadget({ color: 'red' }));
    assert.deepEqual(entries(h).map((e) => e.manager).sort(), [expected, 'from-transport'].sort());
    const i = await gadgets.apply(gadget({ tags: ['t'] }), { fieldManager: 'from-call' });
    assert.deepEqual(entries(i).map((e) => e.manager).sort(), [expected, 'from-call', 'from-transport'].sort());
    assert.deepEqual(fake.actions().map((a) => a.query['fieldManager']), [expected, 'from-transport', 'from-call']);
  });
});
