/**
 * Entry point of the kv-store operator: the PodDisruptionBudget version settled first (`--pdb-version`, or discovery
 * with `auto`: src/disruption.ts), then a manager whose cache holds KVStores and the objects they own, the KVStore
 * controller (src/controller.ts), `/metrics` and the `/healthz` + `/readyz` probes.
 *
 * Traces (OpenTelemetry, docs/tracing.md) are exported when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (`startTracing` of `@kubegen/runtime/tracing/sdk`).
 *
 * Runs until SIGTERM or SIGINT, then lets in-flight reconciles finish and exits 0 (a second signal exits 1 at once).
 * Bad flags exit 2 with the usage; a server that serves no PodDisruptionBudget, or a manager that cannot start, exits
 * 1 with one log line naming the cause.
 */
import { createTransport, getLogger, Manager, runMain, setupLogging } from '@kubegen/runtime';
import { ping } from '@kubegen/runtime/metrics';
import { startTracing } from '@kubegen/runtime/tracing/sdk';
import { cacheOptions, setupKVStoreController } from './controller.js';
import { disruptionBudgetVersion } from './disruption.js';
import { parseOptions, type Options } from './options.js';

// Until the flags are read: the default logger (KUBEGEN_LOG_LEVEL, KUBEGEN_LOG_FORMAT).
let log = getLogger().child({ component: 'kv-store' });

async function main(opts: Options): Promise<void> {
  log = setupLogging(opts.logging).child({ component: 'kv-store' });
  // OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/tracing.md), before the manager: it traces through
  // the provider the SDK registers. Nothing is loaded otherwise.
  const stopTracing = await startTracing();
  const transport = createTransport(opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {});
  const version = await disruptionBudgetVersion(transport, opts.pdbVersion);
  log.info('PodDisruptionBudget version', { version, from: opts.pdbVersion === 'auto' ? 'discovery' : '--pdb-version' });
  const mgr = new Manager({
    transport,
    logger: log,
    metricsBindAddress: opts.metricsBindAddress,
    healthProbeBindAddress: opts.healthProbeBindAddress,
    cache: cacheOptions(version),
  });
  mgr.addHealthzCheck('ping', ping);
  mgr.addReadyzCheck('ping', ping);
  setupKVStoreController(mgr, { disruptionBudgetVersion: version, workers: opts.workers });
  log.info('starting manager');
  try {
    await mgr.startWithSignals();
  } finally {
    await stopTracing();
  }
  log.info('manager stopped');
}

let opts: Options;
try {
  opts = parseOptions(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
await runMain(() => main(opts), { logger: () => log });
