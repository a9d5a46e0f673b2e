/**
 * Makes a sample satisfy what the schema's structure alone does not give it — the CEL rules
 * (`x-kubernetes-validations`), a `oneOf`/`anyOf` the generator's choice of branch left unmet — checking each step
 * with the kind's validator (`@kubegen/runtime/validation`, which validates and evaluates the rules as the apiserver
 * does). For every error the validator reports, candidate edits are read off it (./edits.ts: off a rule's text, a
 * composition's branches, a missing required field) and tried, one at a time and then in pairs; an edit is kept when
 * the error is no longer reported and the object has the fewest errors of the candidates. The rule shapes this
 * covers:
 *
 * - `has(self.a) || has(self.b)`, `has(self.a) != has(self.b)`, exactly-one counts, and paths
 *   (`has(self.forProvider.x) || (has(self.initProvider) && has(self.initProvider.x))`, upjet's required
 *   parameter): a referenced field is added, with the parents it needs;
 * - mutual exclusion `!(has(self.a) && has(self.b))`: a field the sample has (and need not) is removed;
 * - `self.x == 'v'`, `self.x != 'v'`, `self.x in ['a', 'b']`, `self in [...]`: the field (or the node) is set to each
 *   literal of the rule, and to each value of the field's enum (`self.ref.type != 'kic'` where `kic` is the default);
 * - bounds `self.x <= N`, `self > N`: the field (or node) is set to N, N-1 and N+1;
 * - sizes `size(self.y) > 0`, `self.y.size() >= 1`: the field gets one element (or one character);
 * - `self.a.list.exists(c, c.name == 'proxy')`: the list gets such an element.
 *
 * What no candidate fixes is returned as {@link UnsatisfiedRule}s (the field path, the rule, the server's message).
 * Deterministic: the same schema and validator give the same sample.
 */
import type { JSONSchemaProps, KindVersion } from '../../model/index.js';
import { applyEdit, candidateEdits, compositionEdits, requiredEdits, type Edit, type RuleTarget, type SampleNode, type Token, type ValueOf } from './edits.js';

/** The part of `@kubegen/runtime/validation`'s `CrdValidator` the sample uses. */
export interface SampleValidator {
  validate(
    obj: unknown,
    options?: { operation?: 'create' | 'update' | 'status'; old?: unknown; namespace?: string },
  ): { errors: readonly { path: string; reason: string; detail: string; message: string }[]; unknownFields: readonly string[]; object: unknown };
}

/** A rule (or other check) the sample still breaks. */
export interface UnsatisfiedRule {
  /** The refused field, in the apiserver's spelling (`spec.of`, `spec.items[0]`; `<nil>` for the object; {@link describeUnsatisfied} words it). */
  path: string;
  /** The CEL rule, when the error is one rule's. */
  rule?: string;
  /** The apiserver's message (`Invalid value: ...: <rule message>`). */
  message: string;
}

/** Builds the validator of `kindVersion`'s CRD (only that version), loading the runtime's validation (and CEL layer) on demand. */
export async function sampleValidator(kindVersion: KindVersion): Promise<SampleValidator> {
  const { createValidator } = await import('@kubegen/runtime/validation');
  const { resource: r, version: v } = kindVersion;
  return createValidator({
    metadata: { name: `${r.names.plural}.${r.group}` },
    spec: {
      group: r.group,
      names: { kind: r.names.kind, plural: r.names.plural },
      scope: r.scope,
      versions: [{
        name: v.name, served: true, storage: true, schema: { openAPIV3Schema: v.schema },
        subresources: { ...(v.subresources.status ? { status: {} } : {}), ...(v.subresources.scale ? { scale: v.subresources.scale } : {}) },
      }],
    },
  });
}

type Err = { path: string; reason: string; detail: string; message: string };

const MAX_ROUNDS = 24;
const MAX_PAIRS = 300;

/** Repairs `sample` for what it breaks (see the module comment). `valueOf` generates a field's value. */
export function satisfyRules(
  kindVersion: KindVersion,
  sample: Record<string, unknown>,
  validator: SampleValidator,
  opts: { withStatus: boolean; valueOf: ValueOf },
): { object: Record<string, unknown>; unsatisfied: UnsatisfiedRule[] } {
  const schema = kindVersion.version.schema;
  const check = (obj: Record<string, unknown>): Err[] => checkSample(kindVersion, obj, validator, opts.withStatus);
  let obj = sample;
  let errs = check(obj);
  const key = (e: Err): string => `${e.path}\u0000${e.detail}`;
  for (let round = 0; round < MAX_ROUNDS && errs.length > 0; round++) {
    let next: { obj: Record<string, unknown>; errs: Err[] } | undefined;
    for (const e of errs) {
      const edits = editsFor(schema, obj, e, opts.valueOf);
      const tries: Edit[][] = edits.map((ed) => [ed]);
      for (let i = 0; i < edits.length && tries.length < edits.length + MAX_PAIRS; i++) {
        for (let j = i + 1; j < edits.length; j++) if (String(edits[i]!.path) !== String(edits[j]!.path)) tries.push([edits[i]!, edits[j]!]);
      }
      let singlesDone = false;
      for (const [n, t] of tries.entries()) {
        if (n === edits.length) singlesDone = true;
        if (singlesDone && next) break; // a single edit fixed it: pairs are not needed
        const candidate = structuredClone(obj);
        for (const ed of t) applyEdit(candidate, ed);
        const ce = check(candidate);
        if (ce.some((x) => key(x) === key(e))) continue;
        if (!next || ce.length < next.errs.length) next = { obj: candidate, errs: ce };
      }
      if (next) break;
    }
    if (!next) break;
    obj = next.obj;
    errs = next.errs;
  }
  const unsatisfied = errs.map((e) => {
    const rule = locateRule(schema, obj, e)?.rule.rule;
    return { path: e.path, ...(rule !== undefined ? { rule } : {}), message: e.message };
  });
  return { object: obj, unsatisfied };
}

