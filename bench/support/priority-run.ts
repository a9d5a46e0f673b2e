/**
 * One controller run of `bench:priority`, in a process of its own: `node priority-run.js <kubeconfig> <namespace>
 * <priority|fifo> <new-foos> <reconcile-ms> <workers>`. A Controller (the runtime's, as the builder makes it) watches
 * the Foos of `namespace` through a SharedIndexInformer with `enqueueForObject`, on the priority queue or the FIFO
 * queue. "Start" is the first reconcile (workers run once the informer has synced: the list time is the same for
 * both queues and not what the queue changes). From 1 s after start it creates `new-foos` Foos, one every 100 ms,
 * and notes when each create was sent; the run ends once every new Foo has been reconciled. It then deletes them and
 * prints one JSON line (see {@link PriorityRunResult}).
 *
 * The reconciler reads the Foo from the informer's cache and then waits `reconcile-ms` on a timer, standing in for
 * the API round trip a real reconcile makes (a GET or a status update): a realistic few ms without loading the
 * shared apiserver with 50,000 extra requests per run, so the backlog drains at the same rate in both runs.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadClientConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { Controller } from '@kubegen/runtime/internal/controller/controller.js';
import { enqueueForObject } from '@kubegen/runtime/internal/handler/handler.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { requestKey, type Request } from '@kubegen/runtime/internal/reconcile/index.js';
import { FOO } from '../../test/integration/support/crds.js';

/** What the child prints. */
export interface PriorityRunResult {
  mode: 'priority' | 'fifo';
  /** From the start of the process to the informer's sync. */
  syncSeconds: number;
  /** Objects in the initial list. */
  listed: number;
  /** For each new Foo: seconds from sending its create to the start of its first reconcile. */
  latencies: number[];
  /** Reconciles of initial-list Foos done when the last new Foo was reconciled. */
  backlogDone: number;
  /** Seconds from start to the last new Foo's reconcile. */
  seconds: number;
}

const START_DELAY_MS = 1000;
const CREATE_EVERY_MS = 100;

async function main(): Promise<void> {
  const [kubeconfig, ns, mode, newArg, reconcileArg, workersArg] = process.argv.slice(2);
  if (!kubeconfig || !ns || (mode !== 'priority' && mode !== 'fifo') || !newArg || !reconcileArg || !workersArg) {
    throw new Error('usage: priority-run.js <kubeconfig> <namespace> <priority|fifo> <new-foos> <reconcile-ms> <workers>');
  }
  const newFoos = Number(newArg);
  const reconcileMs = Number(reconcileArg);
  const t0 = performance.now();
  const transport = new HttpTransport(loadClientConfig({ kubeconfig }));
  const foos = new ResourceClient<KubeObject>(transport, FOO, ns);
  const informer = new SharedIndexInformer<KubeObject>(foos, { name: 'bench-priority', logger: nullLogger });

  const createdAt = new Map<string, number>();
  const reconciledAt = new Map<string, number>();
  let backlogDone = 0;
  let started: number | undefined;
  let startedResolve!: () => void;
  const startedOnce = new Promise<void>((r) => (startedResolve = r));
  let allDone!: () => void;
  const newDone = new Promise<void>((r) => (allDone = r));

  const reconcile = async (req: Request): Promise<void> => {
    const now = performance.now();
    if (started === undefined) {
      started = now;
      startedResolve();
    }
    const key = requestKey(req);
    informer.getIndexer().getByKey(key);
    if (createdAt.has(key)) {
      if (!reconciledAt.has(key)) reconciledAt.set(key, now);
      if (reconciledAt.size === newFoos) allDone();
    } else {
      backlogDone++;
    }
    await sleep(reconcileMs);
  };

  const controller = new Controller({
    name: `bench-${mode}`,
    reconciler: reconcile,
    usePriorityQueue: mode === 'priority',
    maxConcurrentReconciles: Number(workersArg),
    logger: nullLogger,
    registry: new Registry(),
  });
  controller.watch(informer, enqueueForObject());
  const stop = new AbortController();
  void informer.run();
  const run = controller.start(stop.signal);
  await informer.whenSynced();
  const syncSeconds = (performance.now() - t0) / 1000;
  const listed = informer.getIndexer().size;

  await startedOnce;
  await sleep(Math.max(0, started! + START_DELAY_MS - performance.now()));
  const names = Array.from({ length: newFoos }, (_, i) => `new-${mode}-${i}`);
  for (const name of names) {
    createdAt.set(`${ns}/${name}`, performance.now());
    void foos.create({ metadata: { name }, spec: { deploymentName: name, replicas: 1 } } as KubeObject);
    await sleep(CREATE_EVERY_MS);
  }
  await newDone;
  const last = Math.max(...reconciledAt.values());
  const result: PriorityRunResult = {
    mode,
    syncSeconds,
    listed,
    latencies: [...createdAt].map(([key, sent]) => (reconciledAt.get(key)! - sent) / 1000),
    backlogDone,
    seconds: (last - started!) / 1000,
  };
  stop.abort();
  await run;
  await informer.stop();
  await Promise.all(names.map((name) => foos.delete(name)));
  transport.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
