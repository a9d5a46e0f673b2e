/** JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386), used by the fake tracker and available to controllers. */
export * from './json-pointer.js';
export { applyJsonPatch, validateJsonPatch, jsonEqual } from './json-patch.js';
export * from './merge-patch.js';
