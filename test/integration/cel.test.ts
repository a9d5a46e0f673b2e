/**
 * CEL validation rules written in TypeScript (`+kubebuilder:validation:XValidation` with rule, message,
 * messageExpression, reason and fieldPath; the union markers that become CEL rules) enforced by a real Kubernetes
 * 1.36 CRD apiserver (the `crd-only` envtest profile). kube-apiserver 1.20 predates CEL, so this runs on 1.36 only.
 * (1.36 also checks a rule's estimated cost when the CRD is installed: `string(int)` in a messageExpression is
 * estimated unbounded and refused, so the message is built with `format`.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { emitCrds } from 'kubegen/internal/generate/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { ApiError, isInvalid } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { crdResourceInfo, installCrds, parseCrds } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { fixture } from '../support/paths.js';
import { sharedEnv, type TestEnv } from './support/env.js';

type Obj = KubeObject & { spec?: Record<string, unknown> };

const GAUGE_TYPES = `import type { int32, ListMeta, ObjectMeta } from '@kubegen/runtime';

/**
 * +kubebuilder:validation:XValidation:rule="self.low <= self.high",messageExpression="'low (%d) is above high (%d)'.format([self.low, self.high])",reason=FieldValueForbidden,fieldPath=".low"
 */
export interface GaugeSpec {
  low: int32;
  high: int32;
  /** +kubebuilder:validation:XValidation:rule="self.startsWith('unit-')",message="unit must start with unit-" */
  unit?: string;
}

/** +kubebuilder:object:root=true */
export interface Gauge {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: GaugeSpec;
}

export interface GaugeList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Gauge[];
}
`;

/** Resolves with the Invalid error `p` fails with (and fails the test if `p` succeeds or fails otherwise). */
async function invalid(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(isInvalid(err), `expected Invalid, got ${String(err)}`);
    return err as ApiError;
  }
  assert.fail('expected the apiserver to refuse the object');
}

describe('CEL rules from TypeScript markers on the CRD apiserver 1.36 (envtest crd-only)', () => {
  let env: TestEnv;
  let dir: string;
  let ns: string;
  let gauges: ResourceClient<Obj>;
  let frigates: ResourceClient<Obj>;
  let widgets: ResourceClient<Obj>;

  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
    ns = await env.newNamespace('cel');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-cel-'));
    const gv = path.join(dir, 'apis', 'gauges', 'v1');
    fs.mkdirSync(gv, { recursive: true });
    fs.writeFileSync(path.join(gv, 'doc.ts'), '/**\n * +groupName=cel.kubegen.dev\n */\nexport {};\n');
    fs.writeFileSync(path.join(gv, 'gauge_types.ts'), GAUGE_TYPES);
    const crds = [
      ...emitCrds(await parseApis(path.join(dir, 'apis'))),
      ...emitCrds(await parseApis(fixture('apis', 'multi', 'apis'))),
      ...emitCrds(await parseApis(fixture('apis', 'markers', 'apis'))),
    ].flatMap((f) => parseCrds(f.content, f.path));
    const installed = await installCrds(env.transport, crds, 30_000);
    const info = (kind: string) => crdResourceInfo(installed.find((c) => c.spec.names.kind === kind)!);
    gauges = new ResourceClient<Obj>(env.transport, info('Gauge'), ns);
    frigates = new ResourceClient<Obj>(env.transport, info('Frigate'), ns);
    widgets = new ResourceClient<Obj>(env.transport, info('Widget'), ns);
  });
  after(async () => {
    await env?.release();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('emits every argument of XValidation into x-kubernetes-validations', async () => {
    const [crd] = emitCrds(await parseApis(path.join(dir, 'apis'))).flatMap((f) => parseCrds(f.content, f.path));
    const spec = (crd!.spec.versions[0]!.schema as { openAPIV3Schema: { properties: { spec: Record<string, unknown> & { properties: { unit: Record<string, unknown> } } } } }).openAPIV3Schema.properties.spec;
    assert.deepEqual(spec['x-kubernetes-validations'], [
      { rule: 'self.low <= self.high', messageExpression: "'low (%d) is above high (%d)'.format([self.low, self.high])", reason: 'FieldValueForbidden', fieldPath: '.low' },
    ]);
    assert.deepEqual(spec.properties.unit['x-kubernetes-validations'], [{ rule: "self.startsWith('unit-')", message: 'unit must start with unit-' }]);
  });

  it('refuses an object breaking a type-level rule, with the messageExpression, reason and fieldPath of the marker', async () => {
    const err = await invalid(gauges.create({ metadata: { name: 'upside-down' }, spec: { low: 5, high: 2 } }));
    const cause = err.status?.details?.causes?.find((c) => c.field === 'spec.low');
    assert.ok(cause, `a cause at spec.low (fieldPath): ${JSON.stringify(err.status?.details?.causes)}`);
    assert.equal(cause.reason, 'FieldValueForbidden');
    assert.match(cause.message ?? '', /low \(5\) is above high \(2\)/);
    assert.ok(await gauges.create({ metadata: { name: 'ok' }, spec: { low: 1, high: 2, unit: 'unit-bar' } }));
  });

  it('refuses an object breaking a field-level rule, naming the message', async () => {
    const err = await invalid(gauges.create({ metadata: { name: 'bad-unit' }, spec: { low: 1, high: 2, unit: 'bar' } }));
    assert.match(err.message, /spec\.unit: Invalid value: .*unit must start with unit-/);
  });

  it('enforces a transition rule (self == oldSelf) on update, and a cross-field rule on create', async () => {
    await invalid(frigates.create({ metadata: { name: 'below' }, spec: { class: 'Light', callSign: 'alpha', replicas: 1, minReplicas: 3 } })).then((err) =>
      assert.match(err.message, /replicas must not be below minReplicas/),
    );
    const created = await frigates.create({ metadata: { name: 'steady' }, spec: { class: 'Light', callSign: 'alpha', replicas: 2, minReplicas: 1 } });
    const err = await invalid(frigates.update({ ...created, spec: { ...created.spec, callSign: 'beta' } }));
    assert.match(err.message, /callSign is immutable/);
  });

  it('enforces the union markers (ExactlyOneOf, AtMostOneOf) that the front end turns into CEL rules', async () => {
    const both = await invalid(widgets.create({ metadata: { name: 'both' }, spec: { source: { git: 'g', url: 'u' }, hosts: ['a'] } }));
    assert.match(both.message, /exactly one of the fields in \[git url\] must be set/);
    const tagged = await invalid(widgets.create({ metadata: { name: 'tagged' }, spec: { source: { git: 'g', revision: 'r', tag: 't' }, hosts: ['a'] } }));
    assert.match(tagged.message, /at most one of the fields in \[revision tag\] may be set/);
    assert.ok(await widgets.create({ metadata: { name: 'fine' }, spec: { source: { git: 'g' }, hosts: ['a'] } }));
  });
});
