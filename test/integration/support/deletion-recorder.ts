/**
 * What a garbage collector did during one deletion scenario (support/deletion-scenarios.ts), as seen through
 * metadata-only watches of the scenario's owner and dependent kinds in its namespace, reduced to plain data that
 * does not depend on timing, uids or names' random suffixes, so that two control planes' records compare with
 * `deepEqual`:
 *
 * - `deletedBeforeOwner`: the dependents that were gone before the owner was (foreground: all of them; background
 *   and orphan: none);
 * - `ownerFinalizers`: the owner's finalizers, each distinct list in the order seen (e.g. `[], [foregroundDeletion]`:
 *   removing the last finalizer deletes it, seen as a deletion, not as an update);
 * - `ownerReferences`: per object, the owners (by role) its references named, each distinct list in the order seen;
 * - `markedForDeletion`: the objects that carried a deletionTimestamp at some point.
 */
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { CHILD, PARENT, type DeletionTarget } from './deletion-scenarios.js';

/** See the module comment. */
export interface DeletionRecord {
  deletedBeforeOwner: string[];
  ownerFinalizers: string[][];
  ownerReferences: Record<string, string[][]>;
  markedForDeletion: string[];
}

/** Runs `run` (a scenario named `scenario` on `target`) while recording (see the module comment). */
export async function recordDeletion<T>(target: DeletionTarget, scenario: string, run: () => Promise<T>): Promise<{ outcome: T; record: DeletionRecord }> {
  const factory = new SharedInformerFactory(target.transport, { logger: nullLogger });
  const roleOf = (name: string | undefined): string | undefined => new RegExp(`^${scenario}-(.+)-[0-9a-f]{6}$`).exec(name ?? '')?.[1];
  const uidRoles = new Map<string, string>();
  const deleted: string[] = [];
  const finalizers: string[][] = [];
  const refs: Record<string, string[][]> = {};
  const marked = new Set<string>();
  const pushDistinct = (list: string[][], value: string[]): void => {
    if (JSON.stringify(list.at(-1)) !== JSON.stringify(value)) list.push(value);
  };
  const observe = (info: ResourceInfo, obj: KubeObject, gone: boolean): void => {
    const role = roleOf(obj.metadata?.name);
    if (!role) return;
    uidRoles.set(obj.metadata!.uid!, role);
    if (gone) {
      if (!deleted.includes(role)) deleted.push(role);
      return;
    }
    if (obj.metadata?.deletionTimestamp) marked.add(role);
    if (info === ownerInfo && role === 'owner') pushDistinct(finalizers, [...(obj.metadata?.finalizers ?? [])].sort());
    pushDistinct((refs[role] ??= []), (obj.metadata?.ownerReferences ?? []).map((r) => uidRoles.get(r.uid) ?? roleOf(r.name) ?? r.name).sort());
  };
  const ownerInfo = target.owner ?? PARENT;
  const infos = [ownerInfo, target.dependent ?? CHILD];
  for (const info of infos) {
    factory.metadataInformerFor(info, { namespace: target.namespace }).addEventHandler({
      onAdd: (o) => observe(info, o, false),
      onUpdate: (_old, o) => observe(info, o, false),
      onDelete: (o) => observe(info, o instanceof DeletedFinalStateUnknown ? o.obj : o, true),
    });
  }
  factory.start();
  try {
    await factory.waitForCacheSync({ timeoutMs: 30_000 });
    const outcome = await run();
    // The watches trail the API by a moment: wait until they have seen the owner go.
    const deadline = performance.now() + 10_000;
    while (!deleted.includes('owner') && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const ownerAt = deleted.indexOf('owner');
    return {
      outcome,
      record: {
        deletedBeforeOwner: deleted.slice(0, Math.max(0, ownerAt)).sort(),
        ownerFinalizers: finalizers,
        ownerReferences: Object.fromEntries(Object.entries(refs).sort(([a], [b]) => a.localeCompare(b))),
        markedForDeletion: [...marked].sort(),
      },
    };
  } finally {
    await factory.shutdown();
  }
}
