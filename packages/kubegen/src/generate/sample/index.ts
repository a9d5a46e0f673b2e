/**
 * `kubegen sample`: a minimal valid object per kind, from its schema — what `kubectl apply` of a fresh sample needs
 * and nothing more. Only required fields are filled (recursively; and `spec`, always; and what every `allOf` part and
 * one branch of each `oneOf`/`anyOf` require, see ./branches.ts), each with its default when it has one, else the
 * first enum value, else a value of its type that satisfies the simple constraints: minimum/maximum (exclusive too)
 * and multipleOf for numbers; minLength/maxLength, pattern (a string generated from the regular expression,
 * deterministically) and the common formats for strings; minItems/uniqueItems for arrays; minProperties for maps
 * and objects. Embedded resources get a ConfigMap; free-form fields stay empty. CEL rules (`x-kubernetes-validations`)
 * are not evaluated here: given a validator (`SampleOptions.validator`, see ./satisfy.ts) the sample is checked with it
 * and repaired for the common rule shapes, and the rules it still breaks are named.
 *
 * Output is deterministic: the same schema gives the same sample.
 */
import { createRequire } from 'node:module';
import { kindApiVersion, type JSONSchemaProps, type KindVersion } from '../../model/index.js';
import { portableYaml } from '../portable-yaml.js';
import { objectNeeds } from './branches.js';
import { satisfyRules, type SampleValidator, type UnsatisfiedRule } from './satisfy.js';

export { describeUnsatisfied, sampleValidator, type SampleValidator, type UnsatisfiedRule } from './satisfy.js';

/** The part of randexp used here. It is CommonJS whose module.exports is the class (its typings say otherwise). */
interface RandExpLike {
  max: number;
  defaultRange: { subtract(from: number, to: number): void };
  randInt: (from: number, to: number) => number;
  gen(): string;
}
const RandExp = createRequire(import.meta.url)('randexp') as new (pattern: string) => RandExpLike;

/** Options of {@link minimalSample}. */
export interface SampleOptions {
  /** `metadata.name` (default `<kind>-sample`). */
  name?: string;
  /** Also fill `status` with its required fields, as for spec (a test's `updateStatus`; samples users apply have none). */
  withStatus?: boolean;
  /**
   * Checks the sample with this validator (the kind's CRD, see {@link sampleValidator}) and repairs what breaks the
   * common CEL rule shapes; `onUnsatisfied` hears of every rule still broken.
   */
  validator?: SampleValidator;
  onUnsatisfied?: (u: UnsatisfiedRule) => void;
}

/** A minimal object of kind `kindVersion` (apiVersion, kind, metadata.name, and every required field). */
export function minimalSample(kindVersion: KindVersion, opts: SampleOptions = {}): Record<string, unknown> {
  if (opts.validator) {
    const { object, unsatisfied } = satisfyRules(kindVersion, rawSample(kindVersion, opts), opts.validator, { withStatus: opts.withStatus === true, valueOf: sampleValue });
    for (const u of unsatisfied) opts.onUnsatisfied?.(u);
    return object;
  }
  return rawSample(kindVersion, opts);
}

/** The sample from the schema alone (no validator). */
function rawSample(kindVersion: KindVersion, opts: SampleOptions): Record<string, unknown> {
  const name = opts.name ?? `${kindVersion.resource.names.kind.toLowerCase()}-sample`;
  const gen = new Generator();
  const body = gen.value(kindVersion.version.schema, 'root', 0) as Record<string, unknown>;
  // A sample shows the spec even when the schema does not require one (kubebuilder's samples do too).
  for (const part of opts.withStatus ? ['spec', 'status'] : ['spec']) {
    const schema = kindVersion.version.schema.properties?.[part];
    if (schema && body[part] === undefined) body[part] = gen.value(schema, part, 1);
  }
  const out: Record<string, unknown> = { apiVersion: kindApiVersion(kindVersion), kind: kindVersion.resource.names.kind, metadata: { name } };
  for (const [k, v] of Object.entries(body)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') out[k] = v;
  return out;
}

/** Options of {@link sampleYaml}: the object's labels and a comment put above its `spec`. */
export interface SampleYamlOptions extends SampleOptions {
  labels?: Record<string, string>;
  specComment?: string;
}

/**
 * The minimal sample of `kindVersion` as a YAML document (what `kubegen sample` prints and `create api` writes into
 * `config/samples/`): `metadata.labels` when given, and `specComment` as a comment line above `spec`.
 */
export function sampleYaml(kindVersion: KindVersion, opts: SampleYamlOptions = {}): string {
  const obj = minimalSample(kindVersion, opts);
  if (opts.labels && Object.keys(opts.labels).length > 0) obj['metadata'] = { labels: opts.labels, ...(obj['metadata'] as object) };
  let text = portableYaml(obj);
  if (opts.specComment !== undefined) {
    const comment = opts.specComment.split('\n').map((l) => `# ${l}`.trimEnd()).join('\n');
    text = text.replace(/^spec:/m, `${comment}\nspec:`);
  }
  return text;
}

const MAX_DEPTH = 40;

/** A sample value of schema `s` (a field named `name`), generated as the sample's own fields are. */
export function sampleValue(s: JSONSchemaProps, name: string): unknown {
  return new Generator().value(s, name, 1);
}

/** Values for the common string formats (OpenAPI / Kubernetes). */
const FORMATS: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00',
  duration: '1h',
  email: 'sample@example.com',
  hostname: 'sample.example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  cidr: '192.0.2.0/24',
  uri: 'https://example.com/sample',
  url: 'https://example.com/sample',
  uuid: '00000000-0000-4000-8000-000000000000',
  byte: 'c2FtcGxl',
  password: 'sample-password',
};

