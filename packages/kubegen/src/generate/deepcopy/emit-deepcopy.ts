import type { GroupVersion } from '../../model/index.js';
import { HEADER, literal, RuntimeNames } from '../emit-util.js';
import { TypeGraph, refKey } from '../types/index.js';
import { hasUserTypes, typeImportLines } from '../user-types.js';
import type { ObjectDef, TypeRef } from '../types/index.js';

export interface EmitDeepCopyOptions {
  /** Module `deepCopyJSON` is imported from. Default `@kubegen/runtime`. */
  runtimeImport?: string;
  /** Extension of the relative import of `./types`: `.js` (default), `.ts` or ''. */
  importExtension?: '.js' | '.ts' | '';
  /** A graph already built for `gv` (shared with the types emitter); built when absent. */
  graph?: TypeGraph;
}

/**
 * The content of `<group>/<version>/deepcopy.ts`: `deepCopy<Name>(src)` for every named type of `types.ts` (so
 * `deepCopy<Kind>` and `deepCopy<Kind>List` for every kind), plus private array/map helpers.
 *
 * Each object copier is one loop over the source's own keys with a `switch` on the schema's object-valued
 * properties: primitives are copied by value, typed subtrees by their generated copier, and everything else —
 * free-form (`unknown`) data and keys the schema does not know — by the runtime `deepCopyJSON`, so nothing is
 * dropped and the copy is always fully deep. Key order is preserved. A `__proto__` key is copied as an own
 * property. Types are imported as a namespace (`types.X`) so no type name can shadow a global or a helper.
 */
export function emitDeepCopy(gv: GroupVersion, opts: EmitDeepCopyOptions = {}): string {
  const graph = opts.graph ?? new TypeGraph(gv);
  const defs = graph.orderedDefs();
  const fnNames = new Set(defs.map((d) => `deepCopy${d.name}`));
  const rt = new RuntimeNames(fnNames);
  const json = rt.use('deepCopyJSON');
  // With user types (TypeScript front end) only the kinds' root and list types exist by name; nested objects are
  // copied by the same code, typed as plain JSON objects.
  const user = hasUserTypes(gv);
  const userNames = new Map<ObjectDef, string>();
  if (user) {
    for (const k of graph.kinds) {
      const u = k.kv.version.userTypes!;
      userNames.set(k.root, u.kind);
      userNames.set(k.list, u.list ?? `${u.kind}List`);
    }
  }
  const typeOf = (d: ObjectDef): string => (user ? userNames.get(d) ?? 'JSONObject_' : `types.${d.name}`);
  const ctx = new Ctx(json, typeOf);
  const fns = defs.map((d) => emitObjectCopier(d, ctx, typeOf(d)));
  const runtime = opts.runtimeImport ?? '@kubegen/runtime';
  const ext = opts.importExtension ?? '.js';
  let out = `${HEADER}\n`;
  out += `// Deep-copy functions for ${gv.group}/${gv.version}.\n`;
  if (user) out += `${typeImportLines(gv, [...userNames.values()], ext).join('\n')}\n`;
  else out += `import type * as types from ${literal(`./types${ext}`)};\n`;
  out += `import { ${rt.specifiers(['deepCopyJSON'])}, setOwnKey as setOwnKey_ } from ${literal(runtime)};\n\n`;
  out += `type JSONObject_ = { [key: string]: unknown };\n\n`;
  out += fns.join('\n');
  if (ctx.helpers.length) out += `\n${ctx.helpers.join('\n')}`;
  return out;
}

/** Collects the array/map helper functions, one per distinct element type. */
class Ctx {
  readonly helpers: string[] = [];
  private readonly byKey = new Map<string, string>();
  constructor(
    readonly json: string,
    readonly typeOf: (d: ObjectDef) => string,
  ) {}

