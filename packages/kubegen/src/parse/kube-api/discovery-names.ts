/**
 * The names discovery gives each built-in resource besides its plural (singular, short names, categories), which
 * neither `k8s.io/api` nor client-go knows: a table taken from Kubernetes' own discovery documents
 * (`discovery-names.json`, whose `source` says from which).
 */
import table from './discovery-names.json' with { type: 'json' };

export interface DiscoveryNames {
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

const resources = (table as { resources: Record<string, DiscoveryNames> }).resources;

/**
 * The names of `<group>/<version>/<resource>` (`''` for the core group). A version no 1.36 apiserver serves any more
 * (`apps/v1beta1`) is not in the table: it gets the names the group's served version of the resource has, which are
 * the ones it had (short names and categories never changed between versions of a built-in resource).
 */
export function discoveryNames(group: string, version: string, resource: string): DiscoveryNames | undefined {
  const exact = resources[`${group}/${version}/${resource}`];
  if (exact) return exact;
  const other = Object.keys(resources).find((k) => k.startsWith(`${group}/`) && k.endsWith(`/${resource}`) && k.split('/').length === 3);
  return other === undefined ? undefined : resources[other];
}
