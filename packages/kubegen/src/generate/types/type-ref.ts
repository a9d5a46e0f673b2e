import type { JSONSchemaProps } from '../../model/index.js';

/**
 * The TypeScript-side view of a schema node, shared by the types and deepcopy emitters so both agree on names.
 * Only objects with properties become named interfaces (`obj`); everything else is written inline.
 */
export type TypeRef =
  | { kind: 'prim'; name: 'string' | 'number' | 'boolean' }
  | { kind: 'unknown' }
  /** `IntOrString` from the runtime. */
  | { kind: 'ios' }
  /** `ObjectMeta` from the runtime. */
  | { kind: 'meta' }
  /** `ListMeta` from the runtime. */
  | { kind: 'listmeta' }
  /** A core Kubernetes type from the runtime (`PodTemplateSpec`, `Container`…; see `core-types.ts`). */
  | { kind: 'core'; name: string }
  /**
   * A union of JSON literals (enum values, apiVersion/kind constants). `named` is set when the same union types
   * several fields (one `export type`). `open`: any other
   * string too (`| (string & {})`): a built-in `+enum` type, whose values a newer server may add to (Go's
   * `type PodPhase string` holds any string); the listed values still complete in an editor.
   */
  | { kind: 'lit'; values: unknown[]; named?: EnumDef; open?: boolean }
  /**
   * `T[]`. `keys` is set for an associative list (`x-kubernetes-list-type: map`): its list-map keys an apply
   * configuration's entries must carry (the keys the schema defaults are left out, the apiserver fills them in).
   */
  | { kind: 'array'; of: TypeRef; keys?: string[] }
  /** `{ [key: string]: T }` */
  | { kind: 'map'; of: TypeRef }
  /** A named interface. */
  | { kind: 'obj'; def: ObjectDef }
  | { kind: 'union'; of: TypeRef[] }
  /** A type alias declared in this module (the built-in API's `+enum` types, `Time`: see `DefinitionGraph`). */
  | { kind: 'alias'; def: TypeAliasDef }
  /**
   * A type of another package of the built-in API, spelled through that package's namespace import (`corev1.PodSpec`,
   * `dir` its folder); `object` when it is an interface (its apply form is `<name>Apply` there).
   */
  | { kind: 'ext'; ns: string; dir: string; name: string; object: boolean }
  /** `T | null` */
  | { kind: 'null'; of: TypeRef };

export interface PropDef {
  /** The wire name, verbatim. */
  name: string;
  type: TypeRef;
  required: boolean;
  /** The property's schema, for its JSDoc (description, default). Absent for synthetic properties. */
  schema?: JSONSchemaProps;
}

/** A named type that is not an interface: `export type <name> = <type>;` (the built-in API's enums and scalars). */
export interface TypeAliasDef {
  name: string;
  type: TypeRef;
  description?: string | undefined;
}

/** A literal union that types several fields: `export type <name> = "a" | "b";` (see `type-names.ts`). */
export interface EnumDef {
  name: string;
  values: unknown[];
}

/** One named interface. Identical object schemas share one `ObjectDef` (see `TypeGraph`). */
export interface ObjectDef {
  id: number;
  /** Structural identity (children by id), used for de-duplication. */
  key: string;
  /** Final TypeScript name; set by `TypeGraph.assignNames`. */
  name: string;
  /** Path segments (first is the kind) of every place this type occurs; the shortest names it. */
  paths: string[][];
  props: PropDef[];
  /** The schema of its first occurrence (with `exact` graphs, every occurrence's but for its description). */
  schema?: JSONSchemaProps;
  /** Value type of an index signature (`[key: string]: T`), when the object keeps unknown keys. */
  index?: TypeRef;
  /** Distinct descriptions of the object at its occurrences; its JSDoc is used only when there is exactly one. */
  descriptions: Set<string>;
  /** Extra JSDoc paragraphs (validation constraints that have no type-level form). */
  notes: string[];
  /** A core type from the runtime this interface extends (`props` are only the schema's other properties). */
  base?: string;
  /**
   * The literal unions declared right after this interface: those its fields are the first to use (set by the
   * naming).
   */
  after?: EnumDef[];
  /** Set for a kind's root and list types: fixed name and doc. */
  fixedName?: string;
  deprecated?: string | boolean;
}

/** A stable string identifying a TypeRef's structure (objects by id). */
export function refKey(t: TypeRef): string {
  switch (t.kind) {
    case 'prim':
      return t.name;
    case 'unknown':
    case 'ios':
    case 'meta':
    case 'listmeta':
      return t.kind;
    case 'lit':
      return `lit${JSON.stringify(t.values)}`;
    case 'array':
      return t.keys ? `[${refKey(t.of)}]${JSON.stringify(t.keys)}` : `[${refKey(t.of)}]`;
    case 'map':
      return `{${refKey(t.of)}}`;
    case 'core':
      return `core:${t.name}`;
    case 'obj':
      return `#${t.def.id}`;
    case 'union':
      return `(${t.of.map(refKey).join('|')})`;
    case 'alias':
      return `alias:${t.def.name}`;
    case 'ext':
      return `ext:${t.dir}.${t.name}`;
    case 'null':
      return `?${refKey(t.of)}`;
  }
}
