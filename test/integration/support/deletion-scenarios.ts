/**
 * Cascading deletion scenarios, written once for any garbage collector: each takes a {@link DeletionTarget} (a
 * control plane's transport, a namespace, an owner kind and a dependent kind), plays one deletion mode through the
 * API, asserts what Kubernetes' garbage collector does, and returns what it saw as plain data (no uids, no times), so a
 * differential test can run the same scenario on two control planes and compare the outcomes with `deepEqual`.
 *
 * - background: the owner goes at once; its dependents follow; an unowned object stays.
 * - foreground: the owner stays (finalizer `foregroundDeletion`) until every dependent with `blockOwnerDeletion` is
 *   gone; one without it does not hold the owner; a blocking dependent held by a finalizer of its own holds the owner
 *   until that finalizer is removed.
 * - orphan: the owner goes (after finalizer `orphan`), its dependents stay with its owner reference removed and other
 *   owners' references kept.
 *
 * The kinds must be namespaced and accept an object with an empty `spec` (or give `body`); `fixtures/gc/crds.yaml`
 * has a Parent and a Child for this. Waits allow for the collector's discovery resync (kube-controller-manager finds
 * kinds added after it started within 30 s).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { isConflict, isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, OwnerReference, ResourceInfo, Transport } from '@kubegen/runtime/internal/client/types.js';
import { sleep } from '../../support/wait.js';

/** The CRDs of the scenarios' default kinds (`fixtures/gc/crds.yaml`). */
export { GC_CRDS } from './crds.js';

/** fixtures/gc Parent (namespaced). */
export const PARENT: ResourceInfo = { group: 'gc.kubegen.dev', version: 'v1', resource: 'parents', kind: 'Parent', listKind: 'ParentList', namespaced: true };
/** fixtures/gc Child (namespaced). */
export const CHILD: ResourceInfo = { group: 'gc.kubegen.dev', version: 'v1', resource: 'children', kind: 'Child', listKind: 'ChildList', namespaced: true };

/** Where and with which kinds a scenario runs. */
export interface DeletionTarget {
  transport: Transport;
  namespace: string;
  /** The owners' kind (default {@link PARENT}). */
  owner?: ResourceInfo;
  /** The dependents' kind (default {@link CHILD}). */
  dependent?: ResourceInfo;
  /** A new object of `info` named `name` (default: apiVersion, kind, name and an empty `spec`). */
  body?: (info: ResourceInfo, name: string) => KubeObject;
  /** Limit of each wait for the collector (default 90 s). */
  timeoutMs?: number;
}

/** What {@link backgroundDeletion} saw. */
export interface BackgroundOutcome {
  ownerGoneAtOnce: boolean;
  dependentsGone: string[];
  unownedKept: boolean;
}

/** What {@link foregroundDeletion} saw. */
export interface ForegroundOutcome {
  ownerFinalizersOnDelete: string[];
  nonBlockingDependentGone: boolean;
  blockingDependentFinalizers: string[];
  ownerHeldByBlockingDependent: boolean;
  ownerGoneAfterRelease: boolean;
}

/** What {@link orphanDeletion} saw. */
export interface OrphanOutcome {
  ownerFinalizersOnDelete: string[];
  ownerGone: boolean;
  dependentsKept: string[];
  /** Per dependent, the names of the owners its references still point to. */
  ownerReferencesLeft: Record<string, string[]>;
}

const HOLD = 'kubegen.dev/hold';

