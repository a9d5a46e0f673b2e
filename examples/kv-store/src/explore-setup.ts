/**
 * `kubegen explore --setup` module of the kv-store example (issue 42): registers the KVStore controller on the Manager
 * explore gives it, as main.ts does, with PodDisruptionBudgets of `policy/v1` (what discovery finds on a current
 * control plane). The manager's cache is explore's own (every object of each kind, not only the managed ones):
 * the controller reads the same objects either way on a control plane where nothing else makes them.
 */
import type { Manager } from '@kubegen/runtime';
import { setupKVStoreController } from './controller.js';

export default function setup(mgr: Manager): void {
  setupKVStoreController(mgr, { disruptionBudgetVersion: 'policy/v1' });
}
