export { emitTypes, typeText } from './emit-types.js';
export type { EmitTypesOptions } from './emit-types.js';
export { CORE_TYPES_ANNOTATION, KIND_DERIVED_SUFFIXES, TypeGraph, RUNTIME_TYPE_NAMES } from './type-graph.js';
export type { CoreTypeUse, KindTypes, TypeGraphOptions } from './type-graph.js';
export { CORE_TYPES, CoreTypeMatcher, DRIFT_RATIO, MAX_DRIFT, MIN_COMMON_TO_EXTEND } from './core-types.js';
export type { CoreMatch, CoreType } from './core-types.js';
export type { ObjectDef, PropDef, TypeRef } from './type-ref.js';
export { refKey } from './type-ref.js';
