/**
 * The sample controller (a port of k8s.io/sample-controller `controller.go`): keeps, for every Foo, a Deployment
 * named `spec.deploymentName` with `spec.replicas` replicas, owned by the Foo, and copies the Deployment's
 * `status.availableReplicas` into the Foo's status. Unlike the Go original, the Deployments a Foo controls under
 * another name (an earlier `spec.deploymentName`) are deleted, so that the end state depends on the last spec only.
 *
 * Foo add/update events enqueue the Foo's key; Deployment add/update/delete events enqueue the Foo that controls the
 * Deployment. `run(workers, signal)` waits for both caches, then runs `workers` loops that each take one key at a
 * time from the rate-limited queue and call `syncHandler(key)`. A failed sync is re-added with the queue's rate
 * limiter (5 ms doubling per failure, and a 10 qps / 100 burst bucket overall); a successful one is forgotten.
 * Every sync is counted and timed under controller-runtime's names (`controller_runtime_reconcile_total{controller,
 * result}`, `_reconcile_errors_total`, `_reconcile_time_seconds`, `_active_workers`, `_max_concurrent_reconciles`),
 * labelled `controller="sample-controller"`, next to the queue's `workqueue_*{name="Foos"}` series.
 * Objects from the listers are shared with the cache and never mutated: writes go through copies.
 */
import {
  getLogger, isControlledBy, isNotFound, type Deployment, type EventRecorder, type KubeClientset, type KubeObject,
  type Logger,
} from '@kubegen/runtime';
import { DeletedFinalStateUnknown, metaNamespaceKey, splitMetaNamespaceKey } from '@kubegen/runtime/cache';
import { retryReason, type TypedInformer } from '@kubegen/runtime/client';
import { controllerMetrics, initControllerMetrics, type ControllerMetrics } from '@kubegen/runtime/controller';
import { whenAborted } from '@kubegen/runtime/clock';
import { RepeatFilter } from '@kubegen/runtime/log';
import type { Shard } from '@kubegen/runtime/sharding';
import { RateLimitingQueue } from '@kubegen/runtime/workqueue';
import type { Clientset } from './generated/clientset.js';
import type { Foo, FooInformer } from './generated/samplecontroller.k8s.io/v1alpha1/index.js';
import { FOO_API_VERSION, FOO_KIND, newDeployment } from './new-deployment.js';

export const CONTROLLER_AGENT_NAME = 'sample-controller';
/** The Deployment informer's index of the Deployments a Foo controls, by the Foo's uid. */
export const FOO_OWNER_INDEX = 'sample-controller/foo-owner';
/** Reason of the event recorded when a Foo is synced successfully. */
export const SUCCESS_SYNCED = 'Synced';
/** Reason of the event recorded when the Deployment exists but is not controlled by the Foo. */
export const ERR_RESOURCE_EXISTS = 'ErrResourceExists';
/** `MessageResourceExists` ("Resource %q already exists and is not managed by Foo"). */
export const messageResourceExists = (name: string): string => `Resource ${JSON.stringify(name)} already exists and is not managed by Foo`;
export const MESSAGE_RESOURCE_SYNCED = 'Foo synced successfully';

export interface ControllerOptions {
  kubeClientset: KubeClientset;
  sampleClientset: Clientset;
  deploymentInformer: TypedInformer<Deployment>;
  fooInformer: FooInformer;
  recorder: EventRecorder;
  logger?: Logger;
  /** Default: a `RateLimitingQueue` named `Foos` with the default controller rate limiter. */
  queue?: RateLimitingQueue<string>;
  /** controller-runtime's reconcile metrics, labelled `controller="sample-controller"` (default: the runtime registry's). */
  metrics?: ControllerMetrics;
  /**
   * With sharding: the replica's shard. Before a sync the worker lets it acknowledge a drain (and skips the sync);
   * Deployments get its labels for their Foo.
   */
  shard?: Shard;
}

