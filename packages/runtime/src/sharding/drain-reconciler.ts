/**
 * The drain handshake on the reconcile side, for controllers a `Manager` shards (the builder wires it): before each
 * reconcile the request's object is looked up in the cache of the sharded kind, and when the sharder asked to drain
 * it, the shard acknowledges (removes its labels) instead of reconciling. A controller's worker handles one request
 * at a time per key, so the acknowledgement comes only after any earlier reconcile of the object has finished: no
 * object is ever reconciled by two shards at once. See docs/sharding.md.
 */
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import type { KubeObject } from '../client/types.js';
import type { Predicate } from '../predicate/predicate.js';
import { requestKey, type ReconcileFunc, type Reconciler } from '../reconcile/index.js';
import type { Shard } from './shard.js';

/**
 * `reconciler`, but a request whose object carries this shard's drain label is acknowledged (`shard.handleDrain`)
 * and not reconciled, and a request whose object is not in this shard's cache (gone, or no longer labelled for this
 * shard — e.g. the event of its own acknowledgement) is dropped: it is another shard's now, or nobody's, as the
 * range modes treat it. `informers` returns the caches of the sharded kind (one per cached namespace).
 */
export function withDrainHandshake(shard: Shard, reconciler: Reconciler | ReconcileFunc, informers: () => readonly SharedIndexInformer<KubeObject>[]): Reconciler {
  const reconcile: ReconcileFunc = typeof reconciler === 'function' ? reconciler : (req, ctx) => reconciler.reconcile(req, ctx);
  return {
    reconcile: async (req, ctx) => {
      const key = requestKey(req);
      const obj = informers().map((i) => i.getIndexer().getByKey(key)).find((o) => o !== undefined);
      if (obj === undefined) return;
      if (await shard.handleDrain(obj, ctx.signal)) {
        ctx.log.debug('drained: handed over to the sharder', { shard: shard.identity });
        return;
      }
      return reconcile(req, ctx);
    },
  };
}

/**
 * Admits the events that carry this shard's drain label, whatever the controller's own predicates say (a
 * `generationChanged` filter would swallow the label-only update that asks for the drain, and it would never be
 * acknowledged).
 */
export function drainRequested(shard: Shard): Predicate<KubeObject> {
  const has = (o: KubeObject | undefined): boolean => o?.metadata?.labels?.[shard.drainLabel] !== undefined;
  return { create: has, update: (_old, obj) => has(obj), delete: () => false, generic: has };
}
