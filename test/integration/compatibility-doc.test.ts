/**
 * docs/compatibility.md says which group versions each envtest profile serves; this reads discovery on the running
 * `full`, `cluster` and `crd-only` control planes and fails when the doc's table is not what they serve.
 * `UPDATE_GOLDEN=1` rewrites the table instead (then review the diff).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EnvtestProfile } from '@kubegen/runtime/internal/testing/envtest/envtest-profiles.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { COMPATIBILITY_DOC, documentedTable, renderServedTable, servedKinds, TABLE_PROFILES, writeDocumentedTable, type ServedKinds } from './support/served-group-versions.js';

describe('docs/compatibility.md: the group versions each envtest profile serves', () => {
  const envs: TestEnv[] = [];
  const served = new Map<EnvtestProfile, ServedKinds>();
  before(async () => {
    for (const profile of TABLE_PROFILES) {
      const env = await sharedEnv({ profile });
      envs.push(env);
      served.set(profile, await servedKinds(env.transport, profile));
    }
  });
  after(async () => {
    for (const env of envs) await env.release();
  });

  it('what discovery says matches what the profiles are known for', () => {
    const full = served.get('full')!;
    const crdOnly = served.get('crd-only')!;
    assert.ok(full.has('policy/v1beta1') && !full.has('policy/v1'), 'kube-apiserver 1.20 serves policy/v1beta1 only');
    assert.ok(full.has('batch/v1beta1') && full.get('batch/v1')?.includes('Job') && !full.get('batch/v1')?.includes('CronJob'), 'CronJob is batch/v1beta1 on 1.20');
    assert.deepEqual([...crdOnly.keys()].sort(), ['apiextensions.k8s.io/v1', 'coordination.k8s.io/v1'], 'the CRD apiserver: CRDs, and its Lease CRD');
    assert.deepEqual([...served.get('cluster')!.keys()], [...full.keys()], 'cluster runs the same kube-apiserver as full');
  });

  it('the table in the doc is what the profiles serve', () => {
    const table = renderServedTable(served);
    if (process.env['UPDATE_GOLDEN'] === '1') writeDocumentedTable(table);
    assert.equal(documentedTable(), table, `${COMPATIBILITY_DOC}: the envtest group-version table differs from what the profiles serve (UPDATE_GOLDEN=1 rewrites it)`);
  });
});
