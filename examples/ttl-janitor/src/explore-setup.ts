/**
 * `kubegen explore --setup` module of the ttl-janitor example (issue 42): adds the Janitor to the Manager explore
 * gives it, as main.ts does, for ConfigMaps and the scenario's Widgets (`--include-resources configmaps,
 * widgets.example.com`: a controller per resource, found through discovery), deleting for real, with every access
 * review allowed (explore's control plane has no authorizer).
 */
import type { Manager } from '@kubegen/runtime';
import { realClock } from '@kubegen/runtime/clock';
import { Janitor } from './janitor.js';
import { janitorMetrics } from './metrics.js';
import { parseResourceNames } from './resources.js';

export default function setup(mgr: Manager): void {
  mgr.add(
    new Janitor({
      manager: mgr,
      filter: { include: parseResourceNames('--include-resources', ['configmaps', 'widgets.example.com']), exclude: [] },
      dryRun: false,
      namespaces: [],
      excludedNamespaces: ['kube-system'],
      workers: 1,
      discoveryIntervalMs: 0,
      access: async () => ({ allowed: true }),
      metrics: janitorMetrics(mgr.registry),
      logger: mgr.logger,
      clock: realClock,
    }),
  );
}
