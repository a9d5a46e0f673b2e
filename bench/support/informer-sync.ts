/**
 * One informer sync in a process of its own, for `bench:informer`: `node --expose-gc informer-sync.js <kubeconfig>
 * <namespace> <objects> <watch-list|list-watch> [typed|dynamic] [strip]`. Syncs a SharedIndexInformer of Foos in the
 * namespace with the mode forced, through the typed `ResourceClient` or the dynamic client (with `strip`: the
 * `stripManagedFields()` transform), checks it holds `objects` Foos, and prints one JSON line: sync seconds, heap growth and heap used after GC
 * (MB), RSS after sync and its high-water mark (MB), and the LIST and WatchList requests it made. Used by
 * `bench:informer` and `bench:scale`.
 */
import { performance } from 'node:perf_hooks';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadClientConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { DynamicClient } from '@kubegen/runtime/internal/dynamic/dynamic-client.js';
import type { KubeObject, ResourceInfo, ResourceRequest, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { stripManagedFields } from '@kubegen/runtime/internal/cache/transform.js';
import { procMemory } from './proc-memory.js';

/** What the child prints. */
export interface SyncResult {
  seconds: number;
  /** Heap growth from before the informer was made to after the sync, both after a full GC. */
  heapMB: number;
  /** `heapUsed` after the sync and a full GC (the whole heap, the informer still alive). */
  heapUsedMB: number;
  rssMB: number;
  peakRssMB: number;
  lists: number;
  watchLists: number;
  /** Errors the informer recovered from during the sync. */
  errors: string[];
}

import { FOO } from '../../test/integration/support/crds.js';

export { FOO };

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  g?.();
  g?.();
}

async function main(): Promise<void> {
  const [kubeconfig, ns, objects, mode, kind = 'typed', strip] = process.argv.slice(2);
  if (!kubeconfig || !ns || !objects || (mode !== 'watch-list' && mode !== 'list-watch') || (kind !== 'typed' && kind !== 'dynamic') || (strip !== undefined && strip !== 'strip')) {
    throw new Error('usage: informer-sync.js <kubeconfig> <namespace> <objects> <watch-list|list-watch> [typed|dynamic] [strip]');
  }
  // As a kubegen controller connects (the sample-controller's main.ts): a RestConfig.
  const inner = new HttpTransport(loadClientConfig({ kubeconfig }));
  const counts = { lists: 0, watchLists: 0 };
  const counting: Transport = {
    request: <T>(req: ResourceRequest): Promise<T> => (req.verb === 'list' && counts.lists++, inner.request<T>(req)),
    watch: <T>(req: ResourceRequest): Promise<Watch<T>> => (req.query?.['sendInitialEvents'] && counts.watchLists++, inner.watch<T>(req)),
    raw: (method, path, init) => inner.raw(method, path, init),
  };
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  // typed: the generated clients' ResourceClient; dynamic: the dynamic client (Unstructured, list items' kinds stamped).
  const lw = kind === 'dynamic'
    ? new DynamicClient(counting).resource({ group: FOO.group, version: FOO.version, resource: FOO.resource }).namespace(ns)
    : new ResourceClient<KubeObject>(counting, FOO, ns);
  const informer = new SharedIndexInformer<KubeObject>(lw, {
    name: `bench-${mode}`,
    logger: nullLogger,
    watchList: mode === 'watch-list',
    ...(strip ? { transform: stripManagedFields<KubeObject>() } : {}),
  });
  const errors: string[] = [];
  informer.setWatchErrorHandler((err, phase) => void errors.push(`${phase}: ${err instanceof Error ? err.message : String(err)}`));
  const t0 = performance.now();
  void informer.run();
  await informer.whenSynced();
  const seconds = (performance.now() - t0) / 1000;
  const size = informer.getIndexer().size;
  if (size !== Number(objects)) throw new Error(`synced ${size} objects, expected ${objects}`);
  gc();
  const mem = process.memoryUsage();
  const self = procMemory('self');
  const result: SyncResult = {
    seconds,
    heapMB: (mem.heapUsed - heapBefore) / 1024 / 1024,
    heapUsedMB: mem.heapUsed / 1024 / 1024,
    rssMB: mem.rss / 1024 / 1024,
    peakRssMB: self?.hwmMB ?? NaN,
    ...counts,
    errors,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await informer.stop();
  inner.close();
}

await main();
