/**
 * Deliberately buggy controllers for `explore`, each with a correct twin (issue 42, item 5), on two kinds of group
 * `explore.test`: a `Parent` (spec.value, status.child) and the `Child` a controller makes for it (spec.value copied).
 *
 * - `crash` bug (`childLeak`): creates the child with a generated name, then records the name in the parent's status
 *   in a second write; a crash between the two leaves a child nobody knows, and the restarted controller makes a
 *   second one. Twin (`childAdopt`): before creating, looks for a child labelled with the parent's name and adopts it.
 * - `gap` bug (`copyOnDelete`): makes a child named after the parent, once, copying spec.value; deletes it only when
 *   it observes the parent's delete event. A delete and re-create of the parent hidden by a gap leaves the old copy
 *   (which the garbage collector then deletes, its owner gone; the controller does not watch children, so the new
 *   parent never gets its copy).
 *   Twin (`copyFromState`): compares the child's owner uid with the parent's and re-creates it on a mismatch, and
 *   deletes it when the parent is gone, whatever events it saw.
 * - `mutate` bug (`scaleUp`): keeps `spec.value` children named `<parent>-<i>`, creating the missing ones but never
 *   deleting any, so lowering the value leaves children a fresh run with the last value does not have. Twin
 *   (`scaleBoth`): also deletes the children whose index is at or above the value.
 *
 * - `stale` bug (`mirrorUnowned`): server-side applies a child `<parent>-mirror` (spec.value copied) on every
 *   reconcile, and cleans it up through a finalizer on the parent, but puts no owner reference on it. Restarted after
 *   the parent's deletion onto a view from before it (a lagging apiserver), it applies the child again, to the live
 *   state: once caught up, nothing deletes it. Twin (`mirrorOwned`): the child has an owner reference to the parent,
 *   so the garbage collector takes what a stale view made.
 *
 * Each module's default export is a `setup(mgr)`, as `kubegen explore --setup` loads it.
 */
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import type { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import type { Request } from '@kubegen/runtime/internal/reconcile/request.js';
import type { Result } from '@kubegen/runtime/internal/reconcile/reconciler.js';

export const parents: ResourceInfo = { group: 'explore.test', version: 'v1', resource: 'parents', kind: 'Parent', listKind: 'ParentList', namespaced: true };
export const children: ResourceInfo = { group: 'explore.test', version: 'v1', resource: 'children', kind: 'Child', listKind: 'ChildList', namespaced: true };

interface Obj extends KubeObject {
  spec?: { value?: number };
  status?: { child?: string };
}

const crd = (info: ResourceInfo, status: boolean): KubeObject & Record<string, unknown> => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${info.resource}.${info.group}` },
  spec: {
    group: info.group,
    scope: 'Namespaced',
    names: { kind: info.kind, plural: info.resource, singular: info.kind.toLowerCase(), listKind: info.listKind },
    versions: [
      {
        name: info.version,
        served: true,
        storage: true,
        ...(status ? { subresources: { status: {} } } : {}),
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { value: { type: 'integer' } } }, status: { type: 'object', properties: { child: { type: 'string' } } } } } },
      },
    ],
  },
});

/** The CRDs of both kinds, as YAML would give them. */
export const exploreCrds = [crd(parents, true), crd(children, false)];

const ownerRef = (p: Obj): NonNullable<KubeObject['metadata']>['ownerReferences'] => [{ apiVersion: 'explore.test/v1', kind: 'Parent', name: p.metadata!.name!, uid: p.metadata!.uid!, controller: true }];

/** The parents' and children's clients of the manager in `namespace`. */
function clientsOf(mgr: Manager, namespace: string | undefined) {
  return { ps: mgr.getClient().resource<Obj>(parents, namespace), cs: mgr.getClient().resource<Obj>(children, namespace) };
}

/** What `p` resolves to, or undefined when it fails with NotFound (controller-runtime's `client.IgnoreNotFound`). */
function orNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  return p.catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

/**
 * Registers a controller named `name` for Parents (owning Children when `owns`) whose reconcile is given the Parent
 * and both clients; a Parent that is gone is left alone.
 */
function parentController(
  mgr: Manager,
  name: string,
  owns: boolean,
  reconcile: (parent: Obj, clients: ReturnType<typeof clientsOf>, req: Request) => Promise<Result | void>,
): void {
  const builder = controllerFor(mgr, parents).named(name);
  (owns ? builder.owns(children) : builder).withOptions({ skipNameValidation: true }).complete(async (req) => {
    const clients = clientsOf(mgr, req.namespace);
    const parent = await orNotFound(clients.ps.get(req.name));
    return parent ? reconcile(parent, clients, req) : undefined;
  });
}

/** The crash bug, or (adopt) its twin: see the module comment. */
export function childController(adopt: boolean): (mgr: Manager) => void {
  return (mgr) => {
    parentController(mgr, adopt ? 'child-adopt' : 'child-leak', true, async (parent, { ps, cs }, req) => {
      const value = parent.spec?.value ?? 0;
      let name = parent.status?.child;
      if (!name && adopt) name = (await cs.list({ labelSelector: `parent=${req.name}` })).items[0]?.metadata?.name;
      if (!name) {
        const child = await cs.create({ apiVersion: 'explore.test/v1', kind: 'Child', metadata: { generateName: `${req.name}-`, namespace: req.namespace, labels: { parent: req.name }, ownerReferences: ownerRef(parent) }, spec: { value } });
        name = child.metadata!.name!;
      }
      if (parent.status?.child !== name) await ps.updateStatus({ ...parent, status: { child: name } });
      const child = await cs.get(name);
      if (child.spec?.value !== value) await cs.update({ ...child, spec: { value } });
    });
  };
}

/** The gap bug, or (fromState) its twin: see the module comment. */
export function copyController(fromState: boolean): (mgr: Manager) => void {
  return (mgr) => {
    const deleted = new Set<string>();
    controllerFor(mgr, parents)
      .named(fromState ? 'copy-from-state' : 'copy-on-delete')
      .withOptions({ skipNameValidation: true })
      .watches(parents, { delete: (o) => void deleted.add(`${(o as Obj).metadata?.namespace}/${(o as Obj).metadata?.name}`) })
      .complete(async (req) => {
        const { ps, cs } = clientsOf(mgr, req.namespace);
        const name = `${req.name}-copy`;
        const key = `${req.namespace}/${req.name}`;
        const child = await orNotFound(cs.get(name));
        const parent = await orNotFound(ps.get(req.name));
        const stale = fromState ? child && (!parent || child.metadata?.ownerReferences?.[0]?.uid !== parent.metadata?.uid) : child && deleted.has(key);
        if (stale) {
          await orNotFound(cs.delete(name));
          deleted.delete(key);
          return parent ? { requeue: true } : undefined;
        }
        deleted.delete(key);
        if (!parent || child) return;
        await cs.create({ apiVersion: 'explore.test/v1', kind: 'Child', metadata: { name, namespace: req.namespace, ownerReferences: ownerRef(parent) }, spec: { value: parent.spec?.value ?? 0 } });
      });
  };
}

/** The mutate bug (only scales up), or (down) its twin: see the module comment. */
export function scaleController(down: boolean): (mgr: Manager) => void {
  return (mgr) => {
    parentController(mgr, down ? 'scale-both' : 'scale-up', true, async (parent, { cs }, req) => {
      const want = Math.max(0, parent.spec?.value ?? 0);
      const have = (await cs.list({ labelSelector: `parent=${req.name}` })).items;
      const index = (c: Obj): number => Number(c.metadata!.name!.slice(req.name.length + 1));
      for (let i = 0; i < want; i++) {
        if (have.some((c) => index(c) === i)) continue;
        await cs.create({ apiVersion: 'explore.test/v1', kind: 'Child', metadata: { name: `${req.name}-${i}`, namespace: req.namespace, labels: { parent: req.name }, ownerReferences: ownerRef(parent) }, spec: { value: i } });
      }
      if (!down) return;
      for (const c of have) if (index(c) >= want) await orNotFound(cs.delete(c.metadata!.name!));
    });
  };
}

/** The finalizer of the mirror controllers. */
export const MIRROR_FINALIZER = 'explore.test/mirror';

/** The stale bug, or (owned) its twin: see the module comment. */
export function mirrorController(owned: boolean): (mgr: Manager) => void {
  return (mgr) => {
    parentController(mgr, owned ? 'mirror-owned' : 'mirror-unowned', false, async (parent, { ps, cs }, req) => {
      const name = `${req.name}-mirror`;
      const finalizers = parent.metadata?.finalizers ?? [];
      if (parent.metadata?.deletionTimestamp) {
        if (!finalizers.includes(MIRROR_FINALIZER)) return;
        await orNotFound(cs.delete(name));
        await ps.update({ ...parent, metadata: { ...parent.metadata, finalizers: finalizers.filter((f) => f !== MIRROR_FINALIZER) } });
        return;
      }
      if (!finalizers.includes(MIRROR_FINALIZER)) {
        await ps.update({ ...parent, metadata: { ...parent.metadata, finalizers: [...finalizers, MIRROR_FINALIZER] } });
        return;
      }
      const meta = { name, namespace: req.namespace, ...(owned ? { ownerReferences: ownerRef(parent) } : {}) };
      await cs.apply({ apiVersion: 'explore.test/v1', kind: 'Child', metadata: meta, spec: { value: parent.spec?.value ?? 0 } }, { fieldManager: 'mirror', force: true });
    });
  };
}
