export { emitTypes, typeText } from './emit-types.js';
export type { EmitTypesOptions } from './emit-types.js';
export { TypeGraph, RUNTIME_TYPE_NAMES } from './type-graph.js';
export type { KindTypes } from './type-graph.js';
export type { ObjectDef, PropDef, TypeRef } from './type-ref.js';
export { refKey } from './type-ref.js';
