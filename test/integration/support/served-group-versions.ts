/**
 * What each envtest profile serves, read from its running control plane, and the table of it in
 * docs/compatibility.md (between the `envtest-group-versions` markers): a row per group version, a column per
 * profile, and the kinds. Resources served by CustomResourceDefinitions are left out unless the profile installs the
 * CRD itself (the `crd-only` profile's Lease), and so are aggregated APIs, so what tests install does not show.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { CRD_RESOURCE } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { LEASE_CRD } from '@kubegen/runtime/internal/testing/envtest/envtest-lease-shim.js';
import type { EnvtestProfile } from '@kubegen/runtime/internal/testing/envtest/envtest-profiles.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { isNotServed } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject, ResourceInfo, Transport } from '@kubegen/runtime/internal/client/types.js';
import { DiscoveryClient, discoveryFailure } from '@kubegen/runtime/internal/discovery/discovery-client.js';
import { compareVersionPriority } from '@kubegen/runtime/internal/discovery/version-priority.js';
import { parseGroupVersion } from '@kubegen/runtime/internal/discovery/types.js';
import { REPO_ROOT } from './crds.js';

/** The profiles in the table's column order. */
export const TABLE_PROFILES: readonly EnvtestProfile[] = ['full', 'cluster', 'crd-only'];

/** The CRDs a profile installs itself: what they serve is part of the profile. */
const PROFILE_OWN_CRDS: Readonly<Record<EnvtestProfile, readonly string[]>> = { full: [], cluster: [], 'crd-only': [LEASE_CRD.metadata.name] };

/** Group version (`apps/v1`, `v1`) → the kinds served there, sorted. */
export type ServedKinds = Map<string, string[]>;

/** What the control plane behind `transport` serves of its own (see the module comment). */
export async function servedKinds(transport: Transport, profile: EnvtestProfile): Promise<ServedKinds> {
  // CRDs and aggregated APIs listed before and after discovery: one a test adds meanwhile is left out either way.
  const [before, aggregatedBefore] = await Promise.all([crdServed(transport, profile), aggregatedApis(transport)]);
  const result = await new DiscoveryClient(transport).serverGroupsAndResources();
  const [after, aggregatedAfter] = await Promise.all([crdServed(transport, profile), aggregatedApis(transport)]);
  const foreign = (gv: string): boolean => aggregatedBefore.has(gv) || aggregatedAfter.has(gv);
  for (const gv of [...result.failed.keys()].filter(foreign)) result.failed.delete(gv);
  const failure = discoveryFailure(result);
  if (failure) throw failure;
  const served: ServedKinds = new Map();
  for (const [gv, resources] of result.resources) {
    if (foreign(gv)) continue;
    const kinds = resources.filter((r) => !before.has(`${gv}/${r.resource}`) && !after.has(`${gv}/${r.resource}`)).map((r) => r.kind);
    if (kinds.length > 0) served.set(gv, [...new Set(kinds)].sort());
  }
  return served;
}

/** `group/version/plural` of every resource a CRD serves that the profile did not install itself. */
async function crdServed(transport: Transport, profile: EnvtestProfile): Promise<Set<string>> {
  const crds = await new ResourceClient<CrdObject>(transport, CRD_RESOURCE).list();
  const out = new Set<string>();
  for (const crd of crds.items) {
    if (PROFILE_OWN_CRDS[profile].includes(crd.metadata?.name ?? '')) continue;
    for (const v of crd.spec.versions) if (v.served) out.add(`${crd.spec.group}/${v.name}/${crd.spec.names.plural}`);
  }
  return out;
}

const APISERVICES: ResourceInfo = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', listKind: 'APIServiceList', namespaced: false };

/**
 * The group versions (`group/version`) aggregated APIs serve (an APIService with a `service`, as tests register):
 * not the profile's own. None where APIServices are not served (the CRD apiserver).
 */
async function aggregatedApis(transport: Transport): Promise<Set<string>> {
  try {
    const list = await new ResourceClient<KubeObject & { spec?: { group?: string; version?: string; service?: object | null } }>(transport, APISERVICES).list();
    return new Set(list.items.filter((a) => a.spec?.service).map((a) => `${a.spec!.group}/${a.spec!.version}`));
  } catch (err) {
    if (isNotServed(err)) return new Set();
    throw err;
  }
}

/** Core first, then by group name; within a group by Kubernetes version priority (v1 before v1beta1). */
function compareGroupVersions(a: string, b: string): number {
  const ga = parseGroupVersion(a);
  const gb = parseGroupVersion(b);
  if (ga.group !== gb.group) return ga.group === '' ? -1 : gb.group === '' ? 1 : ga.group < gb.group ? -1 : 1;
  return compareVersionPriority(ga.version, gb.version);
}

/** The markdown table of what each profile serves: a row per group version, ✓ per profile, then the kinds. */
export function renderServedTable(byProfile: ReadonlyMap<EnvtestProfile, ServedKinds>): string {
  const gvs = [...new Set([...byProfile.values()].flatMap((m) => [...m.keys()]))].sort(compareGroupVersions);
  const head = `| group version | ${TABLE_PROFILES.map((p) => `\`${p}\``).join(' | ')} | kinds |`;
  const rule = `|---|${TABLE_PROFILES.map(() => ':-:').join('|')}|---|`;
  const rows = gvs.map((gv) => {
    const marks = TABLE_PROFILES.map((p) => (byProfile.get(p)?.has(gv) ? '✓' : ''));
    const kinds = [...new Set(TABLE_PROFILES.flatMap((p) => byProfile.get(p)?.get(gv) ?? []))].sort();
    return `| \`${gv}\` | ${marks.join(' | ')} | ${kinds.join(', ')} |`;
  });
  return [head, rule, ...rows].join('\n');
}

/** docs/compatibility.md. */
export const COMPATIBILITY_DOC = path.join(REPO_ROOT, 'docs', 'compatibility.md');
const BEGIN = '<!-- BEGIN envtest-group-versions: generated by test/integration/compatibility-doc.test.ts (UPDATE_GOLDEN=1 rewrites it) -->';
const END = '<!-- END envtest-group-versions -->';

/** The table now between the markers of docs/compatibility.md; throws when the markers are missing. */
export function documentedTable(doc = fs.readFileSync(COMPATIBILITY_DOC, 'utf8')): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${COMPATIBILITY_DOC}: the markers ${BEGIN} … ${END} are missing`);
  return doc.slice(start + BEGIN.length, end).trim();
}

/** Rewrites the table between the markers of docs/compatibility.md. */
export function writeDocumentedTable(table: string): void {
  const doc = fs.readFileSync(COMPATIBILITY_DOC, 'utf8');
  documentedTable(doc); // the markers are there
  const start = doc.indexOf(BEGIN) + BEGIN.length;
  fs.writeFileSync(COMPATIBILITY_DOC, `${doc.slice(0, start)}\n${table}\n${doc.slice(doc.indexOf(END))}`);
}
