/**
 * Copies of a shared shape (see `type-names.ts`): when the fields an identical sub-schema types have no name in
 * common, the fields that share a name share the type and each other field gets a copy of its own, so that no field's
 * type is named after another field (Istio's `corsPolicy.allowOrigins` is no `…MatchUri`).
 *
 * A copy is a new interface with the original's properties; its properties' types are new `TypeRef`s that point at
 * the same child interfaces (whose names are settled afterwards, by every parent they then have).
 */
import type { EnumDef, ObjectDef, TypeRef } from './type-ref.js';

/** `t` with new array/map/union/null/object/literal wrappers, so that naming one copy's fields leaves the other's. */
export function copyRef(t: TypeRef): TypeRef {
  switch (t.kind) {
    case 'array':
      return t.keys ? { kind: 'array', of: copyRef(t.of), keys: t.keys } : { kind: 'array', of: copyRef(t.of) };
    case 'map':
      return { kind: 'map', of: copyRef(t.of) };
    case 'null':
      return { kind: 'null', of: copyRef(t.of) };
    case 'union':
      return { kind: 'union', of: t.of.map(copyRef) };
    case 'obj':
      return { kind: 'obj', def: t.def };
    case 'lit':
      return { ...t };
    default:
      return t;
  }
}

/** A copy of `def` (unnamed, placed nowhere yet) whose properties' types are copies; `id` must be unused. */
export function copyObjectDef(def: ObjectDef, id: number): ObjectDef {
  const copy: ObjectDef = {
    ...def,
    id,
    name: '',
    paths: [],
    props: def.props.map((p) => ({ ...p, type: copyRef(p.type) })),
    descriptions: new Set(def.descriptions),
    notes: [...def.notes],
  };
  delete copy.after;
  return copy;
}

/** A copy of a literal union, unnamed. */
export function copyEnumDef(def: EnumDef): EnumDef {
  return { name: '', values: def.values };
}
