/**
 * One replica of the fleet controller with cluster sharding, as its own process (the multi-cluster test kills it
 * with SIGKILL). Settings from the environment: MC_HUB_KUBECONFIG, MC_NAMESPACE, MC_IDENTITY, MC_LEASE_MS. Prints a
 * JSON line `{"identity","owned":[...]}` whenever the clusters it drives change; exits 0 after SIGTERM.
 */
import { createTransport } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { fleetManager } from './multicluster-fleet.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const identity = env('MC_IDENTITY');
const leaseDurationMs = Number(env('MC_LEASE_MS'));
const mgr = fleetManager({
  hub: createTransport({ kubeconfig: env('MC_HUB_KUBECONFIG') }),
  namespace: env('MC_NAMESPACE'),
  clusterSharding: { identity, leaseDurationMs, renewDeadlineMs: leaseDurationMs * 2 / 3, retryPeriodMs: 1_000 },
  debug: process.env['MC_DEBUG'] === '1',
});
const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
let last = '';
const report = setInterval(() => {
  const owned = JSON.stringify(mgr.ownedClusterNames());
  if (owned === last) return;
  last = owned;
  process.stdout.write(`${JSON.stringify({ identity, owned: mgr.ownedClusterNames() })}\n`);
}, 50);
mgr.start(stop.signal).then(
  () => {
    clearInterval(report);
    process.exit(0);
  },
  (err: unknown) => {
    process.stderr.write(`replica ${identity} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
