/**
 * Explore on a real control plane (`explore({ envtest })`, `kubegen explore --envtest`): one envtest serves every run
 * of an exploration, each run in a fresh namespace of its own.
 *
 * - The scenario's namespaced objects are placed in the run's namespace (a scenario names at most one namespace;
 *   cluster-scoped objects are refused by {@link checkEnvtestScenario}: runs sharing an apiserver could not be kept
 *   apart); the end state is read back from that namespace and named with the scenario's namespace again, so the
 *   same oracle compares it.
 * - A manager's lists and watches across all namespaces are confined to the run's namespace ({@link RunPlane.scope}),
 *   so it never sees the objects of an earlier run.
 * - Garbage collection is explore's own (gc.ts's rule, over the apiserver: dependents whose owners are all gone are
 *   deleted, background), run between settles as in-process: neither `full` nor `crd-only` runs
 *   kube-controller-manager, and `crd-only`'s own collector is turned off so that both collect at the same points.
 * - `stale` answers the restarted manager's reads from a frozen in-process copy of the run's namespace as it was
 *   (stale.ts), with the apiserver's resourceVersions; its writes go to the apiserver.
 * - Crash points are not deduplicated (the apiserver's newest resourceVersion is not read after every request).
 * - Before the first run, {@link waitUntilServing} waits for the apiserver to list and watch every CRD kind: a CRD
 *   apiserver 1.36 answers 429 "storage is (re)initializing" for a while after a CRD is installed, and an informer
 *   backing off from it would let a run look settled before its controllers saw anything.
 */
import { ApiError } from '../../client/errors.js';
import { ResourceClient } from '../../client/resource-client.js';
import { apiVersionOf, type KubeObject, type ResourceInfo, type ResourceRequest, type Transport } from '../../client/types.js';
import type { Envtest } from '../envtest/envtest.js';
import { createTestNamespace, deleteTestNamespace, testNamespaceName } from '../envtest/envtest-namespace.js';
import { orphans } from './gc.js';
import { crdResources, type PlaneInput, type RunPlane } from './plane.js';
import { runStep, ScenarioError, type ScenarioStep } from './scenario.js';
import { staleView } from './stale.js';

/**
 * Checks that `steps` can run on envtest: every object namespaced (`namespaced(apiVersion, kind)`), all in one
 * namespace; returns that namespace (`default` when none is named). Throws a {@link ScenarioError} naming the step.
 */
export function checkEnvtestScenario(steps: readonly ScenarioStep[], namespaced: (apiVersion: string, kind: string) => boolean): string {
  let ns: string | undefined;
  steps.forEach((step, i) => {
    const ref = refOf(step);
    if (!namespaced(ref.apiVersion, ref.kind)) {
      throw new ScenarioError(i + 1, `${ref.kind} ${ref.name} is cluster-scoped: --envtest runs every run in a namespace of its own on one apiserver and cannot keep cluster-scoped objects of different runs apart (run it in-process)`);
    }
    if (ref.namespace && ns && ref.namespace !== ns) throw new ScenarioError(i + 1, `${ref.kind} ${ref.namespace}/${ref.name}: --envtest takes a scenario in one namespace (each run gets one of its own), and an earlier step uses ${ns}`);
    ns ??= ref.namespace;
  });
  return ns ?? 'default';
}

function refOf(step: ScenarioStep): { apiVersion: string; kind: string; namespace?: string; name: string } {
  if ('apply' in step) return { apiVersion: step.apply.apiVersion ?? '', kind: step.apply.kind ?? '', ...(step.apply.metadata?.namespace ? { namespace: step.apply.metadata.namespace } : {}), name: step.apply.metadata?.name ?? '' };
  return 'delete' in step ? step.delete : step.patch;
}

/** The step with its object in namespace `ns`. */
function inNamespace(step: ScenarioStep, ns: string): ScenarioStep {
  if ('apply' in step) return { apply: { ...step.apply, metadata: { ...step.apply.metadata, namespace: ns } } };
  if ('delete' in step) return { delete: { ...step.delete, namespace: ns } };
  return { patch: { ...step.patch, namespace: ns } };
}

