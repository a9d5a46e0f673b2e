/**
 * Leader election metrics with controller-runtime's names (`pkg/metrics/leaderelection.go`):
 * `leader_election_master_status{name}` is 1 while this process leads the lock `name`, 0 otherwise.
 * One gauge per registry; electors built against the same registry share it.
 */
import { Gauge, type Registry } from '../metrics/prom.js';
import { metricsRegistry, registeredOr } from '../metrics/registry.js';

export const LEADER_ELECTION_MASTER_STATUS = 'leader_election_master_status';

const gauges = new WeakMap<Registry, Gauge<'name'>>();

/** The `leader_election_master_status` gauge of `registry` (created and registered on first use). */
export function leaderElectionStatusGauge(registry: Registry = metricsRegistry): Gauge<'name'> {
  let gauge = gauges.get(registry);
  if (gauge === undefined) {
    gauge = registeredOr(registry, LEADER_ELECTION_MASTER_STATUS, () =>
      new Gauge({
        name: LEADER_ELECTION_MASTER_STATUS,
        help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. \'name\' is the string used to identify the lease. Please make sure to group by name.',
        labelNames: ['name'],
        registers: [registry],
      }),
    );
    gauges.set(registry, gauge);
  }
  return gauge;
}
