/**
 * `explore` on a real control plane (issue 42, `--envtest`): the crash bug of support/explore-controllers.ts (a
 * generated child recorded in status by a second write) is found on kube-apiserver 1.20 (`full`), each run in a
 * namespace of its own, with the same diff and repro as in-process; its twin (which adopts the child it finds) is not
 * flagged under crash and gap; the stale bug (a child without owner reference) is found by a restart onto a frozen
 * view of the run's namespace from before the delete; `kubegen explore --envtest crd-only` finds the bug on the CRD apiserver 1.36 and exits 1; a cluster-scoped
 * object in the scenario is refused with exit 2, naming it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { dump } from 'js-yaml';
import { explore, formatReport, type ScenarioStep } from '@kubegen/runtime/testing/explore';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { childController, exploreCrds, mirrorController } from '../support/explore-controllers.js';
import { runCli } from '../support/cli.js';

const ref = { apiVersion: 'explore.test/v1', kind: 'Parent', namespace: 'ns', name: 'p' };
const steps: ScenarioStep[] = [{ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'ns', name: 'p' }, spec: { value: 1 } } }, { patch: { ...ref, patch: { spec: { value: 2 } } } }];
const crds = exploreCrds as never;

describe('explore --envtest', () => {
  let env: Envtest;
  before(async () => {
    env = await Envtest.start({ crds: exploreCrds });
  });
  after(async () => {
    await env?.stop();
  });

  it('finds the crash bug on kube-apiserver 1.20, a namespace per run', async () => {
    const report = await explore({ setup: childController(false), crds, steps, faults: ['crash'], envtest: env });
    assert.equal(report.controlPlane, 'envtest full');
    assert.ok(report.referenceRequests.length >= 2, report.referenceRequests.join('\n'));
    assert.equal(report.faults.crash?.tried, report.referenceRequests.length, formatReport(report));
    const first = report.divergences[0];
    assert.ok(first, formatReport(report));
    assert.equal(first.fault, 'crash');
    assert.equal(first.at.point, 'crash@1', formatReport(report));
    assert.match(first.at.requestText ?? '', /create children explore-\w+\/p-/);
    assert.deepEqual(first.diff, [{ object: 'Child ns/p-*', field: '(object)', reference: 'present', perturbed: '2 objects' }]);
    assert.equal(first.repro, '--seed 1 --only crash@1');
    assert.match(formatReport(report), /on envtest full: a namespace per run/);
  });

  it('finds the stale bug: a restart onto the view from before the delete leaves a child nobody deletes', async () => {
    const report = await explore({ setup: mirrorController(false), crds, steps: [steps[0]!, { delete: ref }], faults: ['stale'], envtest: env });
    assert.equal(report.faults.stale?.tried, 2, formatReport(report));
    assert.deepEqual(
      report.divergences.map((d) => [d.at.point, d.diff]),
      [['stale@2', [{ object: 'Child ns/p-mirror', field: '(object)', reference: 'absent', perturbed: 'present' }]]],
      formatReport(report),
    );
  });

  it('does not flag the twin, which adopts the child it finds by label', async () => {
    const report = await explore({ setup: childController(true), crds, steps, faults: ['crash', 'gap'], envtest: env });
    assert.deepEqual(report.divergences, [], formatReport(report));
    assert.ok((report.faults.crash?.tried ?? 0) >= 2, formatReport(report));
    assert.equal(report.faults.gap?.tried, 2);
  });
});

describe('kubegen explore --envtest', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kubegen-explore-envtest-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const setups = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'explore-setups');
  writeFileSync(path.join(dir, 'crds.yaml'), exploreCrds.map((c) => dump(c)).join('---\n'));
  writeFileSync(path.join(dir, 'scenario.yaml'), dump(steps));

  it('crd-only: exits 1 on the crash bug, with the point and its repro', async () => {
    const r = await runCli(dir, 'explore', '--crds', 'crds.yaml', '--setup', path.join(setups, 'child-leak.js'), '--scenario', 'scenario.yaml', '--only', 'crash@1', '--envtest', 'crd-only');
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(r.out, /^crash +1 +1$/m);
    assert.match(r.out, /on envtest crd-only: a namespace per run/);
    assert.match(r.out, /Child ns\/p-\* \(object\): reference "present", perturbed "2 objects"\n {2}reproduce: --seed 1 --only crash@1/);
  });

  it('refuses a cluster-scoped object with exit 2, naming it', async () => {
    const clusterCrd = { ...exploreCrds[0]!, metadata: { name: 'parents.explore.test' }, spec: { ...(exploreCrds[0]!['spec'] as object), scope: 'Cluster' } };
    writeFileSync(path.join(dir, 'cluster-crds.yaml'), dump(clusterCrd));
    writeFileSync(path.join(dir, 'cluster-scenario.yaml'), dump([{ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { name: 'p' }, spec: { value: 1 } } }]));
    const r = await runCli(dir, 'explore', '--crds', 'cluster-crds.yaml', '--setup', path.join(setups, 'child-leak.js'), '--scenario', 'cluster-scenario.yaml', '--envtest');
    assert.equal(r.code, 2, r.err + r.out);
    assert.match(r.err, /cluster-scenario\.yaml:\d+:\d+: step 1: Parent p is cluster-scoped: --envtest runs every run in a namespace of its own/);
  });
});
