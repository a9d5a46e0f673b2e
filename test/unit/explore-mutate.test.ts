/**
 * `mutate` sequences on a CRD with nested fields (issue 42): changes are drawn anywhere in the spec — scalars in
 * nested objects, entries of a list of objects (added with distinct keys, removed, their fields changed), a list of
 * scalars, a map, enum switches, decreases and removals of optional fields at any depth, an absent object made
 * with its required fields — and every spec drawn is valid against the CRD; the same seed draws the same; the
 * merge patch from one spec to the next reaches the next (nested fields left out are nulled).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareStates, mutationRuns, mutationSequences, type ScenarioStep } from '@kubegen/runtime/testing/explore';
import { mergePatch, withoutObservedGeneration } from '@kubegen/runtime/internal/testing/explore/mutate.js';
import { readObjects } from '@kubegen/runtime/testing';
import { createValidator } from '@kubegen/runtime/validation';
import { fixture } from '../support/paths.js';

/** apps.nested.test: nested objects, a list-map, a set, a map, enums, bounds and a pattern. */
const [crd] = readObjects(fixture('explore', 'nested-crd.yaml'));

const start = { replicas: 2, template: { image: 'web', resources: { cpu: 2 } }, ports: [{ name: 'http', port: 80 }], tags: ['a'], labels: { team: 'x' }, checksum: '0badcafe' };
const steps: ScenarioStep[] = [{ apply: { apiVersion: 'nested.test/v1', kind: 'App', metadata: { namespace: 'ns', name: 'a' }, spec: start } }];

describe('mutate on nested fields', () => {
  it('changes nested scalars, list entries, lists, maps and enums, removes optional fields at any depth, all valid', async () => {
    const sequences = mutationSequences([crd] as never, steps, 1, 60);
    assert.equal(sequences.length, 60);
    const changes = sequences.flatMap((s) => s.changes);
    const kinds = new Set(changes.map((c) => c.replace(/\[\d+\]/g, '[]').replace(/labels\.\w+/, 'labels.*')));
    for (const c of ['change replicas', 'set mode', 'change template.image', 'set template.pullPolicy', 'change template.resources.cpu', 'set template.resources.burst', 'remove template.resources', 'add to ports', 'change ports[].port', 'set ports[].protocol', 'add to tags', 'add to labels', 'remove labels.*']) {
      assert.ok(kinds.has(c), `no "${c}" among ${[...kinds].sort().join(', ')}`);
    }
    assert.ok(!changes.some((c) => /checksum/.test(c) && !/^remove /.test(c)), 'a pattern string is only ever removed');
    assert.ok(!changes.some((c) => /ports\[\d+\]\.name/.test(c)), 'a list-map key is never changed in place');
    const validator = await createValidator(crd as never);
    for (const s of sequences) {
      for (const spec of s.specs) {
        const r = validator.validate({ apiVersion: 'nested.test/v1', kind: 'App', metadata: { name: 'a', namespace: 'ns' }, spec });
        assert.deepEqual(r.errors, [], JSON.stringify(spec));
        const names = ((spec['ports'] as { name: string }[] | undefined) ?? []).map((p) => p.name);
        assert.equal(new Set(names).size, names.length, 'list-map keys stay distinct');
      }
    }
    assert.ok(sequences.some((s) => s.specs.some((spec) => (spec['replicas'] as number) < 2)), 'decreases too');
    assert.deepEqual(mutationSequences([crd] as never, steps, 1, 60), sequences, 'the same seed, the same sequences');
    assert.notDeepEqual(mutationSequences([crd] as never, steps, 2, 60), sequences);
  });

  it('compares a sequence\'s end without what tells a changed object from a fresh one (its generation, in status too)', () => {
    const at = (generation: number, message: string) => [{ apiVersion: 'v1', kind: 'X', metadata: { name: 'x', generation }, spec: { note: 'generation 1' }, status: { observedGeneration: generation, message } }];
    const diff = (a: ReturnType<typeof at>, b: ReturnType<typeof at>) => compareStates(withoutObservedGeneration(a), withoutObservedGeneration(b));
    assert.deepEqual(diff(at(4, 'has the data of generation 4'), at(1, 'has the data of generation 1')), []);
    assert.deepEqual(diff(at(4, 'has the data of generation 3'), at(1, 'has the data of generation 1')), [{ object: 'X x', field: 'status.message', reference: 'has the data of generation 3', perturbed: 'has the data of generation <current>' }], 'an older generation is not the current one');
    assert.equal(withoutObservedGeneration(at(1, ''))[0]!['spec' as never]['note'], 'generation 1', 'the spec is not touched');
  });

  it('makes an absent nested object with its required fields, and patches nested changes with nulls for what is left out', () => {
    const bare: ScenarioStep[] = [{ apply: { apiVersion: 'nested.test/v1', kind: 'App', metadata: { namespace: 'ns', name: 'a' }, spec: { replicas: 1 } } }];
    const made = mutationSequences([crd] as never, bare, 3, 40).flatMap((s) => s.specs).find((spec) => spec['template'] !== undefined);
    assert.ok(made, 'template set at some point');
    assert.equal(typeof (made['template'] as { image?: unknown }).image, 'string', 'with its required image');
    const a = { replicas: 1, template: { image: 'web', resources: { cpu: 2, burst: true } }, tags: ['a'] };
    const b = { replicas: 1, template: { image: 'web', resources: { cpu: 3 } }, tags: ['a', 'b'] };
    assert.deepEqual(mergePatch(a, b), { template: { resources: { cpu: 3, burst: null } }, tags: ['a', 'b'] });
    const seq = { step: 1, specs: [b], changes: ['…'] };
    const runs = mutationRuns([{ apply: { apiVersion: 'nested.test/v1', kind: 'App', metadata: { namespace: 'ns', name: 'a' }, spec: a } }], seq);
    assert.deepEqual(runs.perturbed[1], { patch: { apiVersion: 'nested.test/v1', kind: 'App', namespace: 'ns', name: 'a', patch: { spec: { template: { resources: { cpu: 3, burst: null } }, tags: ['a', 'b'] } } } });
    assert.deepEqual((runs.fresh[0] as { apply: { spec: unknown } }).apply.spec, b);
  });
});
