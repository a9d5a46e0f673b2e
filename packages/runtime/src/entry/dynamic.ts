/**
 * `@kubegen/runtime/dynamic`: the dynamic client (client-go `dynamic`, `dynamic/dynamicinformer`; apimachinery
 * `unstructured`): kinds known only at run time, unstructured objects and their nested fields.
 */
export { DynamicClient, DynamicResourceClient } from '../dynamic/dynamic-client.js';
export { DynamicSharedInformerFactory } from '../dynamic/dynamic-informer.js';
export type { DynamicInformer, DynamicInformerOptions, DynamicResourceRef } from '../dynamic/dynamic-informer.js';
export {
  fromUnstructured, groupVersionKindOf, isObjectOfKind, setListItemKinds, toUnstructured
} from '../dynamic/unstructured.js';
export type { Unstructured, UnstructuredList } from '../dynamic/unstructured.js';
export {
  nestedBool, nestedField, NestedFieldError, nestedInt64, nestedMap, nestedNumber, nestedSlice, nestedString,
  nestedStringMap, nestedStringSlice, removeNestedField, setNestedField, statusConditionsOf
} from '../dynamic/nested.js';
export type { Nested } from '../dynamic/nested.js';
export { isValidPathSegmentName, pathSegmentErrors } from '../dynamic/path-segment.js';
