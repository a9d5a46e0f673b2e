/**
 * CRDs emitted from TypeScript types (fixtures/apis/multi) against a real kube-apiserver (envtest, 1.20): they are
 * accepted and established, valid objects are stored (with marker defaults applied by the server), and objects
 * violating a marker (Maximum, Enum, Pattern, MinItems, required) are rejected as Invalid. CEL rules are not
 * enforced by 1.20 (x-kubernetes-validations is dropped by that server): test/integration/cel.test.ts asserts them on
 * the CRD apiserver 1.36.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { emitCrds } from 'kubegen/internal/generate/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { isInvalid } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { crdResourceInfo, installCrds, parseCrds } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import type { CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { fixture } from '../support/paths.js';
import { sharedEnv, uniqueName, type TestEnv } from './support/env.js';

type Obj = KubeObject & { spec?: Record<string, unknown> };

async function rejectsInvalid(p: Promise<unknown>, field: RegExp): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.ok(isInvalid(err), `expected Invalid, got ${String(err)}`);
    assert.match((err as Error).message, field);
    return;
  }
  assert.fail('expected the apiserver to reject the object');
}

describe('CRDs from TypeScript types on a real apiserver', () => {
  let env: TestEnv;
  let ns: string;
  let crds: CrdObject[];
  let frigates: ResourceClient<Obj>;
  let fleets: ResourceClient<Obj>;
  let harbors: ResourceClient<Obj>;

  before(async () => {
    env = await sharedEnv();
    ns = await env.newNamespace('apis');
    const model = await parseApis(fixture('apis', 'multi', 'apis'));
    crds = emitCrds(model).flatMap((f) => parseCrds(f.content, f.path));
    const installed = await installCrds(env.transport, crds);
    const info = (kind: string, version?: string) => crdResourceInfo(installed.find((c) => c.spec.names.kind === kind)!, version);
    frigates = new ResourceClient<Obj>(env.transport, info('Frigate', 'v1'), ns);
    fleets = new ResourceClient<Obj>(env.transport, info('Fleet'));
    harbors = new ResourceClient<Obj>(env.transport, info('Harbor'), ns);
  });
  after(async () => env?.release());

  it('accepts and establishes every emitted CRD (all versions served, one storage)', async () => {
    assert.equal(crds.length, 3);
    const frigate = crds.find((c) => c.spec.names.kind === 'Frigate')!;
    assert.deepEqual(frigate.spec.versions.map((v) => [v.name, v.served, v.storage]), [['v1', true, true], ['v1beta1', true, false]]);
  });

  it('stores a valid object and applies marker defaults', async () => {
    const created = await frigates.create({ metadata: { name: 'ok' }, spec: { class: 'Light', callSign: 'alpha', crew: [{ role: 'captain', name: 'Ann' }], cargo: { hold1: '10Gi', hold2: 3 } } });
    assert.equal(created.spec?.['replicas'], 1, 'the +kubebuilder:default=1 was applied by the server');
    assert.deepEqual(created.spec?.['cargo'], { hold1: '10Gi', hold2: 3 });
    const h = await harbors.create({ metadata: { name: 'h' }, spec: { berths: [{ name: 'b1', depthMeters: 7.5 }], settings: { any: { thing: 1 } } } });
    assert.deepEqual(h.spec?.['settings'], { any: { thing: 1 } }, 'preserve-unknown kept the free-form data');
  });

  it('rejects objects that violate a marker', async () => {
    const base = { class: 'Light', callSign: 'alpha' };
    await rejectsInvalid(frigates.create({ metadata: { name: 'too-many' }, spec: { ...base, replicas: 200 } }), /spec\.replicas.*100/);
    await rejectsInvalid(frigates.create({ metadata: { name: 'bad-class' }, spec: { ...base, class: 'Huge' } }), /spec\.class/);
    await rejectsInvalid(frigates.create({ metadata: { name: 'bad-sign' }, spec: { ...base, callSign: 'Not A Label' } }), /spec\.callSign/);
    await rejectsInvalid(frigates.create({ metadata: { name: 'no-class' }, spec: { callSign: 'x' } }), /spec\.class.*Required/);
    await rejectsInvalid(frigates.create({ metadata: { name: 'bad-cargo' }, spec: { ...base, cargo: { h: '10 tons' } } }), /spec\.cargo/);
    await rejectsInvalid(fleets.create({ metadata: { name: uniqueName('fleet') }, spec: { heading: 'up' } }), /spec\.heading/);
    await rejectsInvalid(harbors.create({ metadata: { name: 'empty' }, spec: { berths: [] } }), /spec\.berths/);
    await rejectsInvalid(harbors.create({ metadata: { name: 'deep' }, spec: { berths: [{ name: 'b', depthMeters: 7.3 }] } }), /depthMeters/);
  });
});
