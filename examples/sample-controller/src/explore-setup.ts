/**
 * `kubegen explore --setup` module of the sample controller (issue 42). The controller is client-go style (its own
 * queue and workers, no controller builder), so it is wired as main.ts wires it, on the Manager's transport and
 * informer factory, and added as a runnable that reports what explore reads to tell it has settled: `reconciling`
 * (syncs under way), its `queue`, its `informers()` and `syncStatus()`. Two workers, no sharding, no webhooks.
 */
import { KubeClientset, KubeInformers, type Manager } from '@kubegen/runtime';
import { controllerMetrics } from '@kubegen/runtime/controller';
import { Clientset } from './generated/clientset.js';
import { InformerFactory } from './generated/informers.js';
import { Controller, CONTROLLER_AGENT_NAME } from './controller.js';

export default function setup(mgr: Manager): void {
  const deploymentInformer = new KubeInformers(mgr.informers).appsV1.deployments({});
  const fooInformer = new InformerFactory(mgr.informers).samplecontrollerV1alpha1.foos({});
  const controller = new Controller({
    kubeClientset: new KubeClientset(mgr.transport),
    sampleClientset: new Clientset(mgr.transport),
    deploymentInformer,
    fooInformer,
    recorder: mgr.getEventRecorderFor(CONTROLLER_AGENT_NAME),
    logger: mgr.logger,
    metrics: controllerMetrics(mgr.registry),
  });
  let reconciling = 0;
  const sync = controller.syncHandler.bind(controller);
  controller.syncHandler = async (key: string): Promise<void> => {
    reconciling++;
    try {
      await sync(key);
    } finally {
      reconciling--;
    }
  };
  const informers = () => [fooInformer.informer, deploymentInformer.informer];
  mgr.add({
    name: CONTROLLER_AGENT_NAME,
    get reconciling() {
      return reconciling;
    },
    queue: controller.queue,
    informers,
    syncStatus: () => ({ synced: informers().every((i) => i.hasSynced()), pending: [] }),
    start: (signal: AbortSignal) => controller.run(2, signal),
  } as Parameters<Manager['add']>[0]);
}
