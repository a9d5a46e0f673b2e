/**
 * `kubegen explore --setup` module of the fleet-config example (issue 42). fleet-config is multi-cluster: its
 * controller runs on a MultiClusterManager, so this setup makes one over the transport explore gives the Manager
 * (the hub) and engages one member cluster, `member-1`, over the same transport (the member's ConfigMaps are then
 * part of the state explore compares; a crash kills hub and member writes alike). It is added to the Manager as a
 * runnable that reports what explore reads to tell it has settled, summed over the controller's lanes (hub and
 * member): `reconciling`, the `queue` length (with the requests a parked lane holds) and next due requeue, the
 * `informers()`, and the hub lane's sync.
 */
import { Cluster, type Controller, type Manager } from '@kubegen/runtime';
import { realClock, type Clock } from '@kubegen/runtime/clock';
import { MultiClusterManager } from '@kubegen/runtime/multicluster';
import { addFleetConfigController, memberClusterOptions } from './controller.js';

/** The member cluster engaged (the hub's own control plane). */
export const EXPLORE_MEMBER = 'member-1';

/**
 * Real time whose timers do not keep the process alive: a run explore crashed leaves reconciles that never end, and
 * the lanes' drain timers (30 s) waiting for them must not hold the test process after its runs are over.
 */
const unrefClock: Clock = {
  now: () => realClock.now(),
  setTimeout: (fn, ms) => {
    const handle = realClock.setTimeout(fn, ms);
    (handle as { current?: { unref?: () => void } }).current?.unref?.();
    return handle;
  },
  clearTimeout: (handle) => realClock.clearTimeout(handle),
};

export default function setup(mgr: Manager): void {
  const mcm = new MultiClusterManager({ transport: mgr.transport, metricsBindAddress: '0', healthProbeBindAddress: '0', logger: mgr.logger, registry: mgr.registry, gracefulShutdownTimeoutMs: 50, clock: unrefClock });
  const controller = addFleetConfigController(mcm);
  const lanes = (): Controller[] => controller.laneControllers();
  mgr.add({
    name: 'fleet-config-explore',
    needLeaderElection: false,
    get reconciling() {
      return lanes().reduce((n, c) => n + c.reconciling, 0);
    },
    queue: {
      // Requests of a lane parked (its informers failed, as across a watch gap) wait outside the queues.
      len: () => lanes().reduce((n, c) => n + c.queue.len(), controller.parkedRequests()),
      nextReadyAt: () => Math.min(...lanes().map((c) => (c.queue as { nextReadyAt?: () => number | undefined }).nextReadyAt?.() ?? Infinity)),
    },
    informers: () => lanes().flatMap((c) => c.informers()),
    syncStatus: () => (lanes().length > 1 ? controller.syncStatus() : { synced: false, pending: [{ source: EXPLORE_MEMBER }] }),
    start: async (signal: AbortSignal) => {
      const member = new Cluster({ ...memberClusterOptions().clusterOptions, transport: mgr.transport, name: EXPLORE_MEMBER, registry: mgr.registry, logger: mgr.logger });
      const engaged = mcm.engage(EXPLORE_MEMBER, member, signal);
      await Promise.all([mcm.start(signal), engaged]);
    },
  } as unknown as Parameters<Manager['add']>[0]);
}
