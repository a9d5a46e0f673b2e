/**
 * The objects a load run creates and churns: a template object (YAML) rendered once per object, a churn patch
 * rendered per patch, the resource found through discovery, and the convergence checks that decide which objects the
 * controller has caught up with.
 *
 * Placeholders, replaced in the text before it is parsed (so `{{random 1 5}}` outside quotes becomes a number):
 * `{{name}}` the object's name (`<template name>-<i>`), `{{i}}` its index, `{{seq}}` the churn patch's sequence
 * number, `{{random A B}}` an integer in [A, B]. Anything else in `{{…}}` is an error naming it.
 */
import fs from 'node:fs';
import { load } from 'js-yaml';
import type { HttpTransport } from '../../client/http-transport.js';
import type { KubeObject, ResourceInfo, Transport } from '../../client/types.js';
import { ResourceClient } from '../../client/resource-client.js';

/** Values of the placeholders (module comment). */
export interface PlaceholderValues {
  name?: string;
  i?: number;
  seq?: number;
  /** Random source in [0, 1) (default `Math.random`). */
  random?: () => number;
}

/** Replaces the placeholders of `text` (module comment); `where` names the input in errors. */
export function renderPlaceholders(text: string, v: PlaceholderValues, where: string): string {
  return text.replace(/\{\{\s*([^}]*?)\s*\}\}/g, (all, expr: string) => {
    const [fn, ...args] = expr.split(/\s+/);
    if (fn === 'name' && v.name !== undefined && args.length === 0) return v.name;
    if (fn === 'i' && v.i !== undefined && args.length === 0) return String(v.i);
    if (fn === 'seq' && v.seq !== undefined && args.length === 0) return String(v.seq);
    if (fn === 'random' && args.length === 2) {
      const [lo, hi] = args.map(Number) as [number, number];
      if (Number.isInteger(lo) && Number.isInteger(hi) && lo <= hi) return String(lo + Math.floor((v.random ?? Math.random)() * (hi - lo + 1)));
    }
    const known = [v.name !== undefined && '{{name}}', v.i !== undefined && '{{i}}', v.seq !== undefined && '{{seq}}', '{{random A B}}'].filter(Boolean).join(', ');
    throw new Error(`${where}: unknown placeholder ${all} (known here: ${known})`);
  });
}

/** A template object, rendered per index; see {@link loadObjectTemplate}. */
export interface ObjectTemplate {
  apiVersion: string;
  kind: string;
  /** Name prefix: the template's `metadata.name` (or `generateName` without its trailing dash), else the kind. */
  baseName: string;
  /** The object number `i` (0-based): name `<baseName>-<i>`, in `namespace`. */
  render(i: number, namespace: string): KubeObject;
}

/** Reads a one-object YAML/JSON template; throws naming the file on unreadable or incomplete input. */
export function loadObjectTemplate(file: string): ObjectTemplate {
  const text = fs.readFileSync(file, 'utf8');
  return parseObjectTemplate(text, file);
}

