/**
 * CustomResourceDefinitions in the fake: `fakeResourcesFromCrd` turns a CRD (apiextensions.k8s.io/v1) into the
 * `FakeResource`s of its served versions, so a fake can be seeded from CRD files (`readCrdPaths` of
 * `@kubegen/runtime/testing/envtest`, or CRD objects built in a test); and a tracker that serves
 * `customresourcedefinitions` behaves like the apiserver: creating or updating a CRD object serves its versions (and
 * marks it `NamesAccepted` and `Established` at once, in a status update of its own), a version no longer served and a
 * deleted CRD stop being served, their objects gone. Discovery follows, since it is computed per request.
 */
import type { KubeObject, ResourceInfo, ScalePaths } from '../../client/types.js';
import { resourceKey } from '../../client/types.js';
import type { CrdObject } from '../envtest/envtest-crds.js';
import type { FakeResource } from './fake-resource.js';
import type { CommitObserver } from './tracker-hooks.js';

/** The key of apiextensions.k8s.io/v1 `customresourcedefinitions` in the tracker. */
export const CRD_RESOURCE_KEY = 'apiextensions.k8s.io/v1/customresourcedefinitions';

interface CrdVersionSpec {
  name: string;
  served: boolean;
  subresources?: { status?: unknown; scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string } };
}

/**
 * The resources a CRD serves, one per served version (names, scope, status and scale subresources as the CRD
 * declares them). Throws when the object is not an apiextensions.k8s.io/v1 CRD, naming what is missing.
 */
export function fakeResourcesFromCrd(crd: Pick<CrdObject, 'spec' | 'metadata'>): FakeResource[] {
  const spec = crd.spec;
  const where = `CustomResourceDefinition ${crd.metadata?.name ?? '(unnamed)'}`;
  if (!spec?.group || !spec.names?.plural || !spec.names.kind) throw new Error(`${where}: spec.group, spec.names.plural and spec.names.kind are required`);
  if (!Array.isArray(spec.versions)) throw new Error(`${where}: spec.versions must be a list`);
  const { names } = spec;
  return (spec.versions as CrdVersionSpec[])
    .filter((v) => v.served)
    .map((v): FakeResource => {
      const scale = v.subresources?.scale;
      return {
        group: spec.group,
        version: v.name,
        resource: names.plural,
        kind: names.kind,
        listKind: names.listKind || `${names.kind}List`,
        namespaced: spec.scope !== 'Cluster',
        singular: names.singular || names.kind.toLowerCase(),
        ...(stringList(names.shortNames) ? { shortNames: [...names.shortNames!] } : {}),
        ...(stringList(names.categories) ? { categories: [...names.categories!] } : {}),
        ...(v.subresources?.status !== undefined ? { statusSubresource: true } : {}),
        ...(scale ? { scale: scalePaths(scale) } : {}),
      };
    });
}

/** The resources of many CRDs (see {@link fakeResourcesFromCrd}). */
export function fakeResourcesFromCrds(crds: readonly Pick<CrdObject, 'spec' | 'metadata'>[]): FakeResource[] {
  return crds.flatMap(fakeResourcesFromCrd);
}

/** What {@link serveCrds} needs of a tracker (an `ObjectTracker` has it). */
export interface CrdServingTracker {
  register(...resources: FakeResource[]): void;
  unregister(...resources: ResourceInfo[]): void;
  patch(r: ResourceInfo, namespace: undefined, name: string, type: 'merge', patch: unknown, opts: { subresource?: string }): unknown;
  onCommit(observer: CommitObserver): void;
}

/**
 * Makes `tracker` serve the CRDs stored in it (every `ObjectTracker` does this from its constructor): after a CRD
 * object was stored or deleted, serves and stops serving resources accordingly and establishes a CRD that is not yet.
 */
export function serveCrds(tracker: CrdServingTracker): void {
  tracker.onCommit(({ res, obj, prev }) => {
    if (resourceKey(res) === CRD_RESOURCE_KEY) crdCommitted(tracker, res, obj, prev);
  });
}

function crdCommitted(tracker: CrdServingTracker, crdInfo: FakeResource, obj: KubeObject | undefined, prev: KubeObject | undefined): void {
  const before = prev ? safeResources(prev) : [];
  const after = obj ? safeResources(obj) : [];
  const kept = new Set(after.map(resourceKey));
  tracker.unregister(...before.filter((r) => !kept.has(resourceKey(r))));
  tracker.register(...after);
  const crd = obj as CrdObject | undefined;
  if (!crd?.metadata?.name || crd.metadata.deletionTimestamp || isEstablished(crd)) return;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string, reason: string, message: string) => ({ type, status: 'True', lastTransitionTime: now, reason, message });
  const storage = (crd.spec.versions ?? []).find((v) => v.storage)?.name;
  const status = {
    ...crd.status,
    acceptedNames: { ...crd.spec.names, listKind: crd.spec.names.listKind || `${crd.spec.names.kind}List`, singular: crd.spec.names.singular || crd.spec.names.kind.toLowerCase() },
    conditions: [condition('NamesAccepted', 'NoConflicts', 'no conflicts found'), condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted')],
    ...(storage ? { storedVersions: [storage] } : {}),
  };
  tracker.patch(crdInfo, undefined, crd.metadata.name, 'merge', { status }, crdInfo.statusSubresource ? { subresource: 'status' } : {});
}

function isEstablished(crd: CrdObject): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}

/** The resources of a stored CRD; nothing for one the fake cannot read (the tracker does not validate CRDs). */
function safeResources(obj: KubeObject): FakeResource[] {
  try {
    return fakeResourcesFromCrd(obj as CrdObject);
  } catch {
    return [];
  }
}

function scalePaths(s: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string }): ScalePaths {
  return {
    specReplicasPath: s.specReplicasPath ?? '.spec.replicas',
    statusReplicasPath: s.statusReplicasPath ?? '.status.replicas',
    ...(s.labelSelectorPath ? { labelSelectorPath: s.labelSelectorPath } : {}),
  };
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}
