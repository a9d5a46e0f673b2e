/**
 * Typed server-side apply against a real Kubernetes 1.36 CRD apiserver (the `crd-only` envtest profile; issue 12):
 * conflicts come back as `ApplyConflictError` naming the owner and the field, `force` moves ownership, a field a
 * manager stops applying is removed, the default field manager is the program's name, list-map entries of two
 * managers merge by key, status applies own status fields, a field a manager stopped applying (an empty spec, or
 * nothing) is set again by its next apply. Every step also runs on the fake tracker, which must
 * answer the same (objects, managedFields, conflicts): the fake's apply is checked against the real thing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { associativeLists } from 'kubegen/internal/generate/register/index.js';
import { defaultFieldManager } from '@kubegen/runtime/internal/client/apply.js';
import { withFieldOwner } from '@kubegen/runtime/internal/client/field-owner.js';
import type { ApplyObjectMeta, ListMapEntry } from '@kubegen/runtime/internal/client/apply.js';
import { isApplyConflict } from '@kubegen/runtime/internal/client/errors.js';
import type { ApplyConflict } from '@kubegen/runtime/internal/client/errors.js';
import type { ApplyOptions } from '@kubegen/runtime/internal/client/interfaces.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeList, KubeObject, ResourceDescriptor, Transport } from '@kubegen/runtime/internal/client/types.js';
import { crdResourceInfo, installCrds, parseCrds } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { crdValidation } from '@kubegen/runtime/internal/testing/fake/fake-validation.js';
import { fixture } from '../support/paths.js';
import { sharedEnv, type TestEnv } from './support/env.js';

interface Port { name?: string; protocol?: string; port?: number }
interface Gadget extends KubeObject {
  spec?: { replicas?: number; color?: string; ports?: Port[]; tags?: string[]; template?: { config?: { mode?: string } } };
  status?: { conditions?: { type?: string; status?: string }[] };
}
/** What `kubegen generate` writes for fixtures/apply/gadgets.yaml (see test/unit/apply-configurations.test.ts), trimmed. */
interface GadgetApply {
  apiVersion: 'apply.kubegen.io/v1';
  kind: 'Gadget';
  metadata: ApplyObjectMeta;
  spec?: { replicas?: number; color?: string; ports?: ListMapEntry<Port, 'name'>[]; tags?: string[]; template?: { config?: { mode?: 'fast' | 'safe' } } };
  status?: { conditions?: ListMapEntry<{ type?: string; status?: 'True' | 'False' | 'Unknown' }, 'type'>[] };
}
type Gadgets = ResourceClient<Gadget, KubeList<Gadget>, GadgetApply>;

const gadget = (name: string, rest: Omit<GadgetApply, 'apiVersion' | 'kind' | 'metadata'>): GadgetApply => ({
  apiVersion: 'apply.kubegen.io/v1',
  kind: 'Gadget',
  metadata: { name },
  ...rest,
});

/** An apply's outcome in comparable form: the object's content and managedFields (time as present or not), or the conflict. */
type Outcome =
  | { spec: unknown; status: unknown; managedFields: unknown }
  | { conflict: { message: string; conflicts: readonly ApplyConflict[] } };

async function outcome(p: Promise<Gadget>): Promise<Outcome> {
  try {
    const o = await p;
    // Sorted by manager and subresource: the apiserver orders entries by operation, then by their time in whole
    // seconds, so the order of two runs (the real one and the fake's) differs when a step crosses a second boundary.
    const key = (e: Record<string, unknown>): string => `${String(e['operation'])}/${String(e['manager'])}/${String(e['subresource'] ?? '')}`;
    const managedFields = ((o.metadata?.managedFields ?? []) as Record<string, unknown>[])
      .map(({ time, ...e }) => ({ ...e, timed: time !== undefined }))
      .sort((a, b) => key(a).localeCompare(key(b)));
    return { spec: o.spec, status: o.status, managedFields };
  } catch (err) {
    if (!isApplyConflict(err)) throw err;
    return { conflict: { message: err.message, conflicts: err.conflicts } };
  }
}

