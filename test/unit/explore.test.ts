/**
 * `explore` (issue 42) on deliberately buggy controllers and their correct twins, on the fake control plane:
 * - the crash bug (a generated child recorded in status by a second write) is found by a crash between the two
 *   writes, as a duplicate child, with the request and step it hit and a repro; its twin is never flagged;
 * - the gap bug (cleanup only on an observed delete event) is found by a gap across the delete and re-create, on the
 *   copied child (left for the garbage collector, never made again); its twin is never flagged;
 * - the mutate bug (children only ever added) is found by a spec sequence that lowers the value, against a fresh run
 *   of the last spec, with the sequence and a repro; its twin is never flagged; the same seed draws the same sequences;
 * - the stale bug (a child without owner reference, cleaned up through a finalizer) is found only by a restart onto
 *   the view from before the parent's deletion, as a child left behind; its twin (an owner reference) is never
 *   flagged; every twin above runs the default faults, stale included;
 * - `--only` runs one point; a reference run that never settles is reported as non-convergence;
 * - the comparison ignores uids, resourceVersions, timestamps and generated name suffixes, and maps owner uids.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareStates, crashPoints, explore, formatReport, parseBudget, planRuns, type ScenarioStep } from '@kubegen/runtime/testing/explore';
import { childController, copyController, exploreCrds, mirrorController, parents, scaleController } from '../support/explore-controllers.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';

const parent = (value: number): ScenarioStep => ({ apply: { apiVersion: 'explore.test/v1', kind: 'Parent', metadata: { namespace: 'ns', name: 'p' }, spec: { value } } });
const ref = { apiVersion: 'explore.test/v1', kind: 'Parent', namespace: 'ns', name: 'p' };
const crashScenario: ScenarioStep[] = [parent(1), { patch: { ...ref, patch: { spec: { value: 2 } } } }];
const gapScenario: ScenarioStep[] = [parent(1), { delete: ref }, parent(2)];
const staleScenario: ScenarioStep[] = [parent(1), { delete: ref }];
const crds = exploreCrds as never;

describe('explore', () => {
  it('finds the crash bug: a crash between creating a generated child and recording it leaks a duplicate', async () => {
    const report = await explore({ setup: childController(false), crds, steps: crashScenario });
    assert.ok(report.referenceRequests.length >= 2, report.referenceRequests.join('\n'));
    assert.equal(report.faults.crash?.tried, report.referenceRequests.length);
    const crash = report.divergences.filter((d) => d.fault === 'crash');
    assert.ok(crash.length > 0, formatReport(report));
    const first = crash[0]!;
    assert.equal(first.at.point, 'crash@1', formatReport(report));
    assert.match(first.at.requestText ?? '', /create children ns\/p-/);
    assert.equal(first.at.step, 1);
    assert.deepEqual(first.diff, [{ object: 'Child ns/p-*', field: '(object)', reference: 'present', perturbed: '2 objects' }]);
    assert.equal(first.repro, '--seed 1 --only crash@1');
    assert.match(formatReport(report), /crash +\d+ +[1-9]/);
  });

  it('does not flag the crash bug twin, which adopts the child it finds by label', async () => {
    const report = await explore({ setup: childController(true), crds, steps: crashScenario });
    assert.deepEqual(report.divergences, [], formatReport(report));
    assert.ok((report.faults.crash?.tried ?? 0) >= 2);
    assert.equal(report.faults.gap?.tried, 2);
  });

  it('finds the gap bug: a delete and re-create never observed leaves the old copy', async () => {
    const report = await explore({ setup: copyController(false), crds, steps: gapScenario });
    const gap = report.divergences.filter((d) => d.fault === 'gap');
    assert.equal(gap.length, 1, formatReport(report));
    assert.equal(gap[0]!.at.point, 'gap@2');
    // The old copy outlives the hidden re-create; its owner gone, the garbage collector deletes it, and the
    // controller (which does not watch its children) never makes the new one.
    assert.deepEqual(gap[0]!.diff, [{ object: 'Child ns/p-copy', field: '(object)', reference: 'present', perturbed: 'absent' }], formatReport(report));
    assert.deepEqual(report.divergences.filter((d) => d.fault === 'crash'), [], formatReport(report));
  });

  it('does not flag the gap bug twin, which compares owner uids', async () => {
    const report = await explore({ setup: copyController(true), crds, steps: gapScenario });
    assert.deepEqual(report.divergences, [], formatReport(report));
    assert.equal(report.faults.gap?.tried, 3);
  });

  it('finds the mutate bug: a value lowered by a spec change leaves children a fresh run does not make', async () => {
    const report = await explore({ setup: scaleController(false), crds, steps: [parent(1)], faults: ['mutate'], mutations: 8 });
    assert.equal(report.faults.mutate?.tried, 8, formatReport(report));
    assert.equal(report.runs, 1 + 16);
    const found = report.divergences.filter((d) => d.fault === 'mutate');
    assert.ok(found.length > 0, formatReport(report));
    const d = found[0]!;
    assert.match(d.at.point, /^mutate@\d+$/);
    assert.match(d.at.stepText, /^apply Parent ns\/p, then spec \{.*\} → \{.*\} → \{.*\}; reference: a fresh run applying the last spec$/);
    assert.ok(d.diff.some((f) => /^Child ns\/p-\d+$/.test(f.object) && f.field === '(object)' && f.reference === 'absent'), formatReport(report));
    assert.equal(d.repro, `--seed 1 --only ${d.at.point}`);
    const again = await explore({ setup: scaleController(false), crds, steps: [parent(1)], only: d.at.point });
    assert.deepEqual([again.faults.mutate?.tried, again.divergences[0]?.at.stepText], [1, d.at.stepText], 'the same seed draws the same sequence');
    assert.match(formatReport(report), /^mutate +8 +[1-9]/m);
  });

  it('does not flag the mutate bug twin, which also deletes the children above the value', async () => {
    const report = await explore({ setup: scaleController(true), crds, steps: [parent(1)], faults: ['mutate'], mutations: 8 });
    assert.equal(report.faults.mutate?.tried, 8);
    assert.deepEqual(report.divergences, [], formatReport(report));
  });

  it('finds the stale bug: restarted onto a view from before the parent\'s deletion, it applies a child nothing deletes', async () => {
    const report = await explore({ setup: mirrorController(false), crds, steps: staleScenario });
    assert.equal(report.faults.stale?.tried, 2);
    const stale = report.divergences.filter((d) => d.fault === 'stale');
    assert.equal(stale.length, 1, formatReport(report));
    assert.deepEqual(stale[0]!.at, { point: 'stale@2', step: 2, stepText: 'delete Parent ns/p' });
    assert.deepEqual(stale[0]!.diff, [{ object: 'Child ns/p-mirror', field: '(object)', reference: 'absent', perturbed: 'present' }]);
    assert.equal(stale[0]!.repro, '--seed 1 --only stale@2');
    assert.deepEqual(report.divergences.filter((d) => d.fault !== 'stale'), [], 'only stale finds it');
    assert.match(formatReport(report), /stale at stale@2: restarted after step 2 onto the state before it, then caught up \(delete Parent ns\/p\)/);
    const one = await explore({ setup: mirrorController(false), crds, steps: staleScenario, only: 'stale@2' });
    assert.deepEqual([one.runs, one.divergences.length], [2, 1]);
  });

  it('does not flag the stale bug twin, whose child has an owner reference the garbage collector follows', async () => {
    const report = await explore({ setup: mirrorController(true), crds, steps: staleScenario });
    assert.deepEqual(report.divergences, [], formatReport(report));
    assert.equal(report.faults.stale?.tried, 2);
  });

  it('runs one point with only, and reports a reference run that never settles', async () => {
    const one = await explore({ setup: childController(false), crds, steps: crashScenario, only: 'crash@1' });
    assert.equal(one.runs, 2);
    assert.equal(one.divergences.length, 1);
    const busy = await explore({
      setup: (mgr) => void controllerFor(mgr, parents).named('spin').withOptions({ skipNameValidation: true }).complete(async () => ({ requeueAfterMs: 5 })),
      crds,
      steps: [parent(1)],
      settleMs: 300,
    });
    assert.equal(busy.runs, 1);
    assert.equal(busy.divergences[0]?.fault, 'reference');
    assert.match(String(busy.divergences[0]?.diff[0]?.perturbed), /spin/);
  });
});

describe('budget', () => {
  it('runs a seeded sample of the points within a budget of runs, counts the rest as skipped, and names the seed', async () => {
    const full = await explore({ setup: childController(false), crds, steps: crashScenario, faults: ['crash', 'gap'] });
    const points = (full.faults.crash?.tried ?? 0) + (full.faults.gap?.tried ?? 0);
    assert.ok(points >= 4, formatReport(full));
    const sample = async (seed: number) => explore({ setup: childController(false), crds, steps: crashScenario, faults: ['crash', 'gap'], budget: { runs: 3 }, seed });
    const a = await sample(7);
    assert.equal(a.runs, 3, formatReport(a));
    const tried = (a.faults.crash?.tried ?? 0) + (a.faults.gap?.tried ?? 0);
    const skipped = (a.faults.crash?.skipped ?? 0) + (a.faults.gap?.skipped ?? 0) - (full.faults.crash?.skipped ?? 0);
    assert.deepEqual([tried, skipped], [2, points - 2]);
    assert.deepEqual(a.budget, { runs: 3 });
    for (const d of a.divergences) assert.match(d.repro, /^--seed 7 --only /);
    assert.match(formatReport(a), /^FAULT +TRIED +DIVERGENCES +SKIPPED$/m);
    assert.match(formatReport(a), /^budget 3 runs, seed 7: a seeded sample of the points; \d+ skipped/m);
    const b = await sample(7);
    assert.deepEqual([b.faults, b.divergences.map((d) => d.at.point)], [a.faults, a.divergences.map((d) => d.at.point)], 'the same seed, the same sample');
    const big = await explore({ setup: childController(false), crds, steps: crashScenario, faults: ['crash', 'gap'], budget: { runs: 1000 } });
    assert.deepEqual(big.faults, full.faults, 'a budget larger than the enumeration runs all of it');
  });

  it('parses runs and durations; plans a sample whose costs fit, the same for the same seed', () => {
    assert.deepEqual([parseBudget('200'), parseBudget('90s'), parseBudget('2m'), parseBudget('500ms')], [{ runs: 200 }, { durationMs: 90_000 }, { durationMs: 120_000 }, { durationMs: 500 }]);
    for (const bad of ['0', 'ten', '5x', '-3', '']) assert.throws(() => parseBudget(bad), /expected a number of runs \(200\) or a duration/);
    const items = Array.from({ length: 10 }, (_, i) => ({ i, cost: i % 3 === 0 ? 2 : 1 }));
    const plan = planRuns(items, { runs: 6 }, 3);
    assert.ok(plan.take.reduce((n, x) => n + x.cost, 0) <= 5);
    assert.deepEqual(plan.take.map((x) => x.i), [...plan.take.map((x) => x.i)].sort((p, q) => p - q), 'in enumeration order');
    assert.equal(plan.take.length + plan.left.length, 10);
    assert.deepEqual(planRuns(items, { runs: 6 }, 3), plan);
    assert.notDeepEqual([1, 2, 3, 4, 5].map((s) => planRuns(items, { runs: 6 }, s).take.map((x) => x.i).join()), Array(5).fill(plan.take.map((x) => x.i).join()), 'other seeds, other samples');
    assert.deepEqual(planRuns(items, { durationMs: 10 }, 3).take.length, 10, 'a duration orders every point');
  });
});

describe('crashPoints', () => {
  it('skips a crash after a write that left the state as the one before it in the same step', () => {
    const req = (n: number, step: number, revision: string) => ({ n, step, verb: 'patch', resource: 'x', revision });
    const { points, equivalent } = crashPoints([req(1, 1, '5'), req(2, 1, '6'), req(3, 1, '6'), req(4, 2, '6'), req(5, 2, '7')]);
    assert.deepEqual(points, [1, 2, 4, 5].map((after) => ({ kind: 'crash', after })));
    assert.equal(equivalent, 1);
  });
});

describe('compareStates', () => {
  it('ignores what differs between runs and maps uids of the same identity', () => {
    const at = (uid: string, suffix: string, rv: string, t: string) => [
      { apiVersion: 'v1', kind: 'P', metadata: { namespace: 'ns', name: 'p', uid, resourceVersion: rv, creationTimestamp: t, generation: 2 } },
      { apiVersion: 'v1', kind: 'C', metadata: { namespace: 'ns', name: `p-${suffix}`, generateName: 'p-', uid: `c${uid}`, ownerReferences: [{ apiVersion: 'v1', kind: 'P', name: 'p', uid }] }, status: { at: t } },
    ];
    assert.deepEqual(compareStates(at('u1', 'abcde', '5', '2026-01-01T00:00:00Z'), at('u2', 'xyz12', '9', '2026-02-02T10:00:00.5Z')), []);
    const cleared = at('u1', 'abcde', '5', '2026-01-01T00:00:00Z');
    (cleared[0] as Record<string, unknown>)['status'] = {};
    assert.deepEqual(compareStates(at('u1', 'abcde', '5', '2026-01-01T00:00:00Z'), cleared), [], 'an empty status equals no status');
    const other = at('u2', 'x', '1', '2026-01-01T00:00:00Z');
    other[1]!.metadata.ownerReferences![0]!.uid = 'gone';
    assert.deepEqual(compareStates(at('u1', 'a', '1', '2026-01-01T00:00:00Z'), other), [{ object: 'C ns/p-*', field: 'metadata.ownerReferences', reference: [{ apiVersion: 'v1', kind: 'P', name: 'p', uid: 'uid-of:P ns/p' }], perturbed: [{ apiVersion: 'v1', kind: 'P', name: 'p', uid: 'gone' }] }]);
  });
});
