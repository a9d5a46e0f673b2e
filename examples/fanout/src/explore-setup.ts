/**
 * `kubegen explore --setup` module of the fanout example (issue 42): registers the fanout controller on the Manager
 * explore gives it, as main.ts does (the Task index, the controller with its default options).
 */
import { controllerFor, type Manager } from '@kubegen/runtime';
import { batchResource, taskResource } from './generated/fanout.kubegen.io/v1alpha1/register.js';
import { FanoutReconciler } from './reconciler.js';

export default function setup(mgr: Manager): void {
  FanoutReconciler.indexTasks(mgr);
  const reconciler = new FanoutReconciler(mgr, mgr.logger);
  controllerFor(mgr, batchResource)
    .named('fanout')
    .owns(taskResource)
    .complete((req) => reconciler.reconcile(req));
}
