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
import { createValidator } from '@kubegen/runtime/validation';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'apps.nested.test' },
  spec: {
    group: 'nested.test',
    scope: 'Namespaced',
    names: { kind: 'App', plural: 'apps', singular: 'app', listKind: 'AppList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['replicas'],
                properties: {
                  replicas: { type: 'integer', minimum: 0, maximum: 5 },
                  mode: { type: 'string', enum: ['fast', 'safe', 'off'] },
                  template: {
                    type: 'object',
                    required: ['image'],
                    properties: {
                      image: { type: 'string', minLength: 1, maxLength: 20 },
                      pullPolicy: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] },
                      resources: { type: 'object', properties: { cpu: { type: 'integer', minimum: 1, maximum: 8 }, burst: { type: 'boolean' } } },
                    },
                  },
                  ports: {
                    type: 'array',
                    maxItems: 4,
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name', 'port'], properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer', minimum: 1, maximum: 65535 }, protocol: { type: 'string', enum: ['TCP', 'UDP'] } } },
                  },
                  tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 10 } },
                  labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 10 } },
                  checksum: { type: 'string', pattern: '^[0-9a-f]{8}$' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

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