export class Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly kube: KubeClientset;
  private readonly sample: Clientset;
  private readonly deployments: TypedInformer<Deployment>;
  private readonly foos: FooInformer;
  private readonly recorder: EventRecorder;
  private readonly log: Logger;
  private readonly repeats = new RepeatFilter();
  private readonly metrics: ControllerMetrics;
  private readonly metricLabels = { controller: CONTROLLER_AGENT_NAME };
  private readonly shard: Shard | undefined;
  private stopping = false;

  constructor(opts: ControllerOptions) {
    this.kube = opts.kubeClientset;
    this.sample = opts.sampleClientset;
    this.deployments = opts.deploymentInformer;
    this.foos = opts.fooInformer;
    this.recorder = opts.recorder;
    this.log = (opts.logger ?? getLogger()).child({ controller: CONTROLLER_AGENT_NAME });
    this.queue = opts.queue ?? new RateLimitingQueue<string>({ name: 'Foos' });
    this.metrics = opts.metrics ?? controllerMetrics();
    this.shard = opts.shard;
    // Every series at 0 from the first scrape (dashboards show 0, not "no data"; rate() sees the first error).
    initControllerMetrics(this.metrics, CONTROLLER_AGENT_NAME);
    for (const informer of this.informers()) this.metrics.sourceSynced.set({ ...this.metricLabels, source: informer.name }, 0);

    // The Deployments each Foo controls, by the Foo's uid: what deleteOtherDeployments reads, without a namespace scan.
    if (!this.deployments.informer.getIndexer().hasIndex(FOO_OWNER_INDEX)) {
      this.deployments.informer.addIndexers({
        [FOO_OWNER_INDEX]: (d) => (d.metadata?.ownerReferences ?? []).filter((r) => r.controller === true && r.kind === FOO_KIND).map((r) => r.uid),
      });
    }
    this.log.info('Setting up event handlers');
    this.foos.informer.addEventHandler({
      onAdd: (foo) => this.enqueueFoo(foo),
      onUpdate: (_old, foo) => this.enqueueFoo(foo),
    });
    this.deployments.informer.addEventHandler({
      onAdd: (d) => this.handleObject(d),
      onUpdate: (oldD, newD) => {
        // Periodic resyncs deliver the same Deployment again; two versions of one Deployment always differ in
        // resourceVersion.
        if (oldD.metadata?.resourceVersion === newD.metadata?.resourceVersion) return;
        this.handleObject(newD);
      },
      onDelete: (d) => this.handleObject(d),
    });
  }

  /**
   * Waits for the caches, runs `workers` worker loops until `signal` aborts, then shuts the queue down and resolves
   * once every in-flight sync has finished (queued keys are dropped). Never rejects.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    this.log.info('Starting Foo controller');
    this.log.info('Waiting for informer caches to sync');
    const synced = await Promise.race([
      Promise.all([this.deployments.informer.whenSynced(), this.foos.informer.whenSynced()]).then(() => true),
      whenAborted(signal).then(() => false),
    ]);
    if (synced) {
      for (const informer of this.informers()) this.metrics.sourceSynced.set({ ...this.metricLabels, source: informer.name }, 1);
      this.log.info('Starting workers', { count: workers });
      this.metrics.maxConcurrent.set(this.metricLabels, workers);
      const loops = Array.from({ length: workers }, () => this.runWorker());
      this.log.info('Started workers');
      await whenAborted(signal);
      this.log.info('Shutting down workers');
      this.stopping = true;
      this.queue.shutDown();
      await Promise.all(loops);
    } else {
      this.queue.shutDown();
    }
    this.log.info('Shut down workers');
  }

  /** The informers the controller waits for (its sources, in `kubegen_controller_source_synced`). */
  private informers(): { name: string }[] {
    return [this.foos.informer, this.deployments.informer];
  }

  /** Takes keys off the queue until it shuts down (or `run` is stopping). */
  private async runWorker(): Promise<void> {
    while (!this.stopping && (await this.processNextWorkItem()));
  }

  /** Handles one key; false once the queue is shut down. Never rejects. */
  async processNextWorkItem(): Promise<boolean> {
    const next = await this.queue.get();
    if (next.shutdown) return false;
    const key = next.item;
    const labels = this.metricLabels;
    const startedAt = performance.now();
    this.metrics.activeWorkers.inc(labels);
    try {
      if (await this.drained(key)) {
        this.queue.forget(key);
        return true;
      }
      this.log.debug('sync started', { resourceName: key });
      try {
        await this.syncHandler(key);
      } finally {
        this.log.debug('sync finished', { resourceName: key });
      }
      this.queue.forget(key);
      this.metrics.reconcileTotal.inc({ ...labels, result: 'success' });
      this.log.info('Successfully synced', { resourceName: key });
    } catch (err) {
      this.queue.addRateLimited(key);
      this.metrics.reconcileErrors.inc(labels);
      this.metrics.reconcileTotal.inc({ ...labels, result: 'error' });
      // Conflicts (a stale cache read) and an unreachable apiserver fix themselves: info, repeats rate-limited.
      const retriable = retryReason(err);
      const admitted = retriable ? this.repeats.admit(retriable) : { repeated: 0 };
      if (!retriable) this.log.error(`error syncing '${key}', requeuing`, { error: err, resourceName: key });
      else if (admitted) this.log.info(`error syncing '${key}', requeuing`, { error: err, resourceName: key, ...(admitted.repeated > 0 ? { repeated: admitted.repeated } : {}) });
    } finally {
      this.metrics.activeWorkers.dec(labels);
      this.metrics.reconcileTime.observe(labels, (performance.now() - startedAt) / 1000);
      this.queue.done(key);
    }
    return true;
  }

  /**
   * With sharding: true when this shard must not sync the Foo `key` — the sharder asked to drain it (the drain is
   * acknowledged here, between syncs of the key, so no sync of it is in flight when it moves) or it is not this
   * shard's. Rejects on API errors (the key is retried).
   */
  private async drained(key: string): Promise<boolean> {
    if (this.shard === undefined) return false;
    let namespace: string;
    let name: string;
    try {
      ({ namespace, name } = splitMetaNamespaceKey(key));
    } catch {
      return false;
    }
    const foo = this.foos.lister.namespace(namespace).get(name);
    return foo !== undefined && (await this.shard.handleDrain(foo));
  }

  /**
   * Drives the Deployment of the Foo `key` (`namespace/name`) towards the Foo's spec and writes the Foo's status.
   * Resolves when done or when there is nothing to do; rejects when the key should be retried.
   */
  async syncHandler(key: string): Promise<void> {
    let namespace: string;
    let name: string;
    try {
      ({ namespace, name } = splitMetaNamespaceKey(key));
    } catch {
      this.log.error('invalid resource key', { resourceName: key });
      return;
    }

    const foo = this.foos.lister.namespace(namespace).get(name);
    if (foo === undefined) {
      this.log.error(`foo '${key}' in work queue no longer exists`, { resourceName: key });
      return;
    }

    const deploymentName = foo.spec?.deploymentName;
    if (!deploymentName) {
      // Nothing to run until the spec names a Deployment (an update of the Foo will enqueue it again): the Deployments
      // an earlier spec named go, and the status says nothing is available, as for a Foo that never named one.
      this.log.error(`${key}: deployment name must be specified`, { resourceName: key });
      await this.deleteOtherDeployments(foo, undefined);
      if (foo.status?.availableReplicas !== undefined) {
        const { availableReplicas: _, ...status } = foo.status;
        await this.sample.samplecontrollerV1alpha1.foos(namespace).updateStatus({ ...asFoo(foo), status });
      }
      return;
    }

    let deployment = this.deployments.lister.namespace(namespace).get(deploymentName);
    if (deployment === undefined) {
      deployment = await this.kube.appsV1.deployments(namespace).create(newDeployment(foo, this.shard?.labelsFor(foo)));
    }

    if (!isControlledBy(deployment, foo)) {
      const msg = messageResourceExists(deploymentName);
      this.recorder.event(asFoo(foo), 'Warning', ERR_RESOURCE_EXISTS, msg);
      throw new Error(msg);
    }

    const want = foo.spec?.replicas;
    if (want !== undefined && want !== deployment.spec?.replicas) {
      this.log.info('Update deployment resource', { foo: key, desiredReplicas: want, currentReplicas: deployment.spec?.replicas });
      deployment = await this.kube.appsV1.deployments(namespace).update(newDeployment(foo, this.shard?.labelsFor(foo)));
    }

    await this.deleteOtherDeployments(foo, deploymentName);
    await this.updateFooStatus(foo, deployment);
    this.recorder.event(asFoo(foo), 'Normal', SUCCESS_SYNCED, MESSAGE_RESOURCE_SYNCED);
  }

  /**
   * Deletes the Deployments `foo` controls other than `keep`: those an earlier spec named (`spec.deploymentName`
   * changed or removed). Without it a Foo renamed from a to b keeps both, where a Foo made with b has one (found by
   * `kubegen explore --faults mutate`). A Deployment already gone is fine.
   */
  private async deleteOtherDeployments(foo: Foo, keep: string | undefined): Promise<void> {
    const namespace = foo.metadata?.namespace ?? '';
    for (const d of this.deployments.informer.getIndexer().byIndex(FOO_OWNER_INDEX, foo.metadata?.uid ?? '')) {
      const name = d.metadata?.name ?? '';
      if (name === keep || d.metadata?.namespace !== namespace || !isControlledBy(d, foo)) continue;
      this.log.info('Delete deployment resource no longer named by the Foo', { foo: `${namespace}/${foo.metadata?.name}`, deployment: name });
      await this.kube.appsV1.deployments(namespace).delete(name).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  }

  /** Writes `status.availableReplicas` from the Deployment through the status subresource (on a copy of `foo`). */
  private async updateFooStatus(foo: Foo, deployment: Deployment): Promise<void> {
    const copy: Foo = { ...asFoo(foo), status: { ...foo.status, availableReplicas: deployment.status?.availableReplicas ?? 0 } };
    await this.sample.samplecontrollerV1alpha1.foos(foo.metadata?.namespace ?? '').updateStatus(copy);
  }

  /** Enqueues the key of a Foo. */
  enqueueFoo(foo: Foo): void {
    let key: string;
    try {
      key = metaNamespaceKey(foo);
    } catch (err) {
      this.log.error('cannot compute key of Foo', { error: err });
      return;
    }
    this.queue.add(key);
  }

  /**
   * Enqueues the Foo that controls `obj` (a Deployment, or the tombstone of a deleted one), if that Foo is in the
   * cache. Objects controlled by something else, or by nothing, are ignored.
   */
  handleObject(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    let object: KubeObject;
    if (obj instanceof DeletedFinalStateUnknown) {
      object = obj.obj;
      this.log.info('Recovered deleted object', { resourceName: object.metadata?.name });
    } else {
      object = obj;
    }
    this.log.debug('Processing object', { object: object.metadata?.name });
    const owner = object.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (owner === undefined || owner.kind !== FOO_KIND) return;
    const namespace = object.metadata?.namespace ?? '';
    const foo = this.foos.lister.namespace(namespace).get(owner.name);
    if (foo === undefined) {
      this.log.debug('ignoring orphaned object', { object: `${namespace}/${object.metadata?.name}`, foo: owner.name });
      return;
    }
    this.enqueueFoo(foo);
  }
}

/** The Foo with its apiVersion and kind set (lists leave them off items; events and writes need them). */
function asFoo(foo: Foo): Foo {
  return foo.apiVersion && foo.kind ? foo : { ...foo, apiVersion: FOO_API_VERSION, kind: FOO_KIND };
}
