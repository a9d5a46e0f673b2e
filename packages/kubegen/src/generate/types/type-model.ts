import type { GroupVersion, KindVersion } from '../../model/index.js';
import type { CoreMatch, CoreMiss } from './core-types.js';
import type { ObjectDef, TypeAliasDef } from './type-ref.js';

/** The named types of one kind: its root interface, its list interface. */
export interface KindTypes {
  kindVersion: KindVersion;
  root: ObjectDef;
  list: ObjectDef;
}

/** A sub-schema typed as a core type: the kind, where in it (`spec.containers[]`; `{}` for map values), and what. */
export interface CoreTypeUse extends CoreMatch {
  kind: string;
  where: string;
}

/** A sub-schema shaped like a core type that keeps its own type (`CoreMiss`): the kind and where in it. */
export interface CoreTypeMiss extends CoreMiss {
  kind: string;
  where: string;
}

/**
 * What the emitters read of one group/version's types, whichever graph built them: a CRD's `TypeGraph` (shapes
 * named by where they occur) or the built-in API's `DefinitionGraph` (Go's named types).
 */
export interface TypeModel {
  readonly gv: GroupVersion;
  readonly kinds: readonly KindTypes[];
  /** Sub-schemas typed as the runtime's core types (CRD graphs only). */
  readonly coreTypeUses: readonly CoreTypeUse[];
  /** Sub-schemas shaped like core types but different from them (CRD graphs only). */
  readonly coreTypeMisses?: readonly CoreTypeMiss[];
  /** Every interface, in emission order. */
  orderedDefs(): ObjectDef[];
  /** Every declaration in emission order, type aliases included; absent: `orderedDefs()` (and their `after`s). */
  declarations?(): (ObjectDef | TypeAliasDef)[];
  /**
   * Every name the group-version's `types.ts` declares (interfaces, type aliases, named literal unions, and the
   * element aliases `--emit-markers` claims while writing it): read it after `types.ts` was emitted.
   */
  exportedNames(): ReadonlySet<string>;
  /** Other packages referred to: folder → the namespace their types are spelled through (`core/v1` → `corev1`). */
  readonly imports?: ReadonlyMap<string, string>;
}
