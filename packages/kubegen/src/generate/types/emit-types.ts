import type { GroupVersion } from '../../model/index.js';
import { HEADER, jsDoc, literal, propertyKey, RuntimeNames } from '../emit-util.js';
import { groupVersionDir } from '../names.js';
import { runtimeTypeImports } from './runtime-type-imports.js';
import { RUNTIME_TYPE_NAMES, TypeGraph } from './type-graph.js';
import type { TypeModel } from './type-model.js';
import type { EnumDef, ObjectDef, PropDef, TypeAliasDef, TypeRef } from './type-ref.js';

export interface EmitTypesOptions {
  /** Module the runtime types (`ObjectMeta`, `ListMeta`, `IntOrString`, core types) are imported from. Default `@kubegen/runtime`. */
  runtimeImport?: string;
  /** A graph already built for `gv` (the deepcopy emitter shares it); built when absent. */
  graph?: TypeModel;
  /** Extension of relative imports (of other packages' types, built-in API only). Default `.js`. */
  importExtension?: string;
}

/**
 * The content of `<group>/<version>/types.ts`: for every kind `export interface <Kind>` (apiVersion/kind literal
 * types, `metadata?: ObjectMeta`, every other top-level schema property), `export interface <Kind>List`, one
 * interface per distinct nested object schema, and after an interface the literal unions several of its fields use
 * (`type-names.ts`). Output is deterministic. The text never contains input verbatim
 * outside of JSON string literals, quoted keys and escaped JSDoc. No global names are referenced (maps are written
 * as index signatures), so kinds such as `Function` or `Map` are safe.
 */
export function emitTypes(gv: GroupVersion, opts: EmitTypesOptions = {}): string {
  const graph: TypeModel = opts.graph ?? new TypeGraph(gv);
  const decls = graph.declarations?.() ?? graph.orderedDefs();
  const defs = decls.filter((d): d is ObjectDef => 'props' in d);
  const used = new RuntimeNames(new Set([...declaredNames(defs), ...decls.map((d) => d.name), ...(graph.imports?.values() ?? [])]));
  const body: string[] = [];
  for (const decl of decls) {
    if (!('props' in decl)) {
      body.push(emitTypeAlias(decl, used));
      continue;
    }
    body.push(emitInterface(decl, used));
    if (decl.after) body.push(decl.after.map(emitNamedType).join(''));
  }
  const imports = used.specifiers(RUNTIME_TYPE_NAMES);
  const runtime = opts.runtimeImport ?? '@kubegen/runtime';
  let out = `${HEADER}\n`;
  out += `// Types for ${gv.group || 'core'}/${gv.version}.\n`;
  for (const line of runtimeTypeImports(imports, runtime)) out += `${line}\n`;
  out += packageImports(gv, graph.imports, 'types', opts.importExtension ?? '.js');
  return `${out}\n${body.join('\n')}`;
}

/**
 * `import type * as corev1 from "../../core/v1/types.js";` for every other package a built-in API package refers to
 * (its `module`: `types` or `applyconfigurations`, and `suffix` appended to the namespace).
 */
export function packageImports(gv: GroupVersion, imports: ReadonlyMap<string, string> | undefined, module: string, ext: string, suffix = ''): string {
  if (!imports || imports.size === 0) return '';
  const from = groupVersionDir(gv);
  return [...imports]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([dir, ns]) => `import type * as ${ns}${suffix} from ${literal(`${relativeDir(from, dir)}/${module}${ext}`)};\n`)
    .join('');
}

/** The relative path from output folder `from` to folder `to` (`core/v1` → `meta/v1`: `../../meta/v1`). */
function relativeDir(from: string, to: string): string {
  return `${from.split('/').map(() => '..').join('/')}/${to}`;
}

function emitTypeAlias(decl: TypeAliasDef, used: RuntimeNames): string {
  return `${jsDoc({ description: decl.description })}export type ${decl.name} = ${typeText(decl.type, used)};\n`;
}

/** Every name a `types.ts` over `defs` declares: the interfaces, aliases and named literal unions. */
export function declaredNames(defs: readonly ObjectDef[]): Set<string> {
  return new Set(defs.flatMap((d) => [d.name, ...(d.after ?? []).map((a) => a.name)]));
}

