/**
 * Entry point of the fleet-config controller: a `MultiClusterManager` over the hub (`--kubeconfig`), its member
 * clusters the kubeconfig Secrets in `--clusters-namespace` (`KubeconfigSecretProvider`: a Secret labelled
 * `multicluster.kubegen.io/kubeconfig=true`, the kubeconfig under `kubeconfig`, the cluster named after the Secret;
 * added, changed or removed at runtime), and one controller (controller.ts) writing each FleetConfig into a
 * ConfigMap of every member. `/metrics`, `/healthz` and `/readyz` (`/readyz/clusters` names each member's state).
 *
 * Traces (OpenTelemetry, docs/tracing.md) are exported when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (`startTracing` of `@kubegen/runtime/tracing/sdk`).
 *
 * A member that is unreachable, slow or forbidden parks its own lane and is reported in the FleetConfigs' status;
 * the other members go on. Runs until SIGTERM or SIGINT, then lets in-flight reconciles finish and exits 0 (a
 * second signal exits 1 at once). Bad flags exit 2 with the usage; a manager that cannot start exits 1 with one log
 * line.
 */
import { createTransport, getLogger, runMain, setupLogging } from '@kubegen/runtime';
import { ping } from '@kubegen/runtime/metrics';
import { KubeconfigSecretProvider, MultiClusterManager } from '@kubegen/runtime/multicluster';
import { startTracing } from '@kubegen/runtime/tracing/sdk';
import { addFleetConfigController, memberClusterOptions } from './controller.js';
import { parseOptions, type Options } from './options.js';

// Until the flags are read: the default logger (KUBEGEN_LOG_LEVEL, KUBEGEN_LOG_FORMAT).
let log = getLogger().child({ component: 'fleet-config' });

async function main(opts: Options): Promise<void> {
  log = setupLogging(opts.logging).child({ component: 'fleet-config' });
  // OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/tracing.md), before the manager: it traces through
  // the provider the SDK registers. Nothing is loaded otherwise.
  const stopTracing = await startTracing();
  const hub = createTransport(opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {});
  const mgr = new MultiClusterManager({
    transport: hub,
    metricsBindAddress: opts.metricsBindAddress,
    healthProbeBindAddress: opts.healthProbeBindAddress,
    logger: log,
    provider: new KubeconfigSecretProvider({
      transport: hub,
      namespace: opts.clustersNamespace,
      logger: log,
      transportOptions: { timeoutMs: opts.memberTimeoutMs },
      ...memberClusterOptions(),
    }),
  });
  addFleetConfigController(mgr, { workers: opts.workers });
  mgr.local.addHealthzCheck('ping', ping);
  log.info('starting', { clustersNamespace: opts.clustersNamespace });
  try {
    await mgr.startWithSignals();
  } finally {
    await stopTracing();
  }
  log.info('stopped');
}

let opts: Options;
try {
  opts = parseOptions(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
await runMain(() => main(opts), { logger: () => log });
