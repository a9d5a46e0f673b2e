/**
 * The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library and the cel-go extensions the 1.36 apiserver
 * enables), as `@bufbuild/cel` functions.
 */
import type { CelFunc } from '@bufbuild/cel';
import type { Registry } from '@bufbuild/protobuf';
import { FORMAT_FUNCS } from './format.js';
import { LIST_FUNCS } from './lists.js';
import { NET_FUNCS } from './net.js';
import { OPAQUE_REGISTRY } from './opaque.js';
import { QUANTITY_FUNCS } from './quantity.js';
import { REGEX_FUNCS } from './regex.js';
import { SEMVER_FUNCS } from './semver.js';
import { RESULT_TYPES } from './typed.js';
import { URL_FUNCS } from './url.js';

/** Every library function. */
export const LIBRARY: CelFunc[] = [
  ...LIST_FUNCS,
  ...REGEX_FUNCS,
  ...URL_FUNCS,
  ...NET_FUNCS,
  ...QUANTITY_FUNCS,
  ...FORMAT_FUNCS,
  ...SEMVER_FUNCS,
];

export const LIBRARY_RESULT_TYPES = RESULT_TYPES;

/** The registry of the libraries' opaque types (URL, IP, CIDR, Quantity, Semver, Format). */
export function libraryRegistry(): Registry {
  return OPAQUE_REGISTRY;
}
