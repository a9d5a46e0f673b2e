/**
 * One KVStore's reconcile:
 *
 * 1. read the store from the manager's cache (gone: nothing to do; its owned objects go with it);
 * 2. the finalizer: added to a live store; on a store being deleted, its claims are deleted (src/claims.ts) and the
 *    finalizer removed, so the apiserver lets the store go;
 * 3. every owned object applied by server-side apply, under one field manager, forcing its fields: ServiceAccount,
 *    Role, RoleBinding, ConfigMap, the two Services, NetworkPolicy, PodDisruptionBudget (in the version the operator
 *    runs with), StatefulSet — in that order, so that members start with their identity, configuration and peers in
 *    place. Fields the operator stops setting are released, and removed unless someone else owns them;
 * 4. the status applied from what step 3 saw (src/status.ts), only when it changes.
 *
 * An apply the apiserver refuses as invalid (a changed claim size: claim templates cannot change) is reported in
 * `Ready` and not retried (a `TerminalError`; the next spec change reconciles again); other errors are reported and
 * retried with backoff.
 */
import { FinalizerRegistry, isInvalid, isNotFound, KubeClientset, TerminalError } from '@kubegen/runtime';
import { isBeingDeleted } from '@kubegen/runtime/controller';
import type { ApplyOptions, CachedClient, EventRecorder, ReconcileContext, Reconciler, Request } from '@kubegen/runtime';
import { Clientset } from './generated/index.js';
import { kvStoreResource, type KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { networkPolicy, role, roleBinding, serviceAccount } from './access.js';
import { deleteClaims } from './claims.js';
import { applyDisruptionBudget, disruptionBudget, type DisruptionBudgetVersion } from './disruption.js';
import { FIELD_MANAGER, FINALIZER } from './names.js';
import { statusApply, type Observed } from './status.js';
import { clientService, configMap, peerService, statefulSet } from './workload.js';

export class KVStoreReconciler implements Reconciler {
  private readonly kube: KubeClientset;
  private readonly kv: Clientset;
  private readonly finalizers: FinalizerRegistry<KVStore>;

  /**
   * `client` is the manager's client (reads from its cache); writes go to the API through typed clientsets over its
   * transport. `disruptionBudgetVersion` is the PodDisruptionBudget version the operator runs with (src/disruption.ts).
   */
  constructor(
    private readonly client: CachedClient,
    private readonly recorder: EventRecorder,
    private readonly disruptionBudgetVersion: DisruptionBudgetVersion,
  ) {
    this.kube = new KubeClientset(client.transport);
    this.kv = new Clientset(client.transport);
    this.finalizers = new FinalizerRegistry<KVStore>().register(FINALIZER, async (store) => {
      const deleted = await deleteClaims(this.kube, store);
      if (deleted.length > 0) this.recorder.event(store, 'Normal', 'ClaimsDeleted', `deleted PersistentVolumeClaims ${deleted.join(', ')}`);
    });
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<void> {
    const store = await this.client.resource<KVStore>(kvStoreResource, req.namespace).get(req.name).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (!store) return;

    const finalized = await this.finalizers.finalize(store);
    if (finalized.updated) await this.kv.kvV1alpha1.kvStores(req.namespace).update(store, { signal: ctx.signal });
    if (finalized.error) throw finalized.error;
    if (finalized.removed.length > 0) ctx.log.info('claims deleted; the store may go', { finalizer: FINALIZER });
    if (isBeingDeleted(store)) return;

    let observed: Observed;
    try {
      observed = await this.applyOwned(store, { fieldManager: FIELD_MANAGER, force: true, signal: ctx.signal });
    } catch (err) {
      const failed: Observed = { applied: false, error: err instanceof Error ? err.message : String(err), invalid: isInvalid(err) };
      await this.applyStatus(store, failed, ctx.signal);
      throw failed.invalid ? new TerminalError(err) : err;
    }
    await this.applyStatus(store, observed, ctx.signal);
  }

  /** Step 3 of the module comment; returns what the StatefulSet reports. */
  private async applyOwned(store: KVStore, opts: ApplyOptions): Promise<Observed> {
    const ns = store.metadata?.namespace ?? '';
    const core = this.kube.coreV1;
    await core.serviceAccounts(ns).apply(serviceAccount(store), opts);
    await this.kube.rbacV1.roles(ns).apply(role(store), opts);
    await this.kube.rbacV1.roleBindings(ns).apply(roleBinding(store), opts);
    await core.configMaps(ns).apply(configMap(store), opts);
    await core.services(ns).apply(peerService(store), opts);
    await core.services(ns).apply(clientService(store), opts);
    await this.kube.networkingV1.networkPolicies(ns).apply(networkPolicy(store), opts);
    await applyDisruptionBudget(this.kube, disruptionBudget(store, this.disruptionBudgetVersion), opts);
    const sts = await this.kube.appsV1.statefulSets(ns).apply(statefulSet(store), opts);
    return { applied: true, readyReplicas: sts.status?.readyReplicas ?? 0, disruptionBudgetVersion: this.disruptionBudgetVersion };
  }

  private async applyStatus(store: KVStore, observed: Observed, signal: AbortSignal): Promise<void> {
    const status = statusApply(store, observed);
    if (status) await this.kv.kvV1alpha1.kvStores(store.metadata?.namespace ?? '').applyStatus(status, { fieldManager: FIELD_MANAGER, force: true, signal });
  }
}
