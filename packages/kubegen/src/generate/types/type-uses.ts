/**
 * The field-use graph the namer works on (`type-names.ts`): every field's use of a type to name (an `Edge`: parent,
 * field, the name parts the field gives), the types to name (`Node`s) with where they first occur, and the helpers
 * that settle sibling fields' clashes and place named literal unions after the interface that first uses them.
 */
import { pascalSegment } from '../emit-util.js';
import { segments } from './name-parts.js';
import type { EnumDef, ObjectDef, TypeRef } from './type-ref.js';

type ObjRef = Extract<TypeRef, { kind: 'obj' }>;
type LitRef = Extract<TypeRef, { kind: 'lit' }>;

/** One field's use of a named type: `parent.field` (through arrays and maps) is typed by `ref`. */
export interface Edge {
  parent: ObjectDef;
  field: string;
  ref: ObjRef | LitRef;
  /** The field's part of the name (`Rule` for `rules[]`), and its meaning-based alternative (`RulesItem`). */
  seg: string;
  alt: string;
  /** A plain field (no array or map between the field and its type). */
  plain: boolean;
}

/** A type to name: an interface, or a literal union used by several fields. */
export interface Node {
  def: ObjectDef | EnumDef;
  edges: Edge[];
  parents: Set<ObjectDef>;
  kinds: Set<string>;
  depth: number;
  order: string;
  seq: number;
}

/** Where a type occurs first (shortest path, then shortest name, then A–Z), and the kinds it occurs in. */
export function pathInfo(d: ObjectDef, pascal: (segment: string) => string): { depth: number; order: string; kinds: Set<string> } {
  const depth = d.paths.reduce((m, p) => Math.min(m, p.length), Infinity);
  let order = '';
  for (const p of d.paths) {
    if (p.length !== depth) continue;
    const name = p[0]! + p.slice(1).map(pascal).join('');
    if (order === '' || name.length < order.length || (name.length === order.length && name < order)) order = name;
  }
  return { depth, order, kinds: new Set(d.paths.map((p) => p[0]!)) };
}

/** Every field's use of an interface (and, with `enums`, of a literal union of two or more values), in emission order. */
export function collectEdges(ordered: readonly ObjectDef[], enums: boolean): Edge[] {
  const edges: Edge[] = [];
  for (const parent of ordered) {
    for (const p of parent.props) {
      const walk = (t: TypeRef, arrays: number, map: boolean): void => {
        if ((t.kind === 'obj' && t.def.fixedName === undefined) || (t.kind === 'lit' && enums && t.values.length > 1)) {
          edges.push({ parent, field: p.name, ref: t, ...segments(p.name, arrays, map), plain: arrays === 0 && !map });
        } else if (t.kind === 'array') walk(t.of, arrays + 1, map);
        else if (t.kind === 'map') walk(t.of, arrays, true);
        else if (t.kind === 'null') walk(t.of, arrays, map);
        else if (t.kind === 'union') for (const m of t.of) walk(m, arrays, map);
      };
      walk(p.type, 0, false);
    }
  }
  return edges;
}

/**
 * Sibling fields whose types would take one name (`filter` and the items of `filters`): plain fields keep it, the
 * others take their meaning-based alternative (`…FiltersItem`).
 */
export function resolveSiblings(edges: Edge[], nodes: Node[]): void {
  const target = new Map<Edge, Node>();
  for (const n of nodes) for (const e of n.edges) target.set(e, n);
  const byParent = new Map<ObjectDef, Map<string, Edge[]>>();
  for (const e of edges) {
    if (!target.has(e)) continue;
    const bySeg = byParent.get(e.parent) ?? new Map<string, Edge[]>();
    byParent.set(e.parent, bySeg);
    const group = bySeg.get(e.seg);
    if (group) group.push(e);
    else bySeg.set(e.seg, [e]);
  }
  for (const bySeg of byParent.values()) {
    for (const group of bySeg.values()) {
      if (new Set(group.map((e) => target.get(e))).size < 2) continue;
      let keep = group.filter((e) => e.plain);
      if (keep.length === 0) keep = group.filter((e) => pascalSegment(e.field) === e.seg);
      if (keep.length === 0) keep = [group[0]!];
      for (const e of group) if (!keep.includes(e)) e.seg = e.alt;
    }
  }
}

/** Each named literal union after the interface whose field first uses it. */
export function placeDeclarations(ordered: readonly ObjectDef[], edges: readonly Edge[]): void {
  for (const d of ordered) delete d.after;
  const placed = new Set<EnumDef>();
  for (const e of edges) {
    const decl = e.ref.kind === 'lit' ? e.ref.named : undefined;
    if (!decl || placed.has(decl)) continue;
    placed.add(decl);
    (e.parent.after ??= []).push(decl);
  }
}

/** `items` in groups of equal `key`, each group and the groups in the order of their first item. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}
