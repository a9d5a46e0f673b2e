/**
 * The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library and the cel-go extensions the apiserver enables),
 * as `@bufbuild/cel` functions.
 */
import type { CelFunc } from '@bufbuild/cel';
import { createRegistry, type Registry } from '@bufbuild/protobuf';
import type { CelT } from '../decl.js';
import type { Signature } from '../signatures.js';

/** Every library function. */
export const LIBRARY: CelFunc[] = [];

/** Result types finer than the declaration can say (a list's `sum()` is its element type). */
export const LIBRARY_RESULT_TYPES = new Map<CelFunc, CelT | Exclude<Signature['result'], CelT>>();

/** The registry of the libraries' opaque types (URL, IP, CIDR, Quantity, Semver, Format). */
export function libraryRegistry(): Registry {
  return createRegistry();
}
