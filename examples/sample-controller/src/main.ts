/**
 * Entry point of the sample controller (k8s.io/sample-controller `main.go`, plus the flags controller-runtime
 * managers take): builds the clients, informers (30 s resync), event recorder and controller, optionally campaigns
 * for a Lease, serves metrics and health probes when asked, and runs until SIGTERM/SIGINT. On a signal it stops
 * taking work, lets in-flight syncs finish, flushes events, releases the Lease and exits 0. A second signal exits 1
 * at once. API errors never end the process; losing the Lease does (exit 1), as in client-go controllers.
 *
 * With `--sharding` the process is one shard of the ring `sample-controller` (see docs/sharding.md): it holds its
 * shard Lease, runs the sharder while it leads `sample-controller-sharder`, its Foo and Deployment informers select
 * its shard label, and workers start once the shard Lease is held. Losing the shard Lease ends the process (exit 1);
 * on a signal the workers stop first, then the shard Lease is released so the sharder moves its Foos at once.
 */
import {
  defaultNamespace,
  EventBroadcaster,
  getLogger,
  HealthProbeServer,
  HttpTransport,
  KubeClientset,
  KubeInformers,
  LeaderElector,
  loadClientConfig,
  MetricsServer,
  ping,
  Shard,
  SharedInformerFactory,
  builtinResources,
  setupLogging,
  stripManagedFields,
  WebhookServer,
  withAuthenticationAndAuthorization,
  whenAborted,
} from '@kubegen/runtime';
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

async function main(opts: Options): Promise<number> {
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

  const stop = new AbortController();
  let exitCode = 0;
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
          exitCode = 1;
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

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stop.signal.aborted) {
      log.error('second signal received, exiting now', { signal });
      process.exit(1);
    }
    log.info('shutdown signal received', { signal });
    stop.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

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
          log.error('leader election lost');
          exitCode = 1;
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
    if (exitCode === 1) log.error('shard lease lost');
    shardStop.abort();
    await shardRun;
  } else {
    await controller.run(opts.workers, stop.signal);
  }

  await withTimeout(broadcaster.flush(), 5_000);
  await broadcaster.shutdown();
  await factory.shutdown();
  await Promise.allSettled([metrics.close(), probes.close(), webhooks?.close()]);
  transport.close();
  log.info('exiting', { code: exitCode });
  return exitCode;
}

function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void p.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// A throwing callback somewhere must not take the controller down: log it and carry on.
process.on('unhandledRejection', (reason) => log.error('unhandled rejection', { error: reason }));
process.on('uncaughtException', (err) => log.error('uncaught exception', { error: err, stack: err.stack }));

let opts: Options;
try {
  opts = parseOptions(process.argv.slice(2));
  log = setupLogging(opts.logging).child({ component: CONTROLLER_AGENT_NAME });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
main(opts).then(
  (code) => process.exit(code),
  (err: unknown) => {
    log.error('sample-controller failed', { error: err });
    process.exit(1);
  },
);
