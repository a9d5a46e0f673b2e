/**
 * Makes a sample satisfy the CEL rules (`x-kubernetes-validations`) of its schema where their shape is a common one,
 * checking each step with the kind's validator (`@kubegen/runtime/validation`, which evaluates the rules as the
 * apiserver does). For every rule the validator says the sample breaks, candidate edits are read off the rule's text
 * and tried, one at a time and then in pairs; an edit is kept when the broken rule is no longer reported and the
 * object has the fewest errors of the candidates. The shapes this covers:
 *
 * - `has(self.a) || has(self.b)`, `has(self.a) != has(self.b)`, exactly-one counts: a referenced field is added;
 * - mutual exclusion `!(has(self.a) && has(self.b))`: a field the sample has (and need not) is removed;
 * - `self.x == 'v'`, `self.x != 'v'`, `self.x in ['a', 'b']`, `self in [...]`: the field (or the node) is set to each
 *   literal of the rule;
 * - bounds `self.x <= N`, `self > N`: the field (or node) is set to N, N-1 and N+1;
 * - sizes `size(self.y) > 0`, `self.y.size() >= 1`: the field gets one element (or one character).
 *
 * What no candidate fixes is returned as {@link UnsatisfiedRule}s (the field path, the rule, the server's message).
 * Deterministic: the same schema and validator give the same sample.
 */
import type { JSONSchemaProps, KindVersion } from '../../model/index.js';

/** The part of `@kubegen/runtime/validation`'s `CrdValidator` the sample uses. */
export interface SampleValidator {
  validate(
    obj: unknown,
    options?: { operation?: 'create' | 'update' | 'status'; old?: unknown; namespace?: string },
  ): { errors: readonly { path: string; reason: string; detail: string; message: string }[]; unknownFields: readonly string[]; object: unknown };
}

/** A rule (or other check) the sample still breaks. */
export interface UnsatisfiedRule {
  /** The refused field, in the apiserver's spelling (`spec.of`, `spec.items[0]`; `<nil>` for the object). */
  path: string;
  /** The CEL rule, when the error is one rule's. */
  rule?: string;
  /** The apiserver's message (`Invalid value: ...: <rule message>`). */
  message: string;
}