/** The scenario, step by step; each step's outcome is recorded under its label. */
async function scenario(gadgets: Gadgets, name: string): Promise<Map<string, Outcome>> {
  const steps = new Map<string, Outcome>();
  const step = async (label: string, config: Omit<GadgetApply, 'apiVersion' | 'kind' | 'metadata'>, opts?: ApplyOptions, status = false): Promise<Outcome> => {
    const o = await outcome(status ? gadgets.applyStatus(gadget(name, config), opts) : gadgets.apply(gadget(name, config), opts));
    steps.set(label, o);
    return o;
  };
  await step('a creates', { spec: { replicas: 2, color: 'red', ports: [{ name: 'http', port: 80 }], tags: ['a'], template: { config: { mode: 'fast' } } } }, { fieldManager: 'a' });
  await step('b conflicts', { spec: { replicas: 3, color: 'blue', ports: [{ name: 'http', port: 81 }] } }, { fieldManager: 'b' });
  await step('b forces', { spec: { replicas: 3 } }, { fieldManager: 'b', force: true });
  await step('a drops replicas and template', { spec: { color: 'red', ports: [{ name: 'http', port: 80 }], tags: ['a'] } }, { fieldManager: 'a' });
  await step('b adds a port', { spec: { replicas: 3, ports: [{ name: 'dns', protocol: 'UDP', port: 53 }], tags: ['b'] } }, { fieldManager: 'b' });
  await step('a drops its port and tag', { spec: { color: 'red' } }, { fieldManager: 'a' });
  await step('default manager shares color', { spec: { color: 'red' } });
  await step('st applies status', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, { fieldManager: 'st' }, true);
  await step('st2 conflicts on status', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, { fieldManager: 'st2' }, true);
  // Another object: a manager that stops applying a field, then applies it again (the fake once left no spec).
  const again = async (label: string, config: Omit<GadgetApply, 'apiVersion' | 'kind' | 'metadata'>): Promise<void> => {
    steps.set(label, await outcome(gadgets.apply(gadget(`${name}-again`, config), { fieldManager: 'c' })).catch((err: unknown) => ({ error: String(err) }) as never));
  };
  await again('c applies replicas 0', { spec: { replicas: 0 } });
  await again('c applies an empty spec', { spec: {} });
  await again('c applies replicas 1', { spec: { replicas: 1 } });
  await again('c applies nothing', {});
  await again('c applies replicas 1 again', { spec: { replicas: 1 } });
  return steps;
}