/** {@link loadObjectTemplate} from text. */
export function parseObjectTemplate(text: string, where: string): ObjectTemplate {
  const parse = (name: string, i: number): KubeObject => {
    let doc: unknown;
    try {
      doc = load(renderPlaceholders(text, { name, i }, where));
    } catch (err) {
      throw new Error(`${where}: ${(err as Error).message}`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${where}: expected one object (a mapping with apiVersion and kind)`);
    return doc as KubeObject;
  };
  const probe = parse('probe', 0);
  const missing = (['apiVersion', 'kind'] as const).filter((k) => typeof probe[k] !== 'string' || probe[k] === '');
  if (missing.length > 0) throw new Error(`${where}: the template has no ${missing.join(' and ')}`);
  const meta = probe.metadata ?? {};
  const baseName = (meta.name && meta.name !== 'probe' ? meta.name : meta.generateName?.replace(/-$/, '')) || probe.kind!.toLowerCase();
  return {
    apiVersion: probe.apiVersion!,
    kind: probe.kind!,
    baseName,
    render(i: number, namespace: string): KubeObject {
      const name = `${baseName}-${i}`;
      const obj = parse(name, i);
      const { generateName: _, ...rest } = obj.metadata ?? {};
      obj.metadata = { ...rest, name, namespace };
      return obj;
    },
  };
}

/** Renders a churn patch (JSON merge patch text) for object `name`; throws naming `where` when it is not a JSON object. */
export function renderChurnPatch(text: string, v: PlaceholderValues, where: string): Record<string, unknown> {
  const rendered = renderPlaceholders(text, v, where);
  let patch: unknown;
  try {
    patch = JSON.parse(rendered);
  } catch (err) {
    throw new Error(`${where}: not JSON after its placeholders were replaced (${(err as Error).message}): ${rendered}`);
  }
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw new Error(`${where}: a merge patch must be a JSON object`);
  return patch as Record<string, unknown>;
}

/** The default churn patch: an annotation that changes every time (the generation does not move). */
export const DEFAULT_CHURN_PATCH = '{"metadata":{"annotations":{"loadtest.kubegen.io/churn":"{{seq}}"}}}';

/** The resource serving `apiVersion`/`kind`, from the apiserver's discovery document. */
export async function discoverResource(transport: HttpTransport, apiVersion: string, kind: string): Promise<ResourceInfo> {
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const res = await transport.raw('GET', path, { timeoutMs: 30_000 });
  if (res.statusCode !== 200) throw new Error(`discovery of ${apiVersion}: HTTP ${res.statusCode} from ${path} (is the CRD installed?)`);
  const doc = JSON.parse(res.body.toString('utf8')) as { resources?: { name: string; kind: string; namespaced: boolean }[] };
  const found = (doc.resources ?? []).find((r) => r.kind === kind && !r.name.includes('/'));
  if (!found) throw new Error(`${apiVersion} has no kind ${kind} (served: ${(doc.resources ?? []).filter((r) => !r.name.includes('/')).map((r) => r.kind).join(', ') || 'none'})`);
  return { group, version, resource: found.name, kind, listKind: `${kind}List`, namespaced: found.namespaced };
}

/** What a convergence check may use besides the objects: a client to the apiserver (not through the fault proxy). */
export interface CheckContext {
  /** The harness's admin connection (replaced after an apiserver restart: read it per use). */
  readonly transport: Transport;
  namespace: string;
  /** Every object of `apiVersion`/`kind` in the run's namespace (all namespaces for cluster-scoped kinds). */
  list(apiVersion: string, kind: string): Promise<KubeObject[]>;
}

/**
 * Decides which objects the controller has not caught up with yet. Called about once a second with every object
 * of the run's kind (one list); returns the names of those not converged. Must not modify the objects.
 */
export type ConvergenceCheck = (objects: readonly KubeObject[], ctx: CheckContext) => string[] | Promise<string[]>;

/**
 * The default check: the controller has seen the object's current generation. That is `status.observedGeneration`
 * reaching `metadata.generation`; or, for a status without `observedGeneration` (as a `kubegen create api`
 * controller writes it), a `Ready` condition that is `True` with its `observedGeneration` reaching the generation.
 */
export const observedGenerationCheck: ConvergenceCheck = (objects) =>
  objects
    .filter((o) => {
      const generation = o.metadata?.generation ?? 0;
      const status = (o as { status?: { observedGeneration?: unknown; conditions?: { type?: string; status?: string; observedGeneration?: number }[] } }).status;
      if (typeof status?.observedGeneration === 'number') return status.observedGeneration < generation;
      const ready = status?.conditions?.find((c) => c.type === 'Ready');
      return !(ready?.status === 'True' && typeof ready.observedGeneration === 'number' && ready.observedGeneration >= generation);
    })
    .map((o) => o.metadata?.name ?? '');

/** A {@link CheckContext} over the transport `current()` returns (resources found through discovery, cached). */
export function checkContext(current: () => HttpTransport, namespace: string): CheckContext {
  const resources = new Map<string, Promise<ResourceInfo>>();
  return {
    get transport(): Transport {
      return current();
    },
    namespace,
    async list(apiVersion: string, kind: string): Promise<KubeObject[]> {
      const key = `${apiVersion}/${kind}`;
      let info = resources.get(key);
      if (!info) {
        info = discoverResource(current(), apiVersion, kind);
        info.catch(() => resources.delete(key));
        resources.set(key, info);
      }
      const r = await info;
      return (await new ResourceClient<KubeObject>(current(), r, r.namespaced ? namespace : undefined).list()).items;
    },
  };
}
