/**
 * The `mutate` fault (Acto's history-independence oracle): from the CRD's schema, sequences of valid spec changes to
 * an object the scenario applies. Sequence `mutate@N` runs the scenario up to and including that `apply` step, then
 * changes its spec to each spec of the sequence in turn (a merge patch each, `null` for a field left out); a fresh run makes the same steps before the `apply` and applies the last spec at once.
 * The two end states must be equal: a controller that only scales up, or keeps what an earlier spec made, diverges.
 *
 * Each spec of a sequence is the one before with one change anywhere in it, drawn from the schema (mutate-spec.ts:
 * nested objects, lists of objects, maps, enum switches, decreases, removals). A sequence the control plane refuses
 * (a CEL rule, say) is skipped, not reported. Sequences are drawn from a small PRNG seeded with `seed`, so the same
 * seed gives the same sequences.
 */
import type { KubeObject } from '../../client/types.js';
import type { ValidatedCrd } from '../../validation/index.js';
import { mutable, mutateSpec, type Schema } from './mutate-spec.js';
import type { ScenarioStep } from './scenario.js';

/** One sequence of specs for the object applied at `step` (1-based), and the change each made (`change template.image`). */
export interface MutationSequence {
  step: number;
  specs: Record<string, unknown>[];
  changes: string[];
}

/** `count` sequences of `length` specs, spread over the scenario's `apply` steps whose kind has a spec schema. */
export function mutationSequences(crds: readonly ValidatedCrd[], steps: readonly ScenarioStep[], seed: number, count: number, length = 3): MutationSequence[] {
  const targets: { step: number; spec: Record<string, unknown>; schema: Schema }[] = [];
  steps.forEach((s, i) => {
    if (!('apply' in s)) return;
    const schema = specSchema(crds, s.apply.apiVersion ?? '', s.apply.kind ?? '');
    if (schema && mutable(schema)) {
      targets.push({ step: i + 1, spec: (s.apply['spec'] as Record<string, unknown> | undefined) ?? {}, schema });
    }
  });
  if (targets.length === 0) return [];
  const rand = prng(seed);
  const out: MutationSequence[] = [];
  for (let n = 0; n < count; n++) {
    const t = targets[n % targets.length]!;
    const specs: Record<string, unknown>[] = [];
    const changes: string[] = [];
    let spec = t.spec;
    for (let j = 0; j < length; j++) {
      const next = mutateSpec(spec, t.schema, rand);
      spec = next.spec;
      specs.push(spec);
      changes.push(next.what);
    }
    out.push({ step: t.step, specs, changes });
  }
  return out;
}

/** The perturbed run's steps and the fresh run's steps of `seq` (see the module comment). */
export function mutationRuns(steps: readonly ScenarioStep[], seq: MutationSequence): { perturbed: ScenarioStep[]; fresh: ScenarioStep[] } {
  const apply = (steps[seq.step - 1] as { apply: Record<string, unknown> & { metadata?: { namespace?: string; name?: string } } }).apply;
  const ref = { apiVersion: apply['apiVersion'] as string, kind: apply['kind'] as string, ...(apply.metadata?.namespace ? { namespace: apply.metadata.namespace } : {}), name: apply.metadata?.name ?? '' };
  let prev = (apply['spec'] as Record<string, unknown> | undefined) ?? {};
  const changes: ScenarioStep[] = seq.specs.map((spec) => {
    const patch = mergePatch(prev, spec);
    prev = spec;
    return { patch: { ...ref, patch: { spec: patch } } };
  });
  return {
    perturbed: [...steps.slice(0, seq.step), ...changes],
    fresh: [...steps.slice(0, seq.step - 1), { apply: { ...apply, spec: seq.specs.at(-1)! } as never }],
  };
}

/** The JSON merge patch (RFC 7386) from `a` to `b`: objects field by field, `null` for a field left out, the rest whole. */
export function mergePatch(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const plain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(a)) if (!(k in b)) patch[k] = null;
  for (const [k, v] of Object.entries(b)) {
    if (JSON.stringify(a[k]) === JSON.stringify(v)) continue;
    patch[k] = plain(a[k]) && plain(v) ? mergePatch(a[k], v) : v;
  }
  return patch;
}

function specSchema(crds: readonly ValidatedCrd[], apiVersion: string, kind: string): Schema | undefined {
  for (const c of crds) {
    if (c.spec.names.kind !== kind) continue;
    const v = c.spec.versions.find((x) => `${c.spec.group}/${x.name}` === apiVersion);
    const spec = (v?.schema?.openAPIV3Schema as Schema | undefined)?.properties?.['spec'];
    if (spec) return spec;
  }
  return undefined;
}

/** mulberry32: a small deterministic PRNG (numbers in [0, 1)), the same for the same seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `state` without what tells a changed object from a fresh one (the oracle of a sequence): every `observedGeneration`
 * left out, and in an object's status, its own generation named in text (`… of generation 4`, when
 * `metadata.generation` is 4) read as `generation <current>`.
 */
export function withoutObservedGeneration(state: readonly KubeObject[]): KubeObject[] {
  return state.map((o) => {
    const generation = o.metadata?.generation;
    const own = generation !== undefined ? new RegExp(`\\bgeneration ${generation}\\b`, 'gi') : undefined;
    const strip = (v: unknown, inStatus: boolean): unknown => {
      if (typeof v === 'string') return inStatus && own ? v.replace(own, 'generation <current>') : v;
      if (Array.isArray(v)) return v.map((x) => strip(x, inStatus));
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'observedGeneration').map(([k, x]) => [k, strip(x, inStatus || k === 'status')]));
      return v;
    };
    return strip(o, false) as KubeObject;
  });
}
