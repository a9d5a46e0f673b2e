/**
 * Installing CustomResourceDefinitions into an envtest control plane, as controller-runtime's `InstallCRDs`:
 * read them from files or folders (`.yaml`, `.yml`, `.json`; multi-document YAML; a folder is read one level deep;
 * documents that are not CRDs are skipped), create each one (or update it when it exists), then wait until every
 * CRD is `Established` and its resource is served by discovery.
 */
import { builtinResources } from '../../builtin/resources.js';
import fs from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { isNotFound } from '../../client/errors.js';
import type { HttpTransport } from '../../client/http-transport.js';
import { ResourceClient } from '../../client/resource-client.js';
import type { KubeObject, ResourceInfo } from '../../client/types.js';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';

/** The parts of an apiextensions.k8s.io/v1 CRD the harness reads. */
export interface CrdObject extends KubeObject {
  spec: {
    group: string;
    names: { plural: string; kind: string; listKind?: string; singular?: string; shortNames?: string[]; categories?: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: { name: string; served: boolean; storage: boolean; [k: string]: unknown }[];
    [k: string]: unknown;
  };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[]; [k: string]: unknown };
}

/** apiextensions.k8s.io/v1 `customresourcedefinitions` (cluster-scoped): what CRDs are installed through. */
export const CRD_RESOURCE: ResourceInfo = builtinResources.customResourceDefinitions;

const CRD_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

function isCrd(doc: unknown): doc is CrdObject {
  const o = doc as CrdObject | null;
  return Boolean(o && typeof o === 'object' && o.kind === 'CustomResourceDefinition' && o.spec && typeof o.spec === 'object');
}

/** Parses every CRD in `text` (one or more YAML/JSON documents). */
export function parseCrds(text: string, source = '<inline>'): CrdObject[] {
  const out: CrdObject[] = [];
  let docs: unknown[];
  try {
    docs = loadAll(text);
  } catch (err) {
    throw new Error(`${source}: ${err instanceof Error ? err.message : String(err)}`);
  }
  for (const value of docs) {
    if (isCrd(value)) {
      if (value.apiVersion !== 'apiextensions.k8s.io/v1') throw new Error(`${source}: only apiextensions.k8s.io/v1 CRDs are supported (got ${value.apiVersion})`);
      out.push(value);
    }
  }
  return out;
}

/** Reads the CRDs in files and folders. A missing path throws unless `ignoreMissing`. */
export function readCrdPaths(paths: readonly string[], ignoreMissing = false): CrdObject[] {
  const out: CrdObject[] = [];
  for (const p of paths) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      if (ignoreMissing) continue;
      throw new Error(`CRD path ${p} does not exist`);
    }
    const files = stat.isDirectory()
      ? fs
          .readdirSync(p)
          .filter((f) => CRD_EXTENSIONS.has(path.extname(f).toLowerCase()))
          .sort()
          .map((f) => path.join(p, f))
      : [p];
    for (const file of files) out.push(...parseCrds(fs.readFileSync(file, 'utf8'), file));
  }
  return out;
}

/** The plural/kind/scope of a CRD's storage version, as a `ResourceInfo` for typed clients. */
export function crdResourceInfo(crd: CrdObject, version?: string): ResourceInfo {
  const v = version ?? (crd.spec.versions.find((x) => x.storage) ?? crd.spec.versions[0])?.name;
  if (!v) throw new Error(`CRD ${crd.metadata?.name} has no versions`);
  return {
    group: crd.spec.group,
    version: v,
    resource: crd.spec.names.plural,
    kind: crd.spec.names.kind,
    listKind: crd.spec.names.listKind ?? `${crd.spec.names.kind}List`,
    namespaced: crd.spec.scope === 'Namespaced',
  };
}


/** Creates or updates `crds`, then waits (up to `timeoutMs`) until each is Established and served. */
export async function installCrds(transport: HttpTransport, crds: readonly CrdObject[], timeoutMs = 20_000): Promise<CrdObject[]> {
  const client = new ResourceClient<CrdObject>(transport, CRD_RESOURCE);
  const installed: CrdObject[] = [];
  for (const crd of crds) {
    const name = crd.metadata?.name ?? `${crd.spec.names.plural}.${crd.spec.group}`;
    const body: CrdObject = { ...crd, metadata: { ...crd.metadata, name } };
    delete body.status;
    try {
      const current = await client.get(name);
      const rv = current.metadata?.resourceVersion;
      installed.push(await client.update({ ...body, metadata: { ...body.metadata, ...(rv ? { resourceVersion: rv } : {}) } }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      installed.push(await client.create(body));
    }
  }
  const deadline = performance.now() + timeoutMs;
  for (const crd of installed) await waitForCrd(transport, client, crd, deadline);
  return installed;
}

async function waitForCrd(transport: HttpTransport, client: ResourceClient<CrdObject>, crd: CrdObject, deadline: number): Promise<void> {
  const name = crd.metadata!.name!;
  // Polled from every 50 ms up to every second: a CRD can weigh megabytes (Argo's Workflow), and reading it 20 times a
  // second slows the very apiserver that is establishing it.
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    const current = await client.get(name);
    const established = current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (established && (await servedByDiscovery(transport, current))) return;
    if (performance.now() > deadline) throw new Error(`CRD ${name} was not established in time: ${JSON.stringify(current.status?.conditions ?? [])}`);
    await sleep(realClock, pause);
  }
}

async function servedByDiscovery(transport: HttpTransport, crd: CrdObject): Promise<boolean> {
  for (const v of crd.spec.versions) {
    if (!v.served) continue;
    const res = await transport.raw('GET', `/apis/${crd.spec.group}/${v.name}`);
    if (res.statusCode !== 200) return false;
    const list = JSON.parse(res.body.toString('utf8')) as { resources?: { name: string }[] };
    if (!list.resources?.some((r) => r.name === crd.spec.names.plural)) return false;
  }
  return true;
}
