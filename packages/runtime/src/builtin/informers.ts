/** The built-in API's informers (`KubeInformers`, generated: one member per group/version, built on first use). */
import type { KubeObject } from '../client/types.js';
import type { Lister } from '../cache/lister.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';

export { KubeInformers } from '../api/informers.js';

/** A shared informer and a lister over its cache (objects from both are shared: read-only). */
export interface TypedInformer<T extends KubeObject> {
  readonly informer: SharedIndexInformer<T>;
  readonly lister: Lister<T>;
}