/**
 * How a warning names what the sample still breaks: `spec.x breaks the rule "…": <message>`, or `the object is
 * refused: <message>` (the apiserver's `<nil>`, the object's root, read as words).
 */
export function describeUnsatisfied(u: UnsatisfiedRule): string {
  const where = u.path === '<nil>' || u.path === '' ? 'the object' : u.path;
  return `${where} ${u.rule !== undefined ? `breaks the rule ${JSON.stringify(u.rule)}` : 'is refused'}: ${u.message}`;
}

/** The candidate edits for error `e` of `obj`: off the rule it names, the composition it reports, the field it requires. */
function editsFor(root: JSONSchemaProps, obj: Record<string, unknown>, e: Err, valueOf: ValueOf): Edit[] {
  const target = locateRule(root, obj, e);
  if (target) return candidateEdits(target, valueOf);
  const composition = /^"((?:[^"\\]|\\.)*)" must validate (?:one and only one schema \(oneOf\)\. Found (none valid|\d+ valid alternatives)|at least one schema \(anyOf\))/.exec(e.detail);
  if (composition) {
    const node = walk(root, obj, [...splitPath(e.path), ...splitPath(composition[1]!)]).at(-1)!;
    return compositionEdits(node, composition[2] !== undefined ? 'oneOf' : 'anyOf', composition[2] !== undefined && composition[2] !== 'none valid', valueOf);
  }
  if (e.reason === 'FieldValueRequired') {
    const segs = splitPath(e.path);
    const nodes = walk(root, obj, segs.slice(0, -1));
    if (nodes.length === segs.length) return requiredEdits(nodes.at(-1)!, segs.at(-1)!, valueOf);
  }
  return [];
}

/** The errors of `obj` as a create (and, with `withStatus` on a status subresource, the status write after it). */
function checkSample(kindVersion: KindVersion, obj: Record<string, unknown>, validator: SampleValidator, withStatus: boolean): Err[] {
  const namespace = kindVersion.resource.scope === 'Namespaced' ? 'default' : undefined;
  const nsOpt = namespace ? { namespace } : {};
  if (!withStatus || !kindVersion.version.subresources.status) {
    const r = validator.validate(obj, nsOpt);
    return [...r.errors, ...r.unknownFields.map((f) => unknownField(f))];
  }
  const { status: _status, ...main } = obj;
  const created = validator.validate(main, nsOpt);
  const status = validator.validate(obj, { operation: 'status', old: created.object, ...nsOpt });
  return [...created.errors, ...created.unknownFields.map((f) => unknownField(f)), ...status.errors];
}

const unknownField = (f: string): Err => ({ path: f, reason: 'FieldValueInvalid', detail: 'unknown field', message: `unknown field "${f}"` });


/** Splits an apiserver field path (`spec.a[0].b`, `spec.m[k.x]`) into its segments. */
function splitPath(path: string): string[] {
  if (path === '<nil>' || path === '') return [];
  const out: string[] = [];
  for (const m of path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)) out.push(m[1] ?? m[2]!);
  return out;
}

/** The nodes from the root along `segs` (as far as the schema goes), the root first. */
function walk(root: JSONSchemaProps, obj: unknown, segs: readonly string[]): SampleNode[] {
  const nodes: SampleNode[] = [{ schema: root, path: [], self: obj }];
  let s: JSONSchemaProps | undefined = root;
  let v: unknown = obj;
  const path: Token[] = [];
  for (const seg of segs) {
    if (!s) break;
    if (s.type === 'array' || s.items) {
      s = s.items;
      const i = Number(seg);
      path.push(i);
      v = Array.isArray(v) ? v[i] : undefined;
    } else {
      s = s.properties?.[seg] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      path.push(seg);
      v = v && typeof v === 'object' ? (v as Record<string, unknown>)[seg] : undefined;
    }
    if (s) nodes.push({ schema: s, path: [...path], self: v });
  }
  return nodes;
}

/** The deepest node on `e`'s path whose `x-kubernetes-validations` hold the rule `e` reports. */
function locateRule(root: JSONSchemaProps, obj: unknown, e: Err): RuleTarget | undefined {
  for (const n of walk(root, obj, splitPath(e.path)).reverse()) {
    for (const r of n.schema['x-kubernetes-validations'] ?? []) {
      if (e.detail === r.message || e.detail === `failed rule: ${r.rule}` || e.detail.includes(`evaluating rule: ${r.rule}`)) return { ...n, rule: r };
    }
  }
  return undefined;
}