describe('typed server-side apply on the CRD apiserver 1.36 (envtest crd-only), and the fake tracker against it', () => {
  let env: TestEnv;
  let real: Map<string, Outcome>;
  let fake: Map<string, Outcome>;
  const name = 'gadget-1';
  let ns: string;
  let info: ResourceDescriptor;

  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
    ns = await env.newNamespace('apply');
    const [crd] = await installCrds(env.transport, parseCrds(fs.readFileSync(fixture('apply', 'gadgets.yaml'), 'utf8'), 'gadgets.yaml'), 30_000);
    info = crdResourceInfo(crd!);
    real = await scenario(new ResourceClient<Gadget, KubeList<Gadget>, GadgetApply>(env.transport, info, ns), name);
    const schema = (crd!.spec.versions[0]!.schema as { openAPIV3Schema: JSONSchemaProps }).openAPIV3Schema;
    const descriptor: ResourceDescriptor = { ...info, statusSubresource: true, associativeLists: associativeLists(schema) };
    const transport = newFakeTransport([descriptor]);
    // The CRD's schema too, as the apiserver validates the result of an apply (a null the merge leaves is refused).
    transport.tracker.validation = await crdValidation([crd!] as never);
    fake = await scenario(new ResourceClient<Gadget, KubeList<Gadget>, GadgetApply>(transport, descriptor, ns), name);
  });
  after(async () => {
    await env?.release();
  });

  const at = (steps: Map<string, Outcome>, label: string) => steps.get(label)!;
  const objectAt = (steps: Map<string, Outcome>, label: string) => {
    const o = at(steps, label);
    assert.ok(!('conflict' in o), `${label}: applied`);
    return o as { spec: Gadget['spec']; status: Gadget['status']; managedFields: { manager: string; fieldsV1: unknown; subresource?: string; timed: boolean }[] };
  };

  it('a second manager applying a different value gets an ApplyConflictError naming the owner and the field', () => {
    const o = at(real, 'b conflicts');
    assert.ok('conflict' in o, 'a conflict');
    assert.deepEqual(o.conflict.conflicts, [
      { field: '.spec.color', manager: 'a', message: 'conflict with "a"' },
      { field: '.spec.replicas', manager: 'a', message: 'conflict with "a"' },
      { field: '.spec.ports[name="http",protocol="TCP"].port', manager: 'a', message: 'conflict with "a"' },
    ]);
  });

  it('force moves the field to the applier; a field the owner stops applying is removed unless another owns it', () => {
    const forced = objectAt(real, 'b forces');
    assert.equal(forced.spec!.replicas, 3);
    assert.deepEqual(forced.managedFields.find((e) => e.manager === 'b')!.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    const dropped = objectAt(real, 'a drops replicas and template');
    assert.equal(dropped.spec!.replicas, 3, 'b owns replicas: kept');
    assert.equal(dropped.spec!.template, undefined, 'nobody else owned template: removed');
  });

  it('merges list-map entries of two managers by key, and removes only the entry its manager dropped', () => {
    assert.deepEqual(objectAt(real, 'b adds a port').spec!.ports, [
      { name: 'http', port: 80, protocol: 'TCP' },
      { name: 'dns', port: 53, protocol: 'UDP' },
    ]);
    const after = objectAt(real, 'a drops its port and tag');
    assert.deepEqual(after.spec!.ports, [{ name: 'dns', port: 53, protocol: 'UDP' }]);
    assert.deepEqual(after.spec!.tags, ['b']);
  });

  it('withFieldOwner: create, update and patch are written as the owner too (managedFields operation Update)', async () => {
    const owned = new ResourceClient<Gadget, KubeList<Gadget>, GadgetApply>(withFieldOwner(env.transport, 'kv-operator'), info, ns);
    const created = await owned.create({ apiVersion: 'apply.kubegen.io/v1', kind: 'Gadget', metadata: { name: 'owned' }, spec: { color: 'red' } });
    await owned.update({ ...created, spec: { ...created.spec, replicas: 1 } });
    const patched = await owned.patch('owned', { type: 'merge', patch: { spec: { tags: ['x'] } } });
    const managers = (patched.metadata?.managedFields ?? []).map((f) => `${f.manager}/${f.operation}`);
    assert.deepEqual(managers, ['kv-operator/Update'], 'one manager owns every field it wrote');
    const fields = JSON.stringify(patched.metadata!.managedFields![0]!.fieldsV1);
    for (const f of ['f:color', 'f:replicas', 'f:tags']) assert.ok(fields.includes(f), `${f} owned by kv-operator: ${fields}`);
  });

  it('the default field manager is the program\'s name, as managedFields show', () => {
    const o = objectAt(real, 'default manager shares color');
    assert.equal(defaultFieldManager(), 'apply.test');
    assert.deepEqual(o.managedFields.find((e) => e.manager === 'apply.test')?.fieldsV1, { 'f:spec': { 'f:color': {} } });
  });

  it('status applies own status fields under subresource status, and conflict as such', () => {
    const o = objectAt(real, 'st applies status');
    assert.equal(o.managedFields.find((e) => e.manager === 'st')?.subresource, 'status');
    const c = at(real, 'st2 conflicts on status');
    assert.ok('conflict' in c);
    assert.deepEqual(c.conflict.conflicts, [{ field: '.status.conditions[type="Ready"].status', manager: 'st', message: 'conflict with "st" with subresource "status"' }]);
  });

  it('a field a manager stopped applying (spec {} or nothing) is set again by its next apply', () => {
    // Structured-merge-diff leaves spec (owned as {}) null once replicas goes: the CRD's schema refuses it.
    assert.match(String((at(real, 'c applies an empty spec') as unknown as { error: string }).error), /is invalid: spec: Invalid value: "null": spec in body must be of type object/);
    assert.deepEqual(objectAt(real, 'c applies replicas 1').spec, { replicas: 1 });
    assert.equal(objectAt(real, 'c applies nothing').spec, undefined);
    const last = objectAt(real, 'c applies replicas 1 again');
    assert.deepEqual(last.spec, { replicas: 1 });
    assert.deepEqual(last.managedFields.map((e) => [e.manager, e.fieldsV1]), [['c', { 'f:spec': { 'f:replicas': {} } }]]);
  });

  it('the fake tracker answers every step as the apiserver did (objects, managedFields, conflicts)', () => {
    assert.deepEqual([...fake.keys()], [...real.keys()]);
    for (const [label, o] of real) assert.deepEqual(fake.get(label), o, `step "${label}"`);
  });
});
