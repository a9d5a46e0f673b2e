/**
 * Every example passes `explore` with the default faults (issue 42, Done-when line 2): for each example, its
 * scenario (examples/<name>/test/explore/scenario.yaml) runs fault-free on the in-process fake control plane, then
 * with a crash after every write of the reference run (but those equivalent to an earlier one), a restart onto the
 * state before every step (stale) and a watch gap across every step, plus a few `mutate`
 * sequences of its CRD's spec; no perturbed run ends anywhere else than the reference run (or, for mutate, than a
 * fresh run of the last spec). Each example's reference run makes writes (a crash point is tried for each).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatReport, type ExploreReport } from '@kubegen/runtime/testing/explore';
import { exploreExample, exampleScenario } from '../support/explore-examples.js';
import fanout from '../../examples/fanout/src/explore-setup.js';
import fleetConfig from '../../examples/fleet-config/src/explore-setup.js';
import kvStore from '../../examples/kv-store/src/explore-setup.js';
import sampleController from '../../examples/sample-controller/src/explore-setup.js';
import ttlJanitor from '../../examples/ttl-janitor/src/explore-setup.js';

const FAULTS = ['crash', 'stale', 'gap', 'mutate'] as const;

function assertClean(name: string, report: ExploreReport): void {
  assert.deepEqual(report.divergences, [], formatReport(report));
  assert.ok(report.referenceRequests.length > 0, `${name}: the reference run made no write`);
  const crash = report.faults.crash!;
  assert.equal(crash.tried + (crash.skipped ?? 0), report.referenceRequests.length, formatReport(report));
  assert.equal(report.faults.gap?.tried, exampleScenario(name).length);
  assert.equal(report.faults.stale?.tried, exampleScenario(name).length);
  assert.match(formatReport(report), /^FAULT .*\ncrash .*\nstale .*\ngap .*\n(mutate .*\n)?\d+ runs/, 'rows in the order crash, stale, gap, mutate');
}

describe('explore on the examples', () => {
  it('fanout: a Batch scaled up, down and deleted', async () => {
    const report = await exploreExample('fanout', fanout, ['examples/fanout/config/crd'], { faults: FAULTS, mutations: 6 });
    assertClean('fanout', report);
    assert.ok((report.faults.mutate?.tried ?? 0) > 0, formatReport(report));
  });

  it('kv-store (built-in kinds): a KVStore made, grown, changed and deleted through its finalizer', async () => {
    const report = await exploreExample('kv-store', kvStore, ['examples/kv-store/config/crd/bases'], { faults: FAULTS, mutations: 4 });
    assertClean('kv-store', report);
    assert.ok(report.referenceRequests.some((r) => / patch\(apply\) statefulsets default\/orders/.test(r)), report.referenceRequests.join('\n'));
  });

  it('sample-controller (its own queue and workers): a Foo made, scaled, its Deployment renamed, and deleted', async () => {
    const report = await exploreExample('sample-controller', sampleController, ['examples/sample-controller/artifacts/crd.yaml'], { faults: FAULTS, mutations: 4 });
    assertClean('sample-controller', report);
    assert.ok(report.referenceRequests.some((r) => / create deployments default\/example-foo-2$/.test(r)), report.referenceRequests.join('\n'));
  });

  it('ttl-janitor (a controller per discovered resource): a TTL shortened, an unreadable TTL kept', async () => {
    const report = await exploreExample('ttl-janitor', ttlJanitor, ['examples/ttl-janitor/test/explore/widget-crd.yaml'], { faults: FAULTS, mutations: 2 });
    assertClean('ttl-janitor', report);
    assert.ok(report.referenceRequests.some((r) => / delete configmaps default\/keep$/.test(r)), report.referenceRequests.join('\n'));
  });

  it('fleet-config (multi-cluster: the hub and one member): a FleetConfig made, changed and deleted', async () => {
    const report = await exploreExample('fleet-config', fleetConfig, ['examples/fleet-config/config/crd'], { faults: FAULTS, mutations: 4 });
    assertClean('fleet-config', report);
    assert.ok(report.referenceRequests.some((r) => / create configmaps default\/settings$/.test(r)), report.referenceRequests.join('\n'));
    assert.ok(report.referenceRequests.some((r) => / delete configmaps default\/settings$/.test(r)), report.referenceRequests.join('\n'));
    assert.ok((report.faults.mutate?.tried ?? 0) > 0, 'spec.data, a map, is mutated');
  });
});
