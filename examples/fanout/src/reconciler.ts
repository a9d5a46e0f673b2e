/**
 * The fanout reconciler: a Batch asks for `spec.tasks` Tasks; it makes the missing ones (`<batch>-<index>`, owned by
 * the Batch, labelled with the Batch's name and — when sharded — its owner's shard or bucket labels so each Task is
 * cached by the replica that handles its Batch), deletes those past `spec.tasks`, and writes `status.readyTasks`
 * (Tasks of the Batch that exist and are not being deleted) with `status.observedGeneration`.
 *
 * A Batch's Tasks are found through a field index of the cache on their controlling owner's UID (`OWNER_FIELD`, as
 * kubebuilder's CronJob tutorial indexes Jobs by `.metadata.controller`): one lookup, where a label selector would
 * scan every cached Task of the namespace on every sync (quadratic in the number of Batches).
 *
 * Reads come from the manager's cache; writes go to the API. A conflict or any other error is returned and the
 * request is retried with backoff by the controller. Each sync is framed by debug lines `sync started` / `sync
 * finished` (`resourceName`, precise wall-clock ms in `at`) from which tests check that no two replicas ever work on
 * one Batch at once.
 */
import { isAlreadyExists, isNotFound, type KubeObject, type Logger, type Manager, type Request } from '@kubegen/runtime';
import { API_VERSION, batchResource, taskResource } from './generated/fanout.kubegen.io/v1alpha1/register.js';
import type { Batch, Task } from './generated/fanout.kubegen.io/v1alpha1/types.js';

/** The label every Task carries: the name of its Batch. */
export const BATCH_LABEL = 'fanout.kubegen.io/batch';

/** The cache field index of Tasks by the UID of their controlling owner (`FanoutReconciler.register` adds it). */
export const OWNER_FIELD = '.metadata.controller';

/** The name of a Batch's Task at `index`. */
export function taskName(batch: string, index: number): string {
  return `${batch}-${index}`;
}

/** Reconciles one Batch (see the module comment). */
export class FanoutReconciler {
  constructor(
    private readonly mgr: Manager,
    private readonly log: Logger,
  ) {}

  /** Adds the Task index the reconciler lists by (`OWNER_FIELD`); call before the manager starts. */
  static indexTasks(mgr: Manager): void {
    mgr.indexField<Task>(taskResource, OWNER_FIELD, (t) => (t.metadata?.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.uid));
  }

  async reconcile(req: Request): Promise<void> {
    const key = `${req.namespace}/${req.name}`;
    this.log.debug('sync started', { resourceName: key });
    try {
      await this.sync(req);
    } finally {
      this.log.debug('sync finished', { resourceName: key });
    }
  }

  private async sync(req: Request): Promise<void> {
    const client = this.mgr.getClient();
    const batches = client.resource<Batch>(batchResource, req.namespace);
    const tasks = client.resource<Task>(taskResource, req.namespace);
    let batch: Batch;
    try {
      batch = await batches.get(req.name);
    } catch (err) {
      if (isNotFound(err)) return; // deleted: its Tasks go with it (owner references)
      throw err;
    }
    if (batch.metadata?.deletionTimestamp) return;
    const uid = batch.metadata!.uid!;
    const want = batch.spec?.tasks ?? 0;
    const owned = ((await tasks.list({ fieldSelector: `${OWNER_FIELD}=${uid}` })).items ?? []).filter((t) =>
      t.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid),
    );
    const live = owned.filter((t) => !t.metadata?.deletionTimestamp);
    const have = new Set(live.map((t) => t.spec?.index));
    let ready = live.filter((t) => (t.spec?.index ?? 0) < want).length;
    for (let i = 0; i < want; i++) {
      if (have.has(i)) continue;
      try {
        await tasks.create(this.newTask(batch, i));
        ready++;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err; // made by an earlier sync whose create the cache has not seen yet
        ready++;
      }
    }
    for (const t of live) {
      if ((t.spec?.index ?? 0) < want) continue;
      await tasks.delete(t.metadata!.name!).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    const status = batch.status ?? {};
    if (status.readyTasks === ready && status.observedGeneration === batch.metadata?.generation) return;
    await batches.updateStatus({ ...withKind(batch), status: { ...status, readyTasks: ready, observedGeneration: batch.metadata?.generation ?? 0 } });
  }

  private newTask(batch: Batch, index: number): Task {
    const name = batch.metadata!.name!;
    const shardLabels = this.mgr.shard?.labelsFor(batch as KubeObject) ?? {};
    return {
      apiVersion: API_VERSION,
      kind: 'Task',
      metadata: {
        name: taskName(name, index),
        namespace: batch.metadata!.namespace!,
        labels: { [BATCH_LABEL]: name, ...shardLabels },
        ownerReferences: [{ apiVersion: API_VERSION, kind: 'Batch', name, uid: batch.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
      },
      spec: { index },
    };
  }
}

/** The Batch with its apiVersion and kind set (cached items may lack them; writes need them). */
function withKind(batch: Batch): Batch {
  return { ...batch, apiVersion: API_VERSION, kind: 'Batch' };
}
