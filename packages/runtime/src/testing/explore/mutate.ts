/**
 * The `mutate` fault (Acto's history-independence oracle): from the CRD's schema, sequences of valid spec changes to
 * an object the scenario applies. Sequence `mutate@N` runs the scenario up to and including that `apply` step, then
 * changes its spec to each spec of the sequence in turn (a merge patch each, `null` for a field left out); a fresh run makes the same steps before the `apply` and applies the last spec at once.
 * The two end states must be equal: a controller that only scales up, or keeps what an earlier spec made, diverges.
 *
 * A change is made to one top-level spec field whose schema is a scalar: an enum switches to another of its values, an
 * integer or number moves by one within `minimum`/`maximum`, a boolean flips, a free string (no pattern, format or
 * enum) gains or loses a character within its length bounds, an optional field present is removed and one absent is
 * set. A sequence the control plane refuses (a CEL rule, say) is skipped, not reported. Sequences are drawn from a
 * small PRNG seeded with `seed`, so the same seed gives the same sequences.
 */
import type { ValidatedCrd } from '../../validation/index.js';
import type { ScenarioStep } from './scenario.js';

/** One sequence of specs for the object applied at `step` (1-based). */
export interface MutationSequence {
  step: number;
  specs: Record<string, unknown>[];
}

interface Schema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
}

/** `count` sequences of `length` specs, spread over the scenario's `apply` steps whose kind has a spec schema. */
export function mutationSequences(crds: readonly ValidatedCrd[], steps: readonly ScenarioStep[], seed: number, count: number, length = 3): MutationSequence[] {
  const targets: { step: number; spec: Record<string, unknown>; schema: Schema }[] = [];
  steps.forEach((s, i) => {
    if (!('apply' in s)) return;
    const schema = specSchema(crds, s.apply.apiVersion ?? '', s.apply.kind ?? '');
    if (schema && Object.keys(schema.properties ?? {}).some((f) => scalar(schema.properties![f]!))) {
      targets.push({ step: i + 1, spec: (s.apply['spec'] as Record<string, unknown> | undefined) ?? {}, schema });
    }
  });
  if (targets.length === 0) return [];
  const rand = prng(seed);
  const out: MutationSequence[] = [];
  for (let n = 0; n < count; n++) {
    const t = targets[n % targets.length]!;
    const specs: Record<string, unknown>[] = [];
    let spec = t.spec;
    for (let j = 0; j < length; j++) {
      spec = mutateOnce(spec, t.schema, rand);
      specs.push(spec);
    }
    out.push({ step: t.step, specs });
  }
  return out;
}

/** The perturbed run's steps and the fresh run's steps of `seq` (see the module comment). */
export function mutationRuns(steps: readonly ScenarioStep[], seq: MutationSequence): { perturbed: ScenarioStep[]; fresh: ScenarioStep[] } {
  const apply = (steps[seq.step - 1] as { apply: Record<string, unknown> & { metadata?: { namespace?: string; name?: string } } }).apply;
  const ref = { apiVersion: apply['apiVersion'] as string, kind: apply['kind'] as string, ...(apply.metadata?.namespace ? { namespace: apply.metadata.namespace } : {}), name: apply.metadata?.name ?? '' };
  let prev = (apply['spec'] as Record<string, unknown> | undefined) ?? {};
  const changes: ScenarioStep[] = seq.specs.map((spec) => {
    const patch: Record<string, unknown> = {};
    for (const k of Object.keys(prev)) if (!(k in spec)) patch[k] = null;
    for (const [k, v] of Object.entries(spec)) if (JSON.stringify(prev[k]) !== JSON.stringify(v)) patch[k] = v;
    prev = spec;
    return { patch: { ...ref, patch: { spec: patch } } };
  });
  return {
    perturbed: [...steps.slice(0, seq.step), ...changes],
    fresh: [...steps.slice(0, seq.step - 1), { apply: { ...apply, spec: seq.specs.at(-1)! } as never }],
  };
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

function scalar(s: Schema): boolean {
  if (s.enum && s.enum.length > 0) return true;
  if (s.type === 'string') return s.pattern === undefined && s.format === undefined;
  return s.type === 'integer' || s.type === 'number' || s.type === 'boolean';
}

/** One change to one scalar field of `spec` (a copy). */
function mutateOnce(spec: Record<string, unknown>, schema: Schema, rand: () => number): Record<string, unknown> {
  const fields = Object.keys(schema.properties ?? {}).filter((f) => scalar(schema.properties![f]!)).sort();
  const field = fields[Math.floor(rand() * fields.length)]!;
  const s = schema.properties![field]!;
  const out = { ...spec };
  const optional = !(schema.required ?? []).includes(field);
  if (field in out && optional && rand() < 0.25) {
    delete out[field];
    return out;
  }
  const next = changed(out[field], s, rand);
  if (next === undefined) delete out[field];
  else out[field] = next;
  return out;
}

/** A valid value of `s` other than `v` (or `v` itself when there is no other); undefined: leave the field out. */
function changed(v: unknown, s: Schema, rand: () => number): unknown {
  if (s.enum && s.enum.length > 0) {
    const others = s.enum.filter((e) => e !== v);
    return others.length > 0 ? others[Math.floor(rand() * others.length)] : v;
  }
  if (s.type === 'boolean') return v === undefined ? rand() < 0.5 : !v;
  if (s.type === 'integer' || s.type === 'number') {
    const min = s.minimum ?? -Infinity;
    const max = s.maximum ?? Infinity;
    if (typeof v !== 'number') return Math.max(min, Math.min(max, 1));
    const up = rand() < 0.5;
    const n = up ? (v + 1 <= max ? v + 1 : v - 1) : v - 1 >= min ? v - 1 : v + 1;
    return n >= min && n <= max ? n : v;
  }
  const str = typeof v === 'string' ? v : '';
  const minLen = s.minLength ?? 0;
  const maxLen = s.maxLength ?? Infinity;
  const longer = `${str}${'abcdefghij'[Math.floor(rand() * 10)]}`;
  if (typeof v !== 'string') return 'a'.repeat(Math.max(1, minLen));
  if (str.length > minLen && (rand() < 0.5 || longer.length > maxLen)) return str.slice(0, -1);
  return longer.length <= maxLen ? longer : str;
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

/** `state` with every `observedGeneration` left out: a fresh object's generation differs from a changed one's. */
export function withoutObservedGeneration<T>(state: T): T {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'observedGeneration').map(([k, x]) => [k, strip(x)]));
    return v;
  };
  return strip(state) as T;
}
