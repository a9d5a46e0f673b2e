import type { GroupVersion, KindVersion } from '../model/index.js';
import { camel, pascal } from '../model/index.js';
import { GLOBAL_NAMES, RESERVED_WORDS } from '../model/identifiers.js';

/**
 * Names shared by every generator, so that one module's exports are what another imports. Kinds, plurals, groups
 * and versions are validated by the front ends (identifier-like kinds, DNS names), so these are plain identifiers.
 */

/** The interface names a kind's root and list types have in `types.ts` (decided by the types emitter's graph). */
export type KindTypeNames = (kind: string) => { root: string; list: string };

/**
 * The identifier a kind's generated names start from (its types, client, lister, informer and descriptor): the kind
 * with a capital first letter (Zalando's kind `postgresql` → `Postgresql`). A kind spelled like a global or a reserved
 * word takes its group's first label before it (Crossplane's `Object` of `kubernetes.crossplane.io` →
 * `KubernetesObject`), so no generated name shadows `Object`, `Map` or `Function` where it is imported. The kind's
 * own spelling stays in the data (`kind: "Object"`).
 */
export function kindIdentifier(kindVersion: Pick<KindVersion, 'resource'>): string {
  const { kind } = kindVersion.resource.names;
  const stem = kind.charAt(0).toUpperCase() + kind.slice(1);
  if (!RESERVED_WORDS.has(stem) && !GLOBAL_NAMES.has(stem)) return stem;
  const label = kindVersion.resource.group.split('.')[0] || 'core';
  return pascal(label) + stem;
}

/** `fooResource`, `httpRouteResource`: the descriptor constant exported by `register.ts`. */
export function resourceConstName(kind: string): string {
  return `${lowerCamel(kind)}Resource`;
}

/** `FooInterface`: the typed client interface exported by `client.ts`. */
export function clientInterfaceName(kind: string): string {
  return `${kind}Interface`;
}

/** `samplecontrollerV1alpha1`: the group/version property on the clientset. */
export function groupVersionMember(groupId: string, version: string): string {
  return `${groupId}${pascal(version)}`;
}

/** `SamplecontrollerV1alpha1Client`: the group/version client class. */
export function groupVersionClientName(groupId: string, version: string): string {
  return `${pascal(groupId)}${pascal(version)}Client`;
}

/**
 * `foos`, `certificateRequests`, `httpRoutes`, `envoyProxies`, `cephNfses`: the accessor for a kind on its group
 * client, from the CRD plural cased with the kind's words — the plural is cut wherever a word of the kind starts, as
 * far as the plural spells the kind (`EnvoyProxy` + `envoyproxies` → envoy|proxies; `CephNFS` + `cephnfses` →
 * ceph|nfses), and each piece after the first is capitalised. A plural unlike the kind is camel-cased as it is.
 */
export function pluralMember(kindVersion: KindVersion): string {
  const { kind, plural } = kindVersion.resource.names;
  const lower = kind.toLowerCase();
  let common = 0;
  while (common < plural.length && common < lower.length && plural[common] === lower[common]) common++;
  const cuts: number[] = [];
  let at = 0;
  for (const word of nameWords(kind)) {
    if (at > 0 && at < common) cuts.push(at);
    at += word.length;
  }
  const pieces = [0, ...cuts].map((start, i) => plural.slice(start, cuts[i] ?? plural.length));
  return pieces.map((p, i) => (i === 0 ? camel(p) : pascal(p))).join('');
}

/**
 * The words of a PascalCase name: a run of capitals is one word (an initialism), except a last capital that starts a
 * lower-case word; digits stay with the word before them. `HTTPRoute` → HTTP, Route; `CephNFS` → Ceph, NFS;
 * `OAuth2Client` → O, Auth2, Client; `IPAddress` → IP, Address.
 */
export function nameWords(name: string): string[] {
  return name.match(/[A-Z]+(?![a-z])[0-9]*|[A-Z]?[a-z0-9]+|[^A-Za-z0-9]+/g) ?? [name];
}

/**
 * Initialism-aware lower camel case, for the identifiers generated from a kind (accessors, descriptor constants):
 * every word is lower-cased, words after the first are capitalised — an initialism counts as one word, as the
 * TypeScript style guides write them (`loadHttpUrl`). `HTTPRoute` → `httpRoute`, `GRPCRoute` → `grpcRoute`,
 * `BGPPeer` → `bgpPeer`, `CephNFS` → `cephNfs`, `URLMap` → `urlMap`, `Foo` → `foo`.
 */
export function lowerCamel(name: string): string {
  return nameWords(name)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
}

/** The folder of a group/version inside the output: `<group>/<version>`, or the built-in API package's (`core/v1`). */
export function groupVersionDir(gv: Pick<GroupVersion, 'group' | 'version' | 'pkg'>): string {
  return gv.pkg?.dir ?? `${gv.group}/${gv.version}`;
}
