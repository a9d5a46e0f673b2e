import type { KindVersion } from '../model/index.js';
import { camel, pascal } from '../model/index.js';

/**
 * Names shared by every generator, so that one module's exports are what another imports. Kinds, plurals, groups
 * and versions are validated by the front ends (identifier-like kinds, DNS names), so these are plain identifiers.
 */

/** The interface names a kind's root and list types have in `types.ts` (decided by the types emitter's graph). */
export type KindTypeNames = (kind: string) => { root: string; list: string };

/** `fooResource`: the descriptor constant exported by `register.ts`. */
export function resourceConstName(kind: string): string {
  return `${lowerFirst(kind)}Resource`;
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

/** `foos`, `certificateRequests`: the accessor for a kind on its group client, from the CRD plural. */
export function pluralMember(kv: KindVersion): string {
  const { kind, plural } = kv.resource.names;
  if (plural.startsWith(kind.toLowerCase())) return lowerFirst(kind) + plural.slice(kind.length).replace(/[^a-z0-9]/g, '');
  return camel(plural);
}

export function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/** The folder of a group/version inside the output: `<group>/<version>`. */
export function groupVersionDir(group: string, version: string): string {
  return `${group}/${version}`;
}
