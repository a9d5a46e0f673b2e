/**
 * `--from-cluster`: reads the CustomResourceDefinitions of a live cluster (apiextensions.k8s.io/v1, through the
 * runtime's transport and kubeconfig loading) for the CRD front end (`parseCrdObjects`).
 *
 * Which CRDs: every one, or those named with `--crd` plus every one of the groups given with `--group`. A name or a
 * group the cluster does not have is an error naming it, with the closest one the cluster has; all of them are
 * reported at once. Errors reaching the cluster (kubeconfig, connection, RBAC) name the cluster and the request.
 */
import type { KubeObject, Transport } from '@kubegen/runtime';
import { InputError, InputErrors } from '../model/errors.js';
import { clusterSource } from '../parse/crd/cluster.js';
import { closest } from '../model/closest-name.js';
import { CliInputError } from './errors.js';
import type { ClusterInput } from '../config/config-file.js';

export type { ClusterInput } from '../config/config-file.js';

/** What `--from-cluster` talks to the cluster through: a transport, closed when done. */
export interface ClusterConnection {
  transport: Transport;
  /** `context "kind-dev"` or `https://127.0.0.1:6443`: how messages name the cluster. */
  description: string;
  close(): void;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitions, where every CRD of a cluster is. */
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

/** A CRD object as the server returns it. */
export type ClusterCrd = KubeObject & { spec?: { group?: unknown; names?: { plural?: unknown; kind?: unknown } } };

/**
 * Connects as `input` says: the runtime's `loadRestConfig` (kubeconfig, context) and an `HttpTransport` that logs
 * nowhere. A kubeconfig that cannot be loaded is a `CliInputError`.
 */
export async function connectCluster(input: Pick<ClusterInput, 'kubeconfig' | 'context'>): Promise<ClusterConnection> {
  const { HttpTransport, loadRestConfig, nullLogger } = await import('@kubegen/runtime');
  let config;
  try {
    config = loadRestConfig({ ...(input.kubeconfig !== undefined ? { kubeconfig: input.kubeconfig } : {}), ...(input.context !== undefined ? { context: input.context } : {}) });
  } catch (err) {
    throw new CliInputError(`--from-cluster: cannot load the cluster's configuration: ${err instanceof Error ? err.message : String(err)}`);
  }
  const description = input.context !== undefined ? `context "${input.context}" (${config.server})` : config.server;
  const transport = new HttpTransport(config, { logger: nullLogger, timeoutMs: 60_000 });
  return { transport, description, close: () => transport.close() };
}

/**
 * Lists the cluster's CRDs (every page) and returns those `input` selects, in the server's order. Throws an
 * `InputErrors` naming every `--crd` and `--group` that matched nothing, and a `CliInputError` when the list fails.
 */
export async function readClusterCrds(conn: Pick<ClusterConnection, 'transport' | 'description'>, input: Pick<ClusterInput, 'crds' | 'groups'>): Promise<ClusterCrd[]> {
  const { ApiError } = await import('@kubegen/runtime');
  const { describeRequest } = await import('@kubegen/runtime/client');
  const { DynamicClient } = await import('@kubegen/runtime/dynamic');
  // The dynamic client puts back the items' apiVersion and kind, which the server leaves out of a list of CRDs.
  const client = new DynamicClient(conn.transport).resource(CRDS);
  const all: ClusterCrd[] = [];
  try {
    for await (const crd of client.listAll()) all.push(crd);
  } catch (err) {
    const what = err instanceof ApiError && err.request ? describeRequest(err.request) : 'list customresourcedefinitions.apiextensions.k8s.io/v1';
    throw new CliInputError(`--from-cluster: ${what} on ${conn.description} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return selectClusterCrds(all, input);
}

/** The name, group, plural and kind of a CRD object (empty strings for what it lacks). */
function namesOf(crd: ClusterCrd): { name: string; group: string; plural: string; kind: string } {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { name: str(crd.metadata?.name), group: str(crd.spec?.group), plural: str(crd.spec?.names?.plural), kind: str(crd.spec?.names?.kind) };
}

/**
 * The CRDs of `all` named in `crds` or of a group in `groups` (every one when both are empty), in `all`'s order.
 * Every name and group that matches nothing is an `InputError` (`cluster:<name>: …`, `cluster: … group …`, with the
 * closest CRD or group the cluster has, or the CRD whose plural or kind it is), all thrown together.
 */
export function selectClusterCrds(all: readonly ClusterCrd[], input: Pick<ClusterInput, 'crds' | 'groups'>): ClusterCrd[] {
  if (input.crds.length === 0 && input.groups.length === 0) return [...all];
  const named = all.map((crd) => ({ crd, ...namesOf(crd) }));
  const wantNames = new Set(input.crds);
  const wantGroups = new Set(input.groups);
  const errors: InputError[] = [];
  const names = named.map((n) => n.name);
  for (const name of wantNames) {
    if (named.some((n) => n.name === name)) continue;
    const lower = name.toLowerCase();
    const byPluralOrKind = named.find((n) => n.plural === lower || n.kind.toLowerCase() === lower || `${n.plural}.${n.group}` === lower)?.name;
    const hint = byPluralOrKind ?? closest(name, names);
    errors.push(new InputError({ file: clusterSource(name), line: 0, column: 0 }, `no such CustomResourceDefinition${hint ? ` (did you mean ${hint}?)` : ''}`));
  }
  const groups = [...new Set(named.map((n) => n.group))].sort();
  for (const group of wantGroups) {
    if (named.some((n) => n.group === group)) continue;
    const hint = closest(group, groups);
    errors.push(new InputError({ file: 'cluster', line: 0, column: 0 }, `no CustomResourceDefinition of group ${group}${hint ? ` (did you mean ${hint}?)` : ''}`));
  }
  InputErrors.throwIfAny(errors);
  return named.filter((n) => wantNames.has(n.name) || wantGroups.has(n.group)).map((n) => n.crd);
}
