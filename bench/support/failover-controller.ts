/**
 * The controller `bench:failover` runs as child processes: a Manager with leader election (4 s lease, 3 s renew
 * deadline, 1 s retry, the Lease `<lease>` in `<namespace>`) and one controller for the sample-controller's Foos in
 * `<namespace>`, whose reconciler does nothing but log its first call (`first reconcile`) and, once every one of
 * `<expected>` Foos has been reconciled, `reconciled every Foo`. `<warm|cold>` sets `ManagerOptions.enableWarmup`.
 * Logs are JSON lines on stderr (`ts` to the millisecond), read by the bench.
 *
 * Usage: node failover-controller.js <kubeconfig> <namespace> <lease> <identity> <warm|cold> <expected>
 */
import { createTransport, getLogger, Manager, newControllerManagedBy } from '@kubegen/runtime';
import { fooResource } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/register.js';

const [kubeconfig, namespace, lease, identity, mode, expected] = process.argv.slice(2);
if (!kubeconfig || !namespace || !lease || !identity || (mode !== 'warm' && mode !== 'cold') || !expected) {
  console.error('usage: failover-controller.js <kubeconfig> <namespace> <lease> <identity> <warm|cold> <expected>');
  process.exit(2);
}
const log = getLogger().child({ identity });
const mgr = new Manager({
  transport: createTransport({ kubeconfig }),
  namespace,
  metricsBindAddress: '0',
  leaderElection: true,
  leaderElectionId: lease,
  leaderElectionNamespace: namespace,
  leaderElectionIdentity: identity,
  leaseDurationMs: 4_000,
  renewDeadlineMs: 3_000,
  retryPeriodMs: 1_000,
  enableWarmup: mode === 'warm',
  logger: log,
});
const seen = new Set<string>();
const want = Number(expected);
newControllerManagedBy(mgr)
  .for(fooResource)
  .named('failover')
  .withOptions({ maxConcurrentReconciles: 2 })
  .complete((req) => {
    if (seen.size === 0) log.info('first reconcile', { name: req.name });
    seen.add(req.name);
    if (seen.size === want) log.info('reconciled every Foo', { count: want });
  });
await mgr.startWithSignals();
