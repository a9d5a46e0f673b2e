import type { KubeObject } from '../client/types.js';

/**
 * Rewrites an object before the informer stores it (client-go `TransformFunc`). It receives the freshly decoded
 * object, which nobody else holds yet, so it may modify it in place and return it. It runs for every list item
 * and watch event, so keep it cheap. If it throws, the error is logged and the untransformed object is stored.
 */
export type TransformFunc<T> = (obj: T) => T;

/**
 * A transform that drops `metadata.managedFields`, often a third of an object's size (controller-runtime's
 * `TransformStripManagedFields`). Modifies the object in place.
 */
export function stripManagedFields<T extends KubeObject>(): TransformFunc<T> {
  return stripManagedFieldsFn as unknown as TransformFunc<T>;
}

function stripManagedFieldsFn(obj: KubeObject): KubeObject {
  const meta = obj.metadata;
  if (meta && meta.managedFields !== undefined) delete meta.managedFields;
  return obj;
}

/** Freezes `obj` and everything reachable from it, so that any later write throws in strict-mode code. */
export function deepFreeze<T>(obj: T): T {
  if (obj === null || typeof obj !== 'object' || Object.isFrozen(obj)) return obj;
  Object.freeze(obj);
  for (const key of Object.keys(obj)) deepFreeze((obj as Record<string, unknown>)[key]);
  return obj;
}

/**
 * Whether informers freeze the objects they cache by default (a debug aid that turns accidental mutation of shared
 * objects into a TypeError at the offending line): set `KUBEGEN_CACHE_MUTATION_DETECTOR=true`, as client-go's
 * `KUBE_CACHE_MUTATION_DETECTOR`.
 */
export function mutationDetectorFromEnv(): boolean {
  return process.env['KUBEGEN_CACHE_MUTATION_DETECTOR'] === 'true';
}
