/**
 * `ShardSelector`: how a shard's informers ask the apiserver for its objects only.
 *
 * Today that is the label selector `shard.kubegen.io/<ring>=<identity>`: the sharder writes the label, the
 * apiserver filters list and watch by it. KEP-5866 (server-side sharded list/watch) lets a client instead ask for
 * a hash range of a field (`shardSelector`), with no label and no sharder writes. Code that builds informers goes
 * through {@link ShardSelector.apply} and {@link ShardSelector.matches} rather than reading the label itself, so a
 * hash-range implementation can replace the label one without touching controllers.
 */
import type { KubeObject } from '../client/types.js';
import { shardLabel, validateRingName, validateShardIdentity } from './labels.js';

/** Options that carry a label selector: `ListOptions`, `WatchOptions`, `InformerOptions`, `SharedInformerFactoryOptions`. */
export interface SelectableOptions {
  labelSelector?: string;
}

/** Selects the objects of one shard (see the module comment). */
export interface ShardSelector {
  /** `'label'`: selection by the shard label (the only kind today). */
  readonly kind: 'label';
  /** The ring and the shard this selector selects for. */
  readonly ring: string;
  readonly identity: string;
  /** The label selector of this shard's objects, e.g. `shard.kubegen.io/foos=replica-0`. */
  readonly labelSelector: string;
  /**
   * `opts` narrowed to this shard: a copy whose `labelSelector` is the shard's, ANDed with the one `opts` already
   * had (`app=web` → `app=web,shard.kubegen.io/foos=replica-0`). For informer, list and watch options.
   */
  apply<O extends SelectableOptions | object>(opts?: O): O & { labelSelector: string };
  /** Whether `obj` belongs to this shard (what the apiserver's filtering would answer for it). */
  matches(obj: KubeObject): boolean;
}

/** The label-based {@link ShardSelector} of `identity` in `ring`; throws a TypeError on invalid names. */
export function labelShardSelector(ring: string, identity: string): ShardSelector {
  validateRingName(ring);
  validateShardIdentity(identity);
  const key = shardLabel(ring);
  const selector = `${key}=${identity}`;
  return {
    kind: 'label',
    ring,
    identity,
    labelSelector: selector,
    apply<O extends SelectableOptions | object>(opts?: O): O & { labelSelector: string } {
      const own = (opts as SelectableOptions | undefined)?.labelSelector?.trim();
      return { ...(opts ?? ({} as O)), labelSelector: own ? `${own},${selector}` : selector };
    },
    matches(obj: KubeObject): boolean {
      return obj.metadata?.labels?.[key] === identity;
    },
  };
}
