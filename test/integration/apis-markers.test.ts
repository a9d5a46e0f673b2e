/**
 * The marker groups added to the TypeScript front end (fixtures/apis/markers) against a real kube-apiserver
 * (envtest, 1.20): the CRD is accepted, the package-level `+kubebuilder:validation:Optional` leaves unmarked fields
 * optional while `+required` still requires, and `+kubebuilder:validation:items:*` constraints are enforced on array
 * items. The union markers are CEL rules, which 1.20 drops, so they are asserted in the unit tests only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { emitCrds } from 'kubegen/internal/generate/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { isInvalid } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { crdResourceInfo, installCrds, parseCrds } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { fixture } from '../support/paths.js';
import { sharedEnv, type TestEnv } from './support/env.js';

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

describe('package-level optional and array item markers on a real apiserver', () => {
  let env: TestEnv;
  let widgets: ResourceClient<Obj>;

  before(async () => {
    env = await sharedEnv();
    const ns = await env.newNamespace('apis-markers');
    const model = await parseApis(fixture('apis', 'markers', 'apis'));
    const crds = emitCrds(model).flatMap((f) => parseCrds(f.content, f.path));
    const installed = await installCrds(env.transport, crds);
    widgets = new ResourceClient<Obj>(env.transport, crdResourceInfo(installed[0]!), ns);
  });
  after(async () => env?.release());

  it('stores objects that leave package-optional fields out and whose items are valid', async () => {
    const minimal = await widgets.create({ metadata: { name: 'minimal' }, spec: { source: { git: 'https://example.com/r.git' } } });
    assert.deepEqual(minimal.spec, { source: { git: 'https://example.com/r.git' } });
    const full = { source: { url: 'u' }, hosts: ['a-1', 'b'], ports: [80, 65535], colors: ['red', 'blue'], matrix: [['x']] };
    assert.deepEqual((await widgets.create({ metadata: { name: 'full' }, spec: full })).spec, full);
  });

  it('rejects a missing +required field and array items that violate an items marker', async () => {
    await rejectsInvalid(widgets.create({ metadata: { name: 'no-source' }, spec: { hosts: ['a'] } }), /spec\.source.*Required/);
    const source = { git: 'g' };
    await rejectsInvalid(widgets.create({ metadata: { name: 'port0' }, spec: { source, ports: [0] } }), /spec\.ports.*greater than or equal to 1/);
    await rejectsInvalid(widgets.create({ metadata: { name: 'host' }, spec: { source, hosts: ['ok', 'Not_OK'] } }), /spec\.hosts.*\^\[a-z0-9-\]\+\$/);
    await rejectsInvalid(widgets.create({ metadata: { name: 'color' }, spec: { source, colors: ['pink'] } }), /spec\.colors.*supported values.*red/);
    await rejectsInvalid(widgets.create({ metadata: { name: 'matrix' }, spec: { source, matrix: [['a'], []] } }), /spec\.matrix.*at least 1 items/);
  });
});
