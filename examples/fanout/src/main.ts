/**
 * Entry point of the fanout controller: one controller for Batches owning Tasks (reconciler.ts) on a `Manager`,
 * with `/metrics`, `/healthz` and `/readyz`. With `--sharding` the replica is one shard of the ring `fanout`: it
 * holds its shard Lease, handles the Batches whose UID hashes into its part of the ring and caches only those and
 * their Tasks; how the server is asked (KEP-5866 shard selectors, the same ranges filtered here, or labels written
 * by a sharder) is decided at start (`--sharding-mode=auto`) and logged (docs/sharding.md).
 *
 * Traces (OpenTelemetry, docs/tracing.md) are exported when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (`startTracing` of `@kubegen/runtime/tracing/sdk`).
 *
 * Runs until SIGTERM or SIGINT, then lets in-flight reconciles finish and exits 0 (a second signal exits 1 at once).
 * Bad flags exit 2 with the usage; a manager that cannot start, or a lost shard Lease, exits 1 with one log line.
 */
import { controllerFor, createTransport, getLogger, Manager, runMain, setupLogging } from '@kubegen/runtime';
import { ping } from '@kubegen/runtime/metrics';
import { startTracing } from '@kubegen/runtime/tracing/sdk';
import { batchResource, taskResource } from './generated/fanout.kubegen.io/v1alpha1/register.js';
import { FanoutReconciler } from './reconciler.js';
import { parseOptions, type Options } from './options.js';

// Until the flags are read: the default logger (KUBEGEN_LOG_LEVEL, KUBEGEN_LOG_FORMAT).
let log = getLogger().child({ component: 'fanout' });

async function main(opts: Options): Promise<void> {
  log = setupLogging(opts.logging).child({ component: 'fanout' });
  // Before the manager starts: it traces through the provider the SDK registers.
  const stopTracing = await startTracing();
  const transport = createTransport(opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {});
  const mgr = new Manager({
    transport,
    metricsBindAddress: opts.metricsBindAddress,
    healthProbeBindAddress: opts.healthProbeBindAddress,
    ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
    ...(opts.sharding
      ? {
          sharding: {
            ringName: 'fanout',
            mode: opts.shardingMode,
            ...(opts.identity !== undefined ? { identity: opts.identity } : {}),
            ...((opts.shardingNamespace ?? opts.namespace) !== undefined ? { leaseNamespace: (opts.shardingNamespace ?? opts.namespace)! } : {}),
            ...(opts.shardLeaseDurationMs !== undefined ? { leaseDurationMs: opts.shardLeaseDurationMs } : {}),
            ...(opts.shardRenewDeadlineMs !== undefined ? { renewDeadlineMs: opts.shardRenewDeadlineMs } : {}),
            ...(opts.shardRetryPeriodMs !== undefined ? { retryPeriodMs: opts.shardRetryPeriodMs } : {}),
          },
        }
      : {}),
    logger: log,
  });
  FanoutReconciler.indexTasks(mgr);
  const reconciler = new FanoutReconciler(mgr, log);
  controllerFor(mgr, batchResource)
    .named('fanout')
    .owns(taskResource)
    .withOptions({ maxConcurrentReconciles: opts.workers })
    .complete((req) => reconciler.reconcile(req));
  mgr.addHealthzCheck('ping', ping);
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
