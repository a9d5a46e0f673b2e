/**
 * `kubegen explore` (issue 42, item 4): exit 0 when no fault point diverges (the crash bug's twin), 1 when one does
 * (the crash bug: the summary table, the crash point and its repro on stdout, the JSON report with the divergence;
 * the stale bug under --faults stale, naming the step),
 * 2 on bad input: a setup module that does not load, a scenario that does not parse or names an unserved kind (with
 * file and line), a CRD that does not parse, an unknown fault; with --envtest, an unknown profile and a scenario in
 * two namespaces (before any apiserver starts; the rest of --envtest is test/integration/explore-envtest.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dump } from 'js-yaml';
import { runCli } from '../support/cli.js';
import { exploreCrds } from '../support/explore-controllers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kubegen-explore-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const setups = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'explore-setups');
const file = (name: string, text: string): string => {
  writeFileSync(path.join(dir, name), text);
  return name;
};
file('crds.yaml', exploreCrds.map((c) => dump(c)).join('---\n'));
const ref = { apiVersion: 'explore.test/v1', kind: 'Parent', namespace: 'ns', name: 'p' };
file('scenario.yaml', dump([{ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'ns', name: 'p' }, spec: { value: 1 } } }, { patch: { ...ref, patch: { spec: { value: 2 } } } }]));
const explore = (...args: string[]) => runCli(dir, 'explore', '--crds', 'crds.yaml', ...args);

describe('kubegen explore', () => {
  it('exits 0 when nothing diverges', async () => {
    const r = await explore('--setup', path.join(setups, 'child-adopt.js'), '--scenario', 'scenario.yaml', '--report', 'out/report.json');
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /^FAULT +TRIED +DIVERGENCES\ncrash +\d+ +0\nstale +2 +0\ngap +2 +0\n/);
    const report = JSON.parse(readFileSync(path.join(dir, 'out/report.json'), 'utf8'));
    assert.deepEqual(report.divergences, []);
    assert.equal(report.runs, report.faults.crash.tried + report.faults.stale.tried + report.faults.gap.tried + 1);
  });

  it('exits 1 with the crash point, its diff and repro when the crash bug is there', async () => {
    const r = await explore('--setup', path.join(setups, 'child-leak.js'), '--scenario', 'scenario.yaml', '--faults', 'crash', '--report', 'report.json');
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(r.out, /crash at crash@1: during step 1 \(apply Parent ns\/p\), right after #1 create children ns\/p-\w+\n {2}Child ns\/p-\* \(object\): reference "present", perturbed "2 objects"\n {2}reproduce: --seed 1 --only crash@1/);
    assert.doesNotMatch(r.out, /^gap/m);
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8'));
    assert.equal(report.divergences[0].fault, 'crash');
    assert.equal(report.divergences[0].repro, '--seed 1 --only crash@1');
    const only = await explore('--setup', path.join(setups, 'child-leak.js'), '--scenario', 'scenario.yaml', '--only', 'crash@1', '--seed', '7');
    assert.equal(only.code, 1);
    assert.match(only.out, /^crash +1 +1$/m);
    assert.match(only.out, /reproduce: --seed 7 --only crash@1/);
  });

  it('--faults mutate: exits 1 on the controller that only scales up, naming the sequence and its repro', async () => {
    const r = await explore('--setup', path.join(setups, 'scale-up.js'), '--scenario', 'scenario.yaml', '--faults', 'mutate');
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(r.out, /^mutate +20 +[1-9]\d*$/m);
    const point = /^mutate at (mutate@\d+): spec changed after step 1 \(apply Parent ns\/p, then spec /m.exec(r.out)?.[1];
    assert.ok(point, r.out);
    assert.match(r.out, new RegExp(`reproduce: --seed 1 --only ${point}\n`));
    const only = await explore('--setup', path.join(setups, 'scale-up.js'), '--scenario', 'scenario.yaml', '--only', point!);
    assert.equal(only.code, 1, only.out);
    assert.match(only.out, /^mutate +1 +1$/m);
  });

  it('--faults stale: exits 1 on the controller whose child outlives a restart onto a stale view, naming the step', async () => {
    file('stale.yaml', dump([{ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'ns', name: 'p' }, spec: { value: 1 } } }, { delete: ref }]));
    const r = await explore('--setup', path.join(setups, 'mirror-unowned.js'), '--scenario', 'stale.yaml', '--faults', 'stale');
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(r.out, /^FAULT +TRIED +DIVERGENCES\nstale +2 +1\n/);
    assert.match(r.out, /stale at stale@2: restarted after step 2 onto the state before it, then caught up \(delete Parent ns\/p\)\n {2}Child ns\/p-mirror \(object\): reference "absent", perturbed "present"\n {2}reproduce: --seed 1 --only stale@2/);
  });

  it('--budget: runs a sample of the points named by --seed, printing what it skipped; a bad budget exits 2', async () => {
    const r = await explore('--setup', path.join(setups, 'child-leak.js'), '--scenario', 'scenario.yaml', '--faults', 'crash,gap', '--budget', '2', '--seed', '5', '--report', 'budget.json');
    assert.ok(r.code === 0 || r.code === 1, r.err + r.out);
    assert.match(r.out, /^FAULT +TRIED +DIVERGENCES +SKIPPED\n/);
    assert.match(r.out, /^budget 2 runs, seed 5: a seeded sample of the points; [1-9]\d* skipped/m);
    const report = JSON.parse(readFileSync(path.join(dir, 'budget.json'), 'utf8'));
    assert.equal(report.runs, 2);
    assert.deepEqual(report.budget, { runs: 2 });
    const bad = await explore('--setup', path.join(setups, 'child-leak.js'), '--scenario', 'scenario.yaml', '--budget', 'soon');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^error: --budget soon: expected a number of runs \(200\) or a duration/);
  });

  it('exits 2 on bad input, naming the file (and line)', async () => {
    const setup = path.join(setups, 'child-adopt.js');
    const missing = await explore('--setup', 'nowhere.js', '--scenario', 'scenario.yaml');
    assert.equal(missing.code, 2);
    assert.match(missing.err, /^error: nowhere\.js: cannot load the setup module/);
    file('nodefault.mjs', 'export const x = 1;\n');
    const noDefault = await explore('--setup', 'nodefault.mjs', '--scenario', 'scenario.yaml');
    assert.equal(noDefault.code, 2);
    assert.match(noDefault.err, /nodefault\.mjs: exports no default function setup\(mgr\)/);
    file('broken.yaml', '- apply:\n    kind: [unclosed\n');
    const broken = await explore('--setup', setup, '--scenario', 'broken.yaml');
    assert.equal(broken.code, 2);
    assert.match(broken.err, /^error: broken\.yaml:\d+:\d+: /);
    file('unserved.yaml', dump([{ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'ns', name: 'p' } } }, { delete: { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'ns', name: 'x' } }]));
    const unserved = await explore('--setup', setup, '--scenario', 'unserved.yaml');
    assert.equal(unserved.code, 2);
    assert.match(unserved.err, /^error: unserved\.yaml:7:3: step 2: example\.com\/v1 Widget is not served/);
    file('badcrd.yaml', 'kind: CustomResourceDefinition\nspec: {\n');
    const badCrd = await runCli(dir, 'explore', '--crds', 'badcrd.yaml', '--setup', setup, '--scenario', 'scenario.yaml');
    assert.equal(badCrd.code, 2);
    assert.match(badCrd.err, /^error: badcrd\.yaml:\d+:\d+: /);
    const fault = await explore('--setup', setup, '--scenario', 'scenario.yaml', '--faults', 'crash,nope');
    assert.equal(fault.code, 2);
    assert.match(fault.err, /unknown fault nope/);
  });

  it('--envtest: a profile it does not know, or a scenario in two namespaces, exits 2 before any apiserver starts', async () => {
    const setup = path.join(setups, 'child-adopt.js');
    const profile = await explore('--setup', setup, '--scenario', 'scenario.yaml', '--envtest', 'cluster');
    assert.equal(profile.code, 2);
    assert.match(profile.err, /^error: --envtest: unknown profile cluster \(known: full, crd-only\)/);
    file('two-ns.yaml', dump([{ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'ns', name: 'p' } } }, { apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'other', name: 'q' } } }]));
    const twoNs = await explore('--setup', setup, '--scenario', 'two-ns.yaml', '--envtest');
    assert.equal(twoNs.code, 2, twoNs.err + twoNs.out);
    assert.match(twoNs.err, /^error: two-ns\.yaml:\d+:\d+: step 2: Parent other\/q: --envtest takes a scenario in one namespace \(each run gets one of its own\), and an earlier step uses ns/);
    file('unserved-envtest.yaml', dump([{ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'ns', name: 'p' } } }, { delete: { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'ns', name: 'x' } }]));
    const unserved = await explore('--setup', setup, '--scenario', 'unserved-envtest.yaml', '--envtest');
    assert.equal(unserved.code, 2);
    assert.match(unserved.err, /step 2: example\.com\/v1 Widget is not served/);
  });
});
