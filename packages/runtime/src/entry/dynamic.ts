/**
 * `@kubegen/runtime/dynamic`: the dynamic client (client-go `dynamic`, `dynamic/dynamicinformer`; apimachinery
 * `unstructured`): kinds known only at run time, unstructured objects and their nested fields.
 */
export { DynamicClient, DynamicResourceClient } from '../dynamic/dynamic-client.js';
export {
  DynamicSharedInformerFactory, type DynamicInformer, type DynamicInformerOptions, type DynamicResourceRef
} from '../dynamic/dynamic-informer.js';
export {
  fromUnstructured, groupVersionKindOf, isObjectOfKind, setListItemKinds, toUnstructured, type Unstructured,
  type UnstructuredList
} from '../dynamic/unstructured.js';
export {
  nestedBool, nestedField, NestedFieldError, nestedInt64, nestedMap, nestedNumber, nestedSlice, nestedString,
  nestedStringMap, nestedStringSlice, removeNestedField, setNestedField, statusConditionsOf, type Nested
} from '../dynamic/nested.js';
export { isValidPathSegmentName, pathSegmentErrors } from '../dynamic/path-segment.js';