  /** Expression copying `v`, which the caller has checked to be a non-null object. */
  copyExpr(t: TypeRef, v: string): string {
    switch (t.k) {
      case 'obj':
        return `deepCopy${t.def.name}(${v} as ${this.typeOf(t.def)})`;
      case 'null':
        return this.copyExpr(t.of, v);
      case 'array':
        return `${this.helper(t)}(${v})`;
      case 'map':
        return `${this.helper(t)}(${v})`;
      default:
        return `${this.json}(${v})`;
    }
  }

  private helper(t: TypeRef & { k: 'array' | 'map' }): string {
    const key = refKey(t);
    let name = this.byKey.get(key);
    if (name) return name;
    name = `copy${t.k === 'array' ? 'Array' : 'Map'}${this.byKey.size}_`;
    this.byKey.set(key, name);
    const elem = t.of;
    const deep = needsCopy(elem);
    let s = '';
    if (t.k === 'array') {
      s += `function ${name}(a: unknown): unknown {\n`;
      s += `  if (!Array.isArray(a)) return ${this.json}(a);\n`;
      s += `  const out: unknown[] = a.slice();\n`;
      if (deep) {
        s += `  for (let i = 0; i < out.length; i++) {\n`;
        s += `    const e = out[i];\n`;
        s += `    if (typeof e === 'object' && e !== null) out[i] = ${this.copyExpr(elem, 'e')};\n`;
        s += `  }\n`;
      }
      s += `  return out;\n}\n`;
    } else {
      s += `function ${name}(m: unknown): unknown {\n`;
      s += `  if (typeof m !== 'object' || m === null || Array.isArray(m)) return ${this.json}(m);\n`;
      if (!deep) {
        s += `  return { ...(m as JSONObject_) };\n}\n`;
      } else {
        s += `  const src = m as JSONObject_;\n`;
        s += `  const out: JSONObject_ = {};\n`;
        s += `  for (const k in src) {\n`;
        s += `    const e = src[k];\n`;
        s += `    const c = typeof e === 'object' && e !== null ? ${this.copyExpr(elem, 'e')} : e;\n`;
        s += `    if (k === '__proto__') setOwnKey_(out, k, c);\n`;
        s += `    else out[k] = c;\n`;
        s += `  }\n  return out;\n}\n`;
      }
    }
    this.helpers.push(s);
    return name;
  }
}

/** Whether values of this type can hold objects (primitives and literals are copied by value). */
function needsCopy(t: TypeRef): boolean {
  switch (t.k) {
    case 'prim':
    case 'lit':
    case 'ios':
      return false;
    case 'null':
      return needsCopy(t.of);
    case 'union':
      return t.of.some(needsCopy);
    default:
      return true;
  }
}

function emitObjectCopier(def: ObjectDef, ctx: Ctx, t: string): string {
  const cases: string[] = [];
  for (const p of def.props) {
    if (!needsCopy(p.type) || p.name === '__proto__') continue;
    const expr = ctx.copyExpr(p.type, 'v');
    if (expr.startsWith(`${ctx.json}(`)) continue; // the default branch does exactly this
    cases.push(`        case ${literal(p.name)}:\n          out[k] = ${expr};\n          break;\n`);
  }
  let s = `/** Returns a deep copy of \`src\`; the copy shares nothing with it. */\n`;
  s += `export function deepCopy${def.name}(src: ${t}): ${t} {\n`;
  s += `  const s = src as unknown as JSONObject_;\n`;
  s += `  const out: JSONObject_ = {};\n`;
  s += `  for (const k in s) {\n`;
  s += `    const v = s[k];\n`;
  s += `    if (k === '__proto__') setOwnKey_(out, k, ${ctx.json}(v));\n`;
  s += `    else if (typeof v !== 'object' || v === null) out[k] = v;\n`;
  if (cases.length) {
    s += `    else {\n      switch (k) {\n${cases.join('')}        default:\n          out[k] = ${ctx.json}(v);\n      }\n    }\n`;
  } else {
    s += `    else out[k] = ${ctx.json}(v);\n`;
  }
  s += `  }\n`;
  s += `  return out as unknown as ${t};\n}\n`;
  return s;
}
