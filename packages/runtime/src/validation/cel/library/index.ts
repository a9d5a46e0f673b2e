/**
 * The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library and the cel-go extensions the 1.36 apiserver
 * enables), as `@bufbuild/cel` functions.
 */
import type { CelFunc } from '@bufbuild/cel';
import type { Registry } from '@bufbuild/protobuf';
import { LIST_FUNCS } from './lists.js';
import { OPAQUE_REGISTRY } from './opaque.js';
import { REGEX_FUNCS } from './regex.js';
import { RESULT_TYPES } from './typed.js';

/** Every library function. */
export const LIBRARY: CelFunc[] = [...LIST_FUNCS, ...REGEX_FUNCS];

export const LIBRARY_RESULT_TYPES = RESULT_TYPES;

/** The registry of the libraries' opaque types (URL, IP, CIDR, Quantity, Semver, Format). */
export function libraryRegistry(): Registry {
  return OPAQUE_REGISTRY;
}