/**
 * Resolves once `env` lists and watches every namespaced kind of `crds` (each answered once without error), retrying
 * every 100 ms; throws after `timeoutMs` (default 30 s) with the last error.
 */
export async function waitUntilServing(env: Envtest, crds: PlaneInput['crds'], timeoutMs = 30_000): Promise<void> {
  const http = env.transport();
  const deadline = Date.now() + timeoutMs;
  try {
    const seen = new Set<string>();
    for (const r of crdResources(crds)) {
      if (!r.namespaced || seen.has(`${r.group}/${r.resource}`)) continue;
      seen.add(`${r.group}/${r.resource}`);
      const client = new ResourceClient<KubeObject>(http, r, 'explore-probe');
      for (;;) {
        try {
          const list = await client.list();
          const w = await client.watch({ resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true });
          w.stop();
          break;
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`explore: the apiserver does not serve ${r.resource}.${r.group} after ${timeoutMs} ms: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }
  } finally {
    http.close();
  }
}

/** A fresh namespace of `env` for one run whose scenario uses `scenarioNamespace` (see the module comment). */
export async function envtestPlane(env: Envtest, input: PlaneInput & { scenarioNamespace: string }): Promise<RunPlane> {
  const http = env.transport();
  const ns = env.profile === 'crd-only' ? testNamespaceName('explore') : await createTestNamespace(http, 'explore');
  const resources: ResourceInfo[] = [...crdResources(input.crds), ...input.builtins];
  const resolver = { resourceFor: (apiVersion: string, kind: string) => resources.find((r) => apiVersionOf(r) === apiVersion && r.kind === kind) };
  // One version per group and resource (the first served), namespaced only, Events aside.
  const listed = new Map<string, ResourceInfo>();
  for (const r of resources) if (r.namespaced && r.resource !== 'events' && !listed.has(`${r.group}/${r.resource}`)) listed.set(`${r.group}/${r.resource}`, r);
  const rawState = async (): Promise<KubeObject[]> => {
    const out: KubeObject[] = [];
    for (const r of listed.values()) {
      let list: { items?: KubeObject[] };
      try {
        list = await http.request<{ items?: KubeObject[] }>({ verb: 'list', resource: r, namespace: ns });
      } catch (err) {
        if (err instanceof ApiError && (err.code === 404 || err.code === 405)) continue; // not served by this profile
        throw err;
      }
      for (const o of list.items ?? []) out.push({ ...o, apiVersion: apiVersionOf(r), kind: r.kind });
    }
    return out;
  };
  return {
    transport: http,
    scope: (t) => scoped(t, ns),
    runStep: (step) => runStep(http, resolver, inNamespace(step, ns)),
    async collectGarbage() {
      let deleted = 0;
      for (let round = 0; round < 10; round++) {
        const found = orphans(await rawState(), (o) => o);
        if (found.length === 0) break;
        for (const o of found) {
          const r = resolver.resourceFor(o.apiVersion!, o.kind!)!;
          await http.request({ verb: 'delete', resource: r, namespace: ns, name: o.metadata!.name!, query: { propagationPolicy: 'Background' } }).then(
            () => deleted++,
            () => undefined, // gone meanwhile
          );
        }
      }
      return deleted;
    },
    async state() {
      return (await rawState()).map((o) => ({ ...o, metadata: { ...o.metadata, namespace: input.scenarioNamespace } }));
    },
    rawState,
    staleView: (objects) => staleView(input.crds, input.builtins, objects),
    async dispose() {
      if (env.profile !== 'crd-only') await deleteTestNamespace(http, ns);
      http.close();
    },
  };
}

/** `t` with every request for a namespaced resource that names no namespace confined to `ns`. */
function scoped(t: Transport, ns: string): Transport {
  const fix = (req: ResourceRequest): ResourceRequest => (req.resource.namespaced && !req.namespace ? { ...req, namespace: ns } : req);
  return {
    get fieldManager() {
      return t.fieldManager;
    },
    isWatchListSemanticsUnsupported: () => t.isWatchListSemanticsUnsupported?.() ?? false,
    raw: (method, path, init) => t.raw(method, path, init),
    request: (req) => t.request(fix(req)),
    watch: (req) => t.watch(fix(req)),
  };
}