/** Builds the validator of `kv`'s CRD (only that version), loading the runtime's validation (and CEL layer) on demand. */
export async function sampleValidator(kv: KindVersion): Promise<SampleValidator> {
  const { createValidator } = await import('@kubegen/runtime/validation');
  const { resource: r, version: v } = kv;
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

/** A segment of a path into an object: a property or map key, or a list index. */
export type Token = string | number;
/** Sets (or, with `remove`, deletes) the value at `path`. */
export type Edit = { path: Token[]; value?: unknown; remove?: boolean };
type Err = { path: string; reason: string; detail: string; message: string };

const MAX_ROUNDS = 24;
const MAX_PAIRS = 300;

/** Repairs `sample` for the rules it breaks (see the module comment). `valueOf` generates a field's value. */
export function satisfyRules(
  kv: KindVersion,
  sample: Record<string, unknown>,
  validator: SampleValidator,
  opts: { withStatus: boolean; valueOf: (s: JSONSchemaProps, name: string) => unknown },
): { object: Record<string, unknown>; unsatisfied: UnsatisfiedRule[] } {
  const schema = kv.version.schema;
  const check = (obj: Record<string, unknown>): Err[] => checkSample(kv, obj, validator, opts.withStatus);
  let obj = sample;
  let errs = check(obj);
  const key = (e: Err): string => `${e.path}\u0000${e.detail}`;
  for (let round = 0; round < MAX_ROUNDS && errs.length > 0; round++) {
    let next: { obj: Record<string, unknown>; errs: Err[] } | undefined;
    for (const e of errs) {
      const target = locateRule(schema, obj, e);
      if (!target) continue;
      const edits = candidateEdits(target, opts.valueOf);
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

/** The errors of `obj` as a create (and, with `withStatus` on a status subresource, the status write after it). */
function checkSample(kv: KindVersion, obj: Record<string, unknown>, validator: SampleValidator, withStatus: boolean): Err[] {
  const namespace = kv.resource.scope === 'Namespaced' ? 'default' : undefined;
  const nsOpt = namespace ? { namespace } : {};
  if (!withStatus || !kv.version.subresources.status) {
    const r = validator.validate(obj, nsOpt);
    return [...r.errors, ...r.unknownFields.map((f) => unknownField(f))];
  }
  const { status: _status, ...main } = obj;
  const created = validator.validate(main, nsOpt);
  const status = validator.validate(obj, { operation: 'status', old: created.object, ...nsOpt });
  return [...created.errors, ...created.unknownFields.map((f) => unknownField(f)), ...status.errors];
}

const unknownField = (f: string): Err => ({ path: f, reason: 'FieldValueInvalid', detail: 'unknown field', message: `unknown field "${f}"` });

/** A node with the rule an error names: the node's path in the object, its schema, its value. */
export interface RuleTarget {
  path: Token[];
  schema: JSONSchemaProps;
  self: unknown;
  rule: { rule: string; message?: string };
}

/** Splits an apiserver field path (`spec.a[0].b`, `spec.m[k.x]`) into its segments. */
function splitPath(path: string): string[] {
  if (path === '<nil>' || path === '') return [];
  const out: string[] = [];
  for (const m of path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)) out.push(m[1] ?? m[2]!);
  return out;
}

/** The deepest node on `e`'s path whose `x-kubernetes-validations` hold the rule `e` reports. */
function locateRule(root: JSONSchemaProps, obj: unknown, e: Err): RuleTarget | undefined {
  const segs = splitPath(e.path);
  const nodes: { schema: JSONSchemaProps; path: Token[]; self: unknown }[] = [{ schema: root, path: [], self: obj }];
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
  for (const n of nodes.reverse()) {
    for (const r of n.schema['x-kubernetes-validations'] ?? []) {
      if (e.detail === r.message || e.detail === `failed rule: ${r.rule}` || e.detail.includes(`evaluating rule: ${r.rule}`)) return { ...n, rule: r };
    }
  }
  return undefined;
}

const LITERAL = String.raw`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false`;

/** A CEL literal as JSON (strings unquoted, numbers, booleans). */
function literal(text: string): unknown {
  const t = text.trim();
  if (t.startsWith("'") || t.startsWith('"')) return t.slice(1, -1).replace(/\\(.)/g, '$1');
  if (t === 'true' || t === 'false') return t === 'true';
  return Number(t);
}

/** The edits worth trying for `target`'s rule, in the order they are tried (also what breaks a rule that holds). */
export function candidateEdits(target: RuleTarget, valueOf: (s: JSONSchemaProps, name: string) => unknown): Edit[] {
  const { rule, schema, self, path } = target;
  const text = rule.rule;
  const edits: Edit[] = [];
  const seen = new Set<string>();
  const push = (e: Edit): void => {
    const k = JSON.stringify(e);
    if (!seen.has(k)) (seen.add(k), edits.push(e));
  };
  const props = schema.properties ?? {};
  const present = self && typeof self === 'object' && !Array.isArray(self) ? (self as Record<string, unknown>) : undefined;
  const required = new Set(schema.required ?? []);
  const fields = [...new Set([...text.matchAll(/\bself\.([A-Za-z_]\w*)/g)].map((m) => m[1]!))].filter((f) => props[f]);
  // Literals the rule compares a field (or the node, `self`) with.
  const setTo = (at: Token[], values: unknown[]): void => values.forEach((value) => push({ path: at, value }));
  const literalsOf = (subject: string): unknown[] => {
    const out: unknown[] = [];
    const s = subject.replace(/\./g, '\\.');
    for (const m of text.matchAll(new RegExp(String.raw`\b${s}\s*(==|!=|<=|>=|<|>)\s*(${LITERAL})`, 'g'))) {
      const v = literal(m[2]!);
      out.push(v);
      if (typeof v === 'number' && m[1] !== '==' && m[1] !== '!=') out.push(v + 1, v - 1);
    }
    for (const m of text.matchAll(new RegExp(String.raw`(${LITERAL})\s*(==|!=|<=|>=|<|>)\s*${s}\b(?!\.)`, 'g'))) {
      const v = literal(m[1]!);
      out.push(v);
      if (typeof v === 'number' && m[2] !== '==' && m[2] !== '!=') out.push(v + 1, v - 1);
    }
    for (const m of text.matchAll(new RegExp(String.raw`\b${s}\s+in\s+\[([^\]]*)\]`, 'g'))) {
      for (const l of m[1]!.matchAll(new RegExp(LITERAL, 'g'))) out.push(literal(l[0]));
    }
    return out;
  };
  for (const f of fields) {
    const fs = props[f]!;
    const at = [...path, f];
    if (present && !(f in present)) {
      const v = valueOf(fs, f);
      push({ path: at, value: v });
      if (Array.isArray(v) && v.length === 0 && fs.items) push({ path: at, value: [valueOf(fs.items, f)] });
    }
    if (present && f in present && !required.has(f)) push({ path: at, remove: true });
    if (new RegExp(String.raw`size\(self\.${f}\)|self\.${f}\.size\(\)`).test(text)) {
      if (fs.type === 'array' && fs.items) push({ path: at, value: [valueOf(fs.items, f)] });
      if (fs.type === 'string') push({ path: at, value: 'x' });
    }
    setTo(at, literalsOf(`self.${f}`));
  }
  setTo(path, literalsOf('self'));
  return edits;
}

/** Applies `e` to `obj` in place (nothing when a parent on the path is missing). */
export function applyEdit(obj: Record<string, unknown>, e: Edit): void {
  if (e.path.length === 0) return;
  let parent: unknown = obj;
  for (const t of e.path.slice(0, -1)) {
    const next = (parent as Record<string | number, unknown>)[t];
    if (next === undefined || next === null || typeof next !== 'object') return;
    parent = next;
  }
  const last = e.path[e.path.length - 1]!;
  const p = parent as Record<string | number, unknown>;
  if (e.remove) delete p[last];
  else p[last] = structuredClone(e.value);
}
