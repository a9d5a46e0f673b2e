/**
 * One built-in kind's life on a real apiserver, as a test drives it: created from its `kubegen sample`, read back,
 * listed, watched (the typed client's watch and the kind's informer from `KubeInformers`), updated and deleted,
 * through the typed client `KubeClientset` has for the kind's group version — only the verbs the server lists for it.
 * What the server answers is recorded as it is: a deletion the server keeps waiting on finalizers (a Namespace stays
 * Terminating without a namespace controller, a PersistentVolumeClaim keeps `kubernetes.io/pvc-protection`) is
 * reported, and then finished as a controller would (the finalizers removed, a Namespace finalized).
 */
import assert from 'node:assert/strict';
import type { KubeObject, Watch, WatchEvent } from '@kubegen/runtime/internal/client/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import type { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import type { Lister } from '@kubegen/runtime/internal/cache/lister.js';
import type { KindVersion } from 'kubegen/internal/model/index.js';
import { sampleOfBuiltin } from 'kubegen/internal/generate/sample/builtin.js';
import { until } from '../../support/wait.js';

/** A kind the server serves, with the model's kind version and what discovery says of it. */
export interface ServedKind {
  kv: KindVersion;
  apiVersion: string;
  verbs: readonly string[];
  namespaced: boolean;
}

/** What the typed client of a kind offers (the parts used here; a kind's client has those its verbs allow). */
export interface KindClient {
  get(name: string): Promise<KubeObject>;
  list(opts?: { fieldSelector?: string }): Promise<{ items: KubeObject[]; metadata?: { resourceVersion?: string } }>;
  watch(opts?: { fieldSelector?: string; resourceVersion?: string }): Promise<Watch<KubeObject>>;
  create(obj: KubeObject): Promise<KubeObject>;
  update(obj: KubeObject): Promise<KubeObject>;
  delete(name: string): Promise<void>;
  finalize?(name: string, body: KubeObject): Promise<KubeObject>;
}

/** The informer of a kind and its lister. */
export interface KindInformer {
  informer: SharedIndexInformer<KubeObject>;
  lister: Lister<KubeObject>;
}

/** What happened to the object, for the test's diagnostic and assertions. */
export interface LifecycleReport {
  verbs: string[];
  /** How the deletion went: `gone`, or `finalizers …` the server waited on before it was gone. */
  deletion?: string;
  /** Event types the typed watch delivered, in order. */
  watched: string[];
  /** What the informer's handler heard, in order. */
  informed: string[];
}

const UPDATED_LABEL = 'kubegen.dev/updated';
const TIMEOUT_MS = 20_000;

/** Creates the sample of a kind that only takes creations (the reviews): the server answers with its verdict. */
export async function createOnly(kind: ServedKind, client: KindClient, name: string, namespace: string): Promise<LifecycleReport> {
  const sample = sampleOfBuiltin(kind.kv, { name, namespace }) as KubeObject;
  const answer = await client.create(sample);
  assert.equal(answer.kind, kind.kv.resource.names.kind);
  assert.ok((answer as { status?: unknown }).status !== undefined, 'a review answers with its status');
  return { verbs: ['create'], watched: [], informed: [] };
}

/** Lists a read-only kind and gets the first object it lists (or asks for one that is not there, when none is). */
export async function readOnly(kind: ServedKind, client: KindClient): Promise<LifecycleReport> {
  const list = await client.list();
  const first = list.items[0]?.metadata?.name;
  if (first !== undefined) assert.equal((await client.get(first)).metadata?.name, first);
  else await assert.rejects(client.get('none'), isNotFound);
  return { verbs: kind.verbs.filter((v) => v === 'list' || v === 'get'), watched: [], informed: [] };
}

/** Collects a watch's event types (until `stop`), as `TYPE:deleting` for an object with a deletion timestamp. */
function collect(watch: Watch<KubeObject>, into: string[]): Promise<void> {
  return (async () => {
    for await (const e of watch as AsyncIterable<WatchEvent<KubeObject>>) {
      if (e.type === 'BOOKMARK') continue;
      into.push(`${e.type}${e.object?.metadata?.deletionTimestamp ? ':deleting' : ''}`);
    }
  })();
}

/**
 * The whole life of one object of `kind` (see the module comment): every verb of create, get, list, watch, update and
 * delete the server lists for the kind. `informer` is the kind's informer, already started, selecting only `name`.
 */
