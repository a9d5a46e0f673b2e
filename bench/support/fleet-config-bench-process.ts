/**
 * The process `npm run bench:multicluster` measures: the fleet-config example's controller (examples/fleet-config,
 * `addFleetConfigController`, wired as its main.ts does) on a `MultiClusterManager` over the hub in
 * `MC_BENCH_HUB_KUBECONFIG`, its members the kubeconfig Secrets of `MC_BENCH_NAMESPACE`. The member kind is the
 * benchmark's `MemberConfigMap` (a custom kind of ConfigMap's shape) because the members run the CRD-only control
 * plane, which serves no ConfigMaps.
 *
 * Reads commands on stdin, one per line, and answers each with one JSON line on stdout:
 * - `measure`: after two full GCs — `rss` and `heapUsed` (bytes), `cpuMicros` (user + system since start, read before the GCs) and `cpuAfterGcMicros` (after them), `at`
 *   (ms, `performance.now()`), `clusters` (engaged, sorted) and `synced` (those whose lane has synced).
 * Logs go nowhere (the benchmark reads the figures, not the logs).
 */
import readline from 'node:readline';
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { Registry } from 'prom-client';
import { createTransport } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { MultiClusterManager } from '@kubegen/runtime/internal/multicluster/manager.js';
import { KubeconfigSecretProvider } from '@kubegen/runtime/internal/multicluster/providers/kubeconfig-secrets.js';
import { addFleetConfigController, memberClusterOptions } from '../../examples/fleet-config/src/controller.js';
import { MEMBER_CONFIG_MAP } from './fleet-config-bench-kinds.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const hub = createTransport({ kubeconfig: process.env['MC_BENCH_HUB_KUBECONFIG']! });
const namespace = process.env['MC_BENCH_NAMESPACE']!;
const mgr = new MultiClusterManager({
  transport: hub,
  metricsBindAddress: '0',
  healthProbeBindAddress: '0',
  registry: new Registry(),
  logger: nullLogger,
  provider: new KubeconfigSecretProvider({ transport: hub, namespace, logger: nullLogger, ...memberClusterOptions(MEMBER_CONFIG_MAP) }),
});
addFleetConfigController(mgr, { memberKind: MEMBER_CONFIG_MAP, workers: 4 });
const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
const running = mgr.start(stop.signal);

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.trim() !== 'measure') return;
  const cpu = process.cpuUsage(); // before the GCs, which are the benchmark's work, not the controller's
  gc();
  gc();
  const mem = process.memoryUsage();
  const afterGc = process.cpuUsage();
  const status = mgr.clusterStatus();
  process.stdout.write(`${JSON.stringify({
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    cpuMicros: cpu.user + cpu.system,
    cpuAfterGcMicros: afterGc.user + afterGc.system,
    at: performance.now(),
    clusters: status.map((s) => s.cluster),
    synced: status.filter((s) => s.controllers.every((c) => c.status.synced)).map((s) => s.cluster),
  })}\n`);
});
rl.on('close', () => stop.abort());
await running;
process.exit(0);