/** A named literal union: `export type <name> = "a" | "b";`. */
function emitNamedType(decl: EnumDef): string {
  return `export type ${decl.name} = ${decl.values.map(literal).join(' | ')};\n`;
}

function emitInterface(def: ObjectDef, used: RuntimeNames): string {
  const descriptions = [...def.descriptions].filter((d) => d !== '');
  const description = descriptions.length === 1 && def.descriptions.size === 1 ? descriptions[0] : undefined;
  let s = jsDoc({ description, notes: def.notes, deprecated: def.deprecated });
  s += `export interface ${def.name}${def.base ? ` extends ${used.use(def.base)}` : ''} {\n`;
  for (const p of def.props) s += emitProperty(p, used);
  if (def.index) s += `  [key: string]: ${typeText(def.index, used)};\n`;
  return `${s}}\n`;
}

function emitProperty(p: PropDef, used: RuntimeNames): string {
  const sc = p.schema;
  const notes: string[] = [];
  const doc = sc
    ? jsDoc({ description: sc.description, notes, hasDefault: sc.default !== undefined, defaultValue: sc.default }, '  ')
    : '';
  let type = typeText(p.type, used);
  // An optional property named like an Object.prototype member (`constructor`, `toString`, ...) reads as the
  // inherited member when absent, and TS checks object literals against it: include that type so literals work.
  if (!p.required && OBJECT_PROTOTYPE_KEYS.has(p.name)) type += ` | {}[${literal(p.name)}]`;
  return `${doc}  ${propertyKey(p.name)}${p.required ? '' : '?'}: ${type};\n`;
}

/** Property names an optional property shares with `Object.prototype`: absent, they read as the inherited member. */
export const OBJECT_PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['constructor', 'toString', 'toLocaleString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable']);

/**
 * How {@link typeText} spells what differs between a form of the types (the apply configurations spell named objects
 * by their apply names, core types deep-partial, and list-map items with their keys required); `undefined` from a
 * hook means the plain spelling.
 */
export interface TypeTextForm {
  obj?: (t: Extract<TypeRef, { kind: 'obj' }>) => string;
  /** A named literal union (or its alias) by `name`. */
  named?: (name: string) => string;
  core?: (name: string) => string;
  /** Another package's type (built-in API). */
  ext?: (t: Extract<TypeRef, { kind: 'ext' }>) => string;
  array?: (t: Extract<TypeRef, { kind: 'array' }>, item: string) => string | undefined;
}

/** TypeScript text of a type reference; runtime names go through `used` (recorded, aliased on a clash). */
export function typeText(t: TypeRef, used: RuntimeNames, form: TypeTextForm = {}): string {
  switch (t.kind) {
    case 'prim':
      return t.name;
    case 'unknown':
      return 'unknown';
    case 'ios':
      return used.use('IntOrString');
    case 'meta':
      return used.use('ObjectMeta');
    case 'listmeta':
      return used.use('ListMeta');
    case 'core':
      return form.core ? form.core(t.name) : used.use(t.name);
    case 'lit': {
      const name = t.named?.name;
      if (name !== undefined) return form.named ? form.named(name) : name;
      return t.values.map(literal).join(' | ') + (t.open ? ' | (string & {})' : '');
    }
    case 'array': {
      const inner = typeText(t.of, used, form);
      return form.array?.(t, inner) ?? (needsParens(t.of) ? `(${inner})[]` : `${inner}[]`);
    }
    case 'map':
      return `{ [key: string]: ${typeText(t.of, used, form)} }`;
    case 'obj':
      return form.obj ? form.obj(t) : t.def.name;
    case 'union':
      return t.of.map((m) => typeText(m, used, form)).join(' | ');
    case 'alias':
      return form.named ? form.named(t.def.name) : t.def.name;
    case 'ext':
      return form.ext ? form.ext(t) : `${t.ns}.${t.name}`;
    case 'null':
      return `${typeText(t.of, used, form)} | null`;
  }
}

function needsParens(t: TypeRef): boolean {
  return t.kind === 'union' || t.kind === 'null' || (t.kind === 'lit' && (t.values.length > 1 || t.open === true) && !t.named);
}
