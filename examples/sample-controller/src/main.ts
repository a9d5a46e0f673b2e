/**
 * Entry point of the sample controller (k8s.io/sample-controller `main.go`, plus the flags controller-runtime
 * managers take): builds the clients, informers (30 s resync), event recorder and controller, optionally campaigns
 * for a Lease, serves metrics and health probes when asked, and runs until SIGTERM/SIGINT. On a signal it stops
 * taking work, lets in-flight syncs finish, flushes events, releases the Lease and exits 0. A second signal exits 1
 * at once. API errors never end the process; losing the Lease does (exit 1, through `runMain`), as in client-go
 * controllers. A throwing callback is a bug and ends the process, as a panic ends a Go one.
 *
 * Traces (OpenTelemetry) are exported when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (`startTracing` of
 * `@kubegen/runtime/tracing/sdk`, docs/tracing.md).
 *
 * With `--sharding` the process is one shard of the ring `sample-controller` (see docs/sharding.md): it holds its
 * shard Lease, runs the sharder while it leads `sample-controller-sharder`, its Foo and Deployment informers select
 * its shard label, and workers start once the shard Lease is held. Losing the shard Lease ends the process (exit 1);
 * on a signal the workers stop first, then the shard Lease is released so the sharder moves its Foos at once.
 */
import {
  EventBroadcaster, getLogger, HttpTransport, KubeClientset, KubeInformers, runMain, builtinResources, setupLogging,
} from '@kubegen/runtime';
import { SharedInformerFactory, stripManagedFields } from '@kubegen/runtime/cache';
import { defaultNamespace, loadClientConfig } from '@kubegen/runtime/client';
import { whenAborted } from '@kubegen/runtime/clock';
import { LeaderElector } from '@kubegen/runtime/leaderelection';
import { installSignalHandler, LeaderElectionLostError, ShardLostError } from '@kubegen/runtime/manager';
import { HealthProbeServer, MetricsServer, ping, withAuthenticationAndAuthorization } from '@kubegen/runtime/metrics';
import { Shard } from '@kubegen/runtime/sharding';
import { startTracing } from '@kubegen/runtime/tracing/sdk';
import { WebhookServer } from '@kubegen/runtime/webhook';
import { Clientset } from './generated/clientset.js';
import { fooResource } from './generated/samplecontroller.k8s.io/v1alpha1/register.js';
import { InformerFactory } from './generated/informers.js';
import { Controller, CONTROLLER_AGENT_NAME } from './controller.js';
import { parseOptions, type Options } from './options.js';
import { setupWebhooks } from './webhooks.js';

const RESYNC_PERIOD_MS = 30_000;
/** The ring (sharded controller) name of `--sharding`: labels `shard.kubegen.io/sample-controller`. */
export const SHARDING_RING = 'sample-controller';
// Replaced once the flags are read (--log-level, --log-format); until then the default (KUBEGEN_LOG_LEVEL/FORMAT).
let log = getLogger().child({ component: CONTROLLER_AGENT_NAME });