export async function fullLifecycle(kind: ServedKind, client: KindClient, inf: KindInformer | undefined, name: string, namespace: string): Promise<LifecycleReport> {
  const has = (v: string): boolean => kind.verbs.includes(v);
  const report: LifecycleReport = { verbs: [], watched: [], informed: [] };
  const did = (v: string): void => void report.verbs.push(v);
  const byName = `metadata.name=${name}`;
  if (inf) {
    inf.informer.addEventHandler({
      onAdd: (o) => void report.informed.push(`add:${o.metadata?.labels?.[UPDATED_LABEL] ?? ''}`),
      onUpdate: (_, o) => void report.informed.push(`update:${o.metadata?.labels?.[UPDATED_LABEL] ?? ''}${o.metadata?.deletionTimestamp ? ':deleting' : ''}`),
      onDelete: () => void report.informed.push('delete'),
    });
    await inf.informer.whenSynced();
  }

  const created = await client.create(sampleOfBuiltin(kind.kv, { name, namespace }) as KubeObject);
  did('create');
  assert.equal(created.metadata?.name, name);
  assert.ok(created.metadata?.uid && created.metadata.resourceVersion, 'the server gave it a uid and a resourceVersion');
  let watch: Watch<KubeObject> | undefined;
  let watching: Promise<void> | undefined;
  if (has('watch')) {
    watch = await client.watch({ fieldSelector: byName, resourceVersion: created.metadata.resourceVersion! });
    watching = collect(watch, report.watched);
    did('watch');
  }
  try {
    if (has('get')) {
      assert.equal((await client.get(name)).metadata?.uid, created.metadata.uid);
      did('get');
    }
    if (has('list')) {
      const listed = await client.list({ fieldSelector: byName });
      assert.deepEqual(listed.items.map((o) => o.metadata?.uid), [created.metadata.uid]);
      did('list');
    }
    if (inf) await until(() => inf.lister.get(keyOf(kind, namespace, name))?.metadata?.uid === created.metadata!.uid, `the ${kind.kv.resource.names.kind} informer's cache to hold ${name}`, TIMEOUT_MS);
    if (has('update')) {
      const current = await client.get(name);
      const updated = await client.update({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata?.labels, [UPDATED_LABEL]: 'true' } } });
      assert.equal(updated.metadata?.labels?.[UPDATED_LABEL], 'true');
      assert.notEqual(updated.metadata?.resourceVersion, current.metadata?.resourceVersion);
      did('update');
      if (inf) {
        await until(() => inf.lister.get(keyOf(kind, namespace, name))?.metadata?.labels?.[UPDATED_LABEL] === 'true', `the informer's cache to see the update of ${name}`, TIMEOUT_MS);
        // Handlers hear of a change after the cache has it.
        await until(() => report.informed.includes('update:true'), `the informer's handler to hear of the update of ${name} (it heard ${report.informed.join(', ')})`, TIMEOUT_MS);
      }
    }
    if (has('delete')) {
      await client.delete(name);
      did('delete');
      report.deletion = await finishDeletion(kind, client, name);
      if (inf) {
        await until(() => inf.lister.get(keyOf(kind, namespace, name)) === undefined, `the informer's cache to drop ${name}`, TIMEOUT_MS);
        await until(() => report.informed.at(-1) === 'delete', `the informer's handler to hear of the deletion of ${name} (it heard ${report.informed.join(', ')})`, TIMEOUT_MS);
      }
      if (watch) await until(() => report.watched.some((e) => e.startsWith('DELETED')), `the watch to deliver the deletion of ${name} (it delivered ${report.watched.join(', ')})`, TIMEOUT_MS);
    }
  } finally {
    watch?.stop();
    await watching?.catch(() => undefined);
  }
  return report;
}

/** The informer cache's key of the object. */
function keyOf(kind: ServedKind, namespace: string, name: string): string {
  return kind.namespaced ? `${namespace}/${name}` : name;
}

/**
 * After a delete: `gone` when the object is, else it must be marked for deletion, waiting on finalizers; they are then
 * removed as their controllers would (a Namespace's `spec.finalizers` through `finalize`, then deleted again).
 */
async function finishDeletion(kind: ServedKind, client: KindClient, name: string): Promise<string> {
  const left = await client.get(name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
  if (!left) return 'gone';
  assert.ok(left.metadata?.deletionTimestamp, `${name} is still there after delete: it must be marked for deletion`);
  const specFinalizers = ((left as { spec?: { finalizers?: string[] } }).spec?.finalizers ?? []);
  const waitedOn = [...(left.metadata.finalizers ?? []), ...specFinalizers.map((f) => `spec:${f}`)];
  assert.ok(waitedOn.length > 0, `${name} is marked for deletion and waits on finalizers`);
  if (left.metadata.finalizers?.length) await client.update({ ...left, metadata: { ...left.metadata, finalizers: [] } });
  if (specFinalizers.length > 0) {
    assert.ok(client.finalize, `${kind.kv.resource.names.kind} has spec.finalizers and a finalize call`);
    const current = await client.get(name);
    await client.finalize(name, { ...current, spec: { ...(current as { spec?: object }).spec, finalizers: [] } } as KubeObject);
    await client.delete(name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
  }
  await until(async () => client.get(name).then(() => false, (err: unknown) => (isNotFound(err) ? true : Promise.reject(err))), `${name} to be gone after its finalizers`, TIMEOUT_MS);
  return `finalizers ${waitedOn.join(', ')}`;
}
