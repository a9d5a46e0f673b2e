/**
 * Entry point of the TTL janitor (kube-janitor's job, on @kubegen/runtime): for every resource the cluster serves
 * with `list`, `watch` and `delete` — built-in or custom, narrowed by the flags — it deletes the objects whose
 * `janitor.kubegen.io/ttl` annotation has run out since their creation. One metadata-only controller per resource,
 * added and removed as CRDs come and go (janitor.ts), over one manager: shared cache (metadata only, slimmed:
 * cache.ts), `/metrics`, `/healthz` + `/readyz` (ready once discovery answered and every controller's informer has
 * synced), optional leader election.
 *
 * Traces (OpenTelemetry, docs/tracing.md) are exported when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (`startTracing` of `@kubegen/runtime/tracing/sdk`).
 *
 * Runs until SIGTERM or SIGINT, then lets in-flight reconciles finish and exits 0 (a second signal exits 1 at once).
 * Bad flags exit 2 with the usage; a manager that cannot start (the kubeconfig, a port) exits 1 with one log line.
 */
import { Manager, createTransport, getLogger, runMain, setupLogging } from '@kubegen/runtime';
import { realClock } from '@kubegen/runtime/clock';
import { ping } from '@kubegen/runtime/metrics';
import { startTracing } from '@kubegen/runtime/tracing/sdk';
import { selfSubjectAccessReviews } from './access.js';
import { slimMetadata } from './cache.js';
import { Janitor } from './janitor.js';
import { janitorMetrics } from './metrics.js';
import { parseOptions, type Options } from './options.js';

// Until the flags are read: the default logger (KUBEGEN_LOG_LEVEL, KUBEGEN_LOG_FORMAT).
let log = getLogger().child({ component: 'ttl-janitor' });

async function main(opts: Options): Promise<void> {
  log = setupLogging(opts.logging).child({ component: 'ttl-janitor' });
  // OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/tracing.md), before the manager: it traces through
  // the provider the SDK registers. Nothing is loaded otherwise.
  const stopTracing = await startTracing();
  const transport = createTransport({
    ...(opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context !== undefined ? { context: opts.context } : {}),
  });
  const mgr = new Manager({
    transport,
    metricsBindAddress: opts.metricsBindAddress,
    healthProbeBindAddress: opts.healthProbeBindAddress,
    leaderElection: opts.leaderElect,
    leaderElectionId: opts.leaderElectionId,
    ...(opts.leaderElectionNamespace !== undefined ? { leaderElectionNamespace: opts.leaderElectionNamespace } : {}),
    leaderElectionReleaseOnCancel: true,
    // Every informer of the janitor is metadata-only; each object is kept as a few fields (cache.ts).
    cache: { defaultTransform: slimMetadata, ...(opts.namespaces.length > 0 ? { defaultNamespaces: opts.namespaces } : {}) },
    logger: log,
  });
  const janitor = new Janitor({
    manager: mgr,
    filter: opts.filter,
    dryRun: opts.dryRun,
    namespaces: opts.namespaces,
    excludedNamespaces: opts.excludedNamespaces,
    workers: opts.workers,
    discoveryIntervalMs: opts.discoveryIntervalMs,
    access: selfSubjectAccessReviews(transport),
    metrics: janitorMetrics(mgr.registry),
    logger: log,
    clock: realClock,
  });
  mgr.add(janitor);
  mgr.addHealthzCheck('ping', ping);
  mgr.addReadyzCheck('discovery', () => janitor.discovered);
  log.info('starting', { dryRun: opts.dryRun, namespaces: opts.namespaces.length > 0 ? opts.namespaces : 'all', excludedNamespaces: opts.excludedNamespaces });
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
