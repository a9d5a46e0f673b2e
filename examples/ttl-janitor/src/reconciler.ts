/**
 * The reconcile of one resource's controller: read the object's metadata from the cache, and delete it once its TTL
 * has run out — with a precondition on its uid (never a newer object of the same name) and propagationPolicy
 * Background (its dependents are collected after it) — else come back when it runs out. An annotation that is not a
 * TTL gets one Warning event (`InvalidTTL`) and one log line naming the object, and nothing else: it is looked at
 * again when the object changes. `--dry-run` logs and counts what would be deleted and writes nothing.
 */
import {
  isConflict, isNotFound, type CachedClient, type EventRecorder, type KubeObject, type Logger, type ReconcileFunc,
} from '@kubegen/runtime';
import type { ResourceInfo } from '@kubegen/runtime/client';
import type { Clock } from '@kubegen/runtime/clock';
import type { JanitorMetrics } from './metrics.js';
import { decide } from './ttl.js';

/** Longest wait between two looks at an object (a 7d TTL is looked at daily): bounds timers and clock drift. */
export const MAX_REQUEUE_MS = 24 * 3_600_000;

/** What a resource's reconcile needs. */
export interface TtlReconcilerOptions {
  client: CachedClient;
  info: ResourceInfo;
  /** `deployments.apps`: the resource in logs, events and metrics. */
  resource: string;
  dryRun: boolean;
  recorder: EventRecorder;
  metrics: JanitorMetrics;
  clock: Pick<Clock, 'now'>;
  log: Logger;
}

/** The reconcile function of one resource's controller (see the module comment). */
export function ttlReconciler(o: TtlReconcilerOptions): ReconcileFunc {
  // An invalid value is reported once per object and value (not at every unrelated update); by namespace/name.
  const reported = new Map<string, string>();
  return async (req) => {
    const client = o.client.metadata(o.info, o.info.namespaced ? req.namespace : undefined);
    const key = `${req.namespace}/${req.name}`;
    let obj: KubeObject;
    try {
      obj = await client.get(req.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      reported.delete(key);
      return;
    }
    const uid = obj.metadata?.uid ?? '';
    const at = { resource: o.resource, ...(req.namespace ? { namespace: req.namespace } : {}), name: req.name };
    const verdict = decide(obj, o.clock.now());
    if (verdict.action !== 'invalid') reported.delete(key);
    switch (verdict.action) {
      case 'ignore':
        return;
      case 'invalid':
        if (reported.get(key) !== verdict.value) {
          reported.set(key, verdict.value);
          o.metrics.invalidTtl.inc({ resource: o.resource });
          o.log.warn('invalid TTL annotation; the object is left alone', { ...at, error: verdict.message });
          if (!o.dryRun) o.recorder.event(obj, 'Warning', 'InvalidTTL', verdict.message);
        }
        return;
      case 'wait':
        return { requeueAfterMs: Math.max(1, Math.min(Math.ceil(verdict.afterMs), MAX_REQUEUE_MS)) };
      case 'delete': {
        const expired = new Date(verdict.expiresAt).toISOString();
        if (o.dryRun) {
          o.metrics.deleted.inc({ resource: o.resource, dry_run: 'true' });
          o.log.info('TTL expired; would delete (dry run)', { ...at, ttl: verdict.ttl, expired });
          return;
        }
        try {
          await client.delete(req.name, { preconditions: { uid }, propagationPolicy: 'Background' });
        } catch (err) {
          // Gone already, or replaced by a newer object of the same name (the uid precondition): nothing to do here;
          // a newer object comes with its own event.
          if (isNotFound(err) || isConflict(err)) return;
          throw err;
        }
        o.metrics.deleted.inc({ resource: o.resource, dry_run: 'false' });
        o.log.info('TTL expired; deleted', { ...at, ttl: verdict.ttl, expired });
        o.recorder.event(obj, 'Normal', 'TimeToLiveExpired', `Deleted: the TTL ${verdict.ttl} ran out at ${expired}`);
        return;
      }
    }
  };
}