class Generator {
  private seed = 1;

  private rand(from: number, to: number): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2 ** 31;
    // The high bits: an LCG's low bits cycle with a short period (bit 0 just alternates).
    return from + (Math.floor(this.seed / 65536) % (to - from + 1));
  }

  value(s: JSONSchemaProps, name: string, depth: number): unknown {
    if (s.default !== undefined) return s.default;
    if (s.enum && s.enum.length > 0) return s.enum.find((v) => v !== null) ?? s.enum[0];
    if (s['x-kubernetes-embedded-resource']) return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sample' } };
    if (s['x-kubernetes-int-or-string']) return s.pattern ? this.string(s, name) : 1;
    const type = s.type ?? [...(s.oneOf ?? []), ...(s.anyOf ?? [])].find((b) => b.type)?.type;
    switch (type) {
      case 'string':
        return this.string(s, name);
      case 'integer':
      case 'number':
        return this.number(s, type === 'integer');
      case 'boolean':
        return false;
      case 'array':
        return this.array(s, name, depth);
      case 'object':
      case undefined:
        return this.object(s, name, depth);
    }
    return {};
  }

  private string(s: JSONSchemaProps, name: string): string {
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Infinity;
    let v: string;
    if (s.pattern) {
      const r = new RandExp(s.pattern);
      r.max = Math.max(3, Math.min(max, 20));
      r.randInt = (from: number, to: number) => this.rand(from, to);
      r.defaultRange.subtract(32, 47);
      r.defaultRange.subtract(58, 64);
      r.defaultRange.subtract(91, 96);
      r.defaultRange.subtract(123, 126);
      v = r.gen();
      // A pattern that allows short strings may give one under minLength, or an empty one (often a special value,
      // and kube-apiserver 1.20 refuses an empty group in Gateway API's ReferenceGrant): try a few more.
      for (let i = 0; i < 20 && (v.length < Math.max(min, 1) || v.length > max); i++) v = r.gen();
    } else if (s.format && FORMATS[s.format] !== undefined) {
      v = FORMATS[s.format]!;
    } else {
      v = /^[a-z][a-zA-Z0-9]*$/.test(name) ? name.toLowerCase() : 'sample';
      if (v.length < min) v = v.padEnd(min, 'x');
    }
    return v.length > max ? v.slice(0, max) : v;
  }

  private number(s: JSONSchemaProps, integer: boolean): number {
    const step = s.multipleOf ?? (integer ? 1 : 0);
    let v = 0;
    if (s.minimum !== undefined) v = s.exclusiveMinimum ? s.minimum + (step || 1) : s.minimum;
    else if (s.maximum !== undefined && s.maximum < 0) v = s.exclusiveMaximum ? s.maximum - (step || 1) : s.maximum;
    if (step > 0) v = Math.ceil(v / step) * step;
    if (integer) v = Math.ceil(v);
    return v;
  }

  private array(s: JSONSchemaProps, name: string, depth: number): unknown[] {
    const n = s.minItems ?? 0;
    if (n === 0 || depth > MAX_DEPTH) return [];
    const items = s.items ?? {};
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) {
      let v = this.value(items, name, depth + 1);
      // uniqueItems (or a list-type set/map): make each element differ, where it is a string or number.
      if (i > 0 && (s.uniqueItems || s['x-kubernetes-list-type'] === 'set')) {
        if (typeof v === 'string') v = `${v}${i}`;
        else if (typeof v === 'number') v = v + i * (items.multipleOf ?? 1);
      }
      out.push(v);
    }
    return out;
  }

  private object(s: JSONSchemaProps, name: string, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (depth > MAX_DEPTH) return out;
    const props = s.properties ?? {};
    // Required fields, and those the compositions' chosen branches require (./branches.ts), in schema order.
    const { required, narrowed } = objectNeeds(s);
    for (const [k, sub] of Object.entries(props)) if (required.includes(k)) out[k] = this.value(narrowed[k] ?? sub, k, depth + 1);
    if (typeof s.additionalProperties === 'object') {
      for (const k of required) if (!(k in props)) out[k] = this.value(narrowed[k] ?? s.additionalProperties, k, depth + 1);
    }
    // minProperties: add optional fields (in schema order), then map entries.
    const min = s.minProperties ?? 0;
    for (const [k, sub] of Object.entries(props)) {
      if (Object.keys(out).length >= min) break;
      if (!(k in out)) out[k] = this.value(sub, k, depth + 1);
    }
    if (typeof s.additionalProperties === 'object') {
      for (let i = 0; Object.keys(out).length < min; i++) out[`${name}${i}`] = this.value(s.additionalProperties, `${name}${i}`, depth + 1);
    }
    return out;
  }
}