/** Clients, names and waits of one scenario run. */
function setup(t: DeletionTarget, scenario: string) {
  const ownerInfo = t.owner ?? PARENT;
  const depInfo = t.dependent ?? CHILD;
  const owners = new ResourceClient<KubeObject>(t.transport, ownerInfo, t.namespace);
  const deps = new ResourceClient<KubeObject>(t.transport, depInfo, t.namespace);
  const suffix = randomBytes(3).toString('hex');
  const name = (role: string): string => `${scenario}-${role}-${suffix}`;
  const body = (info: ResourceInfo, n: string): KubeObject =>
    t.body?.(info, n) ?? ({ apiVersion: info.group ? `${info.group}/${info.version}` : info.version, kind: info.kind, metadata: { name: n }, spec: {} } as KubeObject);
  const timeoutMs = t.timeoutMs ?? 90_000;
  const ref = (owner: KubeObject, blockOwnerDeletion: boolean): OwnerReference => ({
    apiVersion: owner.apiVersion ?? `${ownerInfo.group}/${ownerInfo.version}`,
    kind: ownerInfo.kind,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    controller: true,
    blockOwnerDeletion,
  });
  const createOwner = (role: string): Promise<KubeObject> => owners.create(body(ownerInfo, name(role)));
  const createDependent = (role: string, ownerReferences: OwnerReference[], finalizers?: string[]): Promise<KubeObject> => {
    const obj = body(depInfo, name(role));
    obj.metadata = { ...obj.metadata, ownerReferences, ...(finalizers ? { finalizers } : {}) };
    return deps.create(obj);
  };
  const get = async (client: ResourceClient<KubeObject>, n: string): Promise<KubeObject | undefined> => client.get(n).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (performance.now() > deadline) assert.fail(`${scenario}: timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(200);
    }
  };
  const gone = (client: ResourceClient<KubeObject>, n: string) => until(`${n} to be gone`, async () => ((await get(client, n)) === undefined ? true : undefined));
  /** DELETE with a propagation policy; resolves with the object the apiserver answered with (undefined for a Status). */
  const deleteWith = async (n: string, propagationPolicy: 'Background' | 'Foreground' | 'Orphan'): Promise<KubeObject | undefined> => {
    const answer = await t.transport.request<KubeObject>({ verb: 'delete', resource: ownerInfo, namespace: t.namespace, name: n, body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy } });
    return answer.kind === 'Status' ? undefined : answer;
  };
  return { owners, deps, name, createOwner, createDependent, get, until, gone, deleteWith, ref };
}

/** Background deletion (module comment). */
export async function backgroundDeletion(t: DeletionTarget): Promise<BackgroundOutcome> {
  const s = setup(t, 'background');
  const owner = await s.createOwner('owner');
  const a = await s.createDependent('a', [s.ref(owner, true)]);
  const b = await s.createDependent('b', [s.ref(owner, false)]);
  const unowned = await s.createDependent('unowned', []);
  await s.deleteWith(owner.metadata!.name!, 'Background');
  const ownerGoneAtOnce = (await s.get(s.owners, owner.metadata!.name!)) === undefined;
  await s.gone(s.deps, a.metadata!.name!);
  await s.gone(s.deps, b.metadata!.name!);
  const unownedKept = (await s.get(s.deps, unowned.metadata!.name!))?.metadata?.uid === unowned.metadata!.uid;
  await s.deps.delete(unowned.metadata!.name!);
  const outcome: BackgroundOutcome = { ownerGoneAtOnce, dependentsGone: ['a', 'b'], unownedKept };
  assert.deepEqual(outcome, { ownerGoneAtOnce: true, dependentsGone: ['a', 'b'], unownedKept: true }, 'background deletion');
  return outcome;
}

/** Foreground deletion with `blockOwnerDeletion` (module comment). */
export async function foregroundDeletion(t: DeletionTarget): Promise<ForegroundOutcome> {
  const s = setup(t, 'foreground');
  const owner = await s.createOwner('owner');
  const ownerName = owner.metadata!.name!;
  const blocking = await s.createDependent('blocking', [s.ref(owner, true)], [HOLD]);
  const free = await s.createDependent('free', [s.ref(owner, false)]);
  const answer = await s.deleteWith(ownerName, 'Foreground');
  const ownerFinalizersOnDelete = [...(answer?.metadata?.finalizers ?? [])].sort();
  await s.gone(s.deps, free.metadata!.name!);
  // The collector deletes the blocking dependent too; our finalizer keeps it, and it keeps the owner.
  const held = await s.until('the blocking dependent to be deleting', async () => {
    const d = await s.get(s.deps, blocking.metadata!.name!);
    return d?.metadata?.deletionTimestamp ? d : undefined;
  });
  await sleep(2_000); // time for a collector that would wrongly let the owner go
  const ownerNow = await s.get(s.owners, ownerName);
  const ownerHeldByBlockingDependent = ownerNow?.metadata?.deletionTimestamp !== undefined && (ownerNow.metadata.finalizers ?? []).includes('foregroundDeletion');
  await releaseFinalizer(s.deps, blocking.metadata!.name!, HOLD);
  await s.gone(s.deps, blocking.metadata!.name!);
  await s.gone(s.owners, ownerName);
  const outcome: ForegroundOutcome = {
    ownerFinalizersOnDelete,
    nonBlockingDependentGone: true,
    blockingDependentFinalizers: [...(held.metadata?.finalizers ?? [])].sort(),
    ownerHeldByBlockingDependent,
    ownerGoneAfterRelease: true,
  };
  assert.deepEqual(
    outcome,
    {
      ownerFinalizersOnDelete: ['foregroundDeletion'],
      nonBlockingDependentGone: true,
      // Deleted in the background: only a dependent that has dependents of its own is deleted in the foreground.
      blockingDependentFinalizers: [HOLD],
      ownerHeldByBlockingDependent: true,
      ownerGoneAfterRelease: true,
    },
    'foreground deletion',
  );
  return outcome;
}

/** Orphan deletion (module comment). */
export async function orphanDeletion(t: DeletionTarget): Promise<OrphanOutcome> {
  const s = setup(t, 'orphan');
  const owner = await s.createOwner('owner');
  const other = await s.createOwner('other');
  const a = await s.createDependent('a', [s.ref(owner, true)]);
  // Two owners: only the deleted one's reference goes (the other is not its controller).
  const b = await s.createDependent('b', [s.ref(owner, true), { ...s.ref(other, false), controller: false }]);
  const answer = await s.deleteWith(owner.metadata!.name!, 'Orphan');
  const ownerFinalizersOnDelete = [...(answer?.metadata?.finalizers ?? [])].sort();
  await s.gone(s.owners, owner.metadata!.name!);
  const left: Record<string, string[]> = {};
  const kept: string[] = [];
  for (const [role, dep] of [['a', a], ['b', b]] as const) {
    const now = await s.get(s.deps, dep.metadata!.name!);
    if (!now || now.metadata?.uid !== dep.metadata!.uid) continue;
    kept.push(role);
    left[role] = (now.metadata?.ownerReferences ?? []).map((r) => (r.uid === owner.metadata!.uid ? 'owner' : r.uid === other.metadata!.uid ? 'other' : r.name));
  }
  await Promise.all([s.deps.delete(a.metadata!.name!), s.deps.delete(b.metadata!.name!), s.owners.delete(other.metadata!.name!)].map((p) => p.catch(() => undefined)));
  const outcome: OrphanOutcome = { ownerFinalizersOnDelete, ownerGone: true, dependentsKept: kept, ownerReferencesLeft: left };
  assert.deepEqual(outcome, { ownerFinalizersOnDelete: ['orphan'], ownerGone: true, dependentsKept: ['a', 'b'], ownerReferencesLeft: { a: [], b: ['other'] } }, 'orphan deletion');
  return outcome;
}

/** The three scenarios by name, for a test that runs them all on one target (or two, and compares). */
export const DELETION_SCENARIOS = { background: backgroundDeletion, foreground: foregroundDeletion, orphan: orphanDeletion } as const;

/** Removes `finalizer` from `name` (get, filter, update; retried on a conflict with the collector's own writes). */
async function releaseFinalizer(client: ResourceClient<KubeObject>, name: string, finalizer: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const obj = await client.get(name);
    try {
      await client.update({ ...obj, metadata: { ...obj.metadata, finalizers: (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer) } });
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= 10) throw err;
    }
  }
}