async function main(opts: Options): Promise<void> {
  // OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/tracing.md); nothing loaded otherwise. It also turns
  // the runtime's tracing on: this controller has no Manager to do it.
  const stopTracing = await startTracing();
  // A plain RestConfig for every kubeconfig user (token, certificate, basic auth, exec plugin) and in-cluster.
  const clientConfig = loadClientConfig({ kubeconfig: opts.kubeconfig, context: opts.context });
  const transport = new HttpTransport(clientConfig);
  const kubeClientset = new KubeClientset(transport);
  const sampleClientset = new Clientset(transport);
  const factory = new SharedInformerFactory(transport, {
    resyncPeriodMs: RESYNC_PERIOD_MS,
    // The controller never reads field ownership: a third of each cached Foo and Deployment less.
    transform: stripManagedFields(),
    logger: log,
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
  });
  const kubeInformers = new KubeInformers(factory);
  const sampleInformers = new InformerFactory(factory);
  const broadcaster = new EventBroadcaster({ transport, logger: log });

  // Stops on the first SIGTERM/SIGINT (a second exits 1 at once), or when a Lease this process needs is lost.
  const signals = installSignalHandler();
  const stop = new AbortController();
  signals.signal.addEventListener('abort', () => {
    log.info('shutdown signal received');
    stop.abort();
  }, { once: true });
  let lost: Error | undefined;
  // --sharding: this replica's shard; its informers see only the Foos and Deployments assigned to it.
  const shard = opts.sharding
    ? new Shard({
        transport,
        ringName: SHARDING_RING,
        ...(opts.identity !== undefined ? { identity: opts.identity } : {}),
        namespace: opts.shardingNamespace ?? opts.leaderElectionNamespace ?? defaultNamespace(clientConfig),
        resource: fooResource,
        controlled: [builtinResources.deployments],
        ...(opts.namespace ? { watchNamespace: opts.namespace } : {}),
        ...(opts.shardLeaseDurationMs !== undefined ? { leaseDurationMs: opts.shardLeaseDurationMs } : {}),
        ...(opts.shardRenewDeadlineMs !== undefined ? { renewDeadlineMs: opts.shardRenewDeadlineMs } : {}),
        ...(opts.shardRetryPeriodMs !== undefined ? { retryPeriodMs: opts.shardRetryPeriodMs } : {}),
        logger: log,
        onLost: () => {
          if (stop.signal.aborted) return;
          lost = new ShardLostError();
          stop.abort();
        },
      })
    : undefined;
  const deploymentInformer = kubeInformers.appsV1.deployments(shard ? shard.selector.apply({}) : {});
  const fooInformer = sampleInformers.samplecontrollerV1alpha1.foos(shard ? shard.selector.apply({}) : {});
  if (shard) {
    shard.observeCache(fooInformer.informer);
    shard.observeCache(deploymentInformer.informer, 'deployments');
    log.info('sharding', { ring: shard.ringName, identity: shard.identity, lease: shard.leaseName, selector: shard.selector.labelSelector });
  }
  const controller = new Controller({
    kubeClientset,
    sampleClientset,
    deploymentInformer,
    fooInformer,
    recorder: broadcaster.newRecorder(CONTROLLER_AGENT_NAME),
    logger: log,
    ...(shard ? { shard } : {}),
  });

  // --metrics-secure: HTTPS, and only for scrapers the apiserver authenticates and authorizes (get on /metrics).
  const metrics = new MetricsServer({
    bindAddress: opts.metricsBindAddress,
    logger: log,
    ...(opts.metricsSecure ? {
      secureServing: true,
      ...(opts.metricsCertDir !== undefined ? { certDir: opts.metricsCertDir } : {}),
      filter: withAuthenticationAndAuthorization(transport, { logger: log }),
    } : {}),
  });
  const probes = new HealthProbeServer({ bindAddress: opts.healthProbeBindAddress, logger: log });
  probes.addHealthzCheck('ping', ping);
  probes.addReadyzCheck('informers', () => deploymentInformer.informer.hasSynced() && fooInformer.informer.hasSynced());
  await metrics.listen();
  await probes.listen();
  // Webhooks only when asked for (--webhook-port): they need a certificate, and the Go original has none.
  let webhooks: WebhookServer | undefined;
  if (opts.webhookPort > 0) {
    webhooks = new WebhookServer({ port: opts.webhookPort, logger: log, ...(opts.webhookCertDir ? { certDir: opts.webhookCertDir } : {}) });
    setupWebhooks(webhooks);
    await webhooks.listen();
    probes.addReadyzCheck('webhook', webhooks.startedChecker());
  }

  factory.start();
  if (opts.leaderElect) {
    const namespace = opts.leaderElectionNamespace ?? defaultNamespace(clientConfig);
    const elector = new LeaderElector({
      transport,
      namespace,
      name: opts.leaderElectionId,
      releaseOnCancel: true,
      logger: log,
      onStartedLeading: (leading) => controller.run(opts.workers, leading),
      onNewLeader: (identity) => log.info('new leader elected', { identity }),
      onStoppedLeading: () => {
        if (!stop.signal.aborted) {
          lost = new LeaderElectionLostError();
          stop.abort();
        }
      },
    });
    await elector.run(stop.signal);
  } else if (shard) {
    // The shard Lease outlives the workers: it is released only after every in-flight sync finished.
    const shardStop = new AbortController();
    const shardRun = shard.run(shardStop.signal);
    const held = await Promise.race([shard.whenHeld().then(() => true), whenAborted(stop.signal).then(() => false)]);
    if (held) await controller.run(opts.workers, stop.signal);
    shardStop.abort();
    await shardRun;
  } else {
    await controller.run(opts.workers, stop.signal);
  }

  // Pending events get 5 s to reach the apiserver (the unref'd timer keeps nothing alive); then everything closes.
  await Promise.race([broadcaster.flush(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  await broadcaster.shutdown();
  await factory.shutdown();
  await Promise.allSettled([metrics.close(), probes.close(), webhooks?.close()]);
  transport.close();
  signals.dispose();
  await stopTracing();
  // A lost Lease ends the process with 1 (runMain logs it), as in client-go controllers.
  if (lost) throw lost;
  log.info('exiting', { code: 0 });
}

let opts: Options;
try {
  opts = parseOptions(process.argv.slice(2));
  log = setupLogging(opts.logging).child({ component: CONTROLLER_AGENT_NAME });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
await runMain(() => main(opts), { logger: () => log });
