/**
 * The faults of a load run, scheduled over its churn window: apiserver SIGKILL + restart (etcd compacted while it is
 * down, so watches resume into 410 Gone), silent watches, dropped connections. Latency is set on the proxy for the
 * whole run. Each fault fires first one period into the window, then every period until the window ends.
 */
import type { Envtest } from '../envtest/envtest.js';
import type { FaultProxy } from './fault-proxy.js';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';

/** Which faults to inject and how often (seconds); all off by default. */
export interface FaultOptions {
  /** SIGKILL the apiserver and start it again every N seconds (envtest only). */
  restartApiserverEverySeconds?: number;
  /** Compact etcd while the apiserver is down (default true). */
  compactOnRestart?: boolean;
  /** Make every watch stream silent every N seconds ... */
  freezeWatchesEverySeconds?: number;
  /** ... for this long, then reset those connections (default 15 s). */
  freezeForSeconds?: number;
  /** Reset every client connection every N seconds. */
  dropConnectionsEverySeconds?: number;
  /** Delay added to every request, in ms. */
  latencyMs?: number;
}


/** Runs the periodic faults until `end` (epoch ms); resolves when the last one has finished. */
export async function scheduleFaults(
  faults: FaultOptions,
  ctx: { env: Envtest | undefined; proxy: FaultProxy; end: number; onEvent: (event: string) => void },
): Promise<void> {
  const every = async (seconds: number | undefined, fire: () => Promise<void> | void): Promise<void> => {
    if (!seconds || seconds <= 0) return;
    for (let next = Date.now() + seconds * 1000; next < ctx.end; next += seconds * 1000) {
      await sleep(realClock, next - Date.now());
      await fire();
    }
  };
  await Promise.all([
    every(faults.restartApiserverEverySeconds, async () => {
      const env = ctx.env!;
      const started = Date.now();
      await env.stopApiServer({ kill: true });
      let compacted = '';
      if (faults.compactOnRestart ?? true) compacted = `, etcd compacted at revision ${await env.compactEtcd()}`;
      await env.startApiServer();
      ctx.onEvent(`apiserver killed and restarted in ${((Date.now() - started) / 1000).toFixed(1)} s${compacted}`);
    }),
    every(faults.freezeWatchesEverySeconds, () => {
      const seconds = faults.freezeForSeconds ?? 15;
      ctx.proxy.freezeWatches(seconds * 1000);
      ctx.onEvent(`watch streams silent for ${seconds} s`);
    }),
    every(faults.dropConnectionsEverySeconds, () => {
      const n = ctx.proxy.dropConnections();
      ctx.onEvent(`dropped ${n} connection${n === 1 ? '' : 's'}`);
    }),
  ]);
}
