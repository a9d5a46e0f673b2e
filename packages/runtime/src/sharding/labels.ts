/**
 * The names sharding writes into the cluster, one ring (a sharded controller) at a time:
 *
 * | what | name |
 * |---|---|
 * | shard label on sharded objects (value: the shard's identity) | `shard.kubegen.io/<ring>` |
 * | drain label on sharded objects (value: `true`) | `drain.shard.kubegen.io/<ring>` |
 * | each shard's Lease (in the leases' namespace) | `<ring>-shard-<identity, sanitized>` |
 * | label on every shard Lease of the ring | `shard.kubegen.io/ring=<ring>` |
 * | the Lease of the replica that runs the sharder | `<ring>-sharder` |
 *
 * The ring name is an RFC 1123 label (lower-case alphanumerics and `-`, at most 63 characters): it is the name part
 * of two label keys, a label value and the prefix of Lease names, and that is what all of them accept. A shard's
 * identity is a label value (at most 63 characters, alphanumerics plus `-`, `_`, `.` inside, non-empty).
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../client/types.js';
import { metaNamespaceKey } from '../cache/keys.js';
import { validateDNS1123Label, validateLabelValue } from '../labels/validation.js';

/** Prefix of the shard label key: `shard.kubegen.io/<ring>`. */
export const SHARD_LABEL_PREFIX = 'shard.kubegen.io/';
/** Prefix of the drain label key: `drain.shard.kubegen.io/<ring>`. */
export const DRAIN_LABEL_PREFIX = 'drain.shard.kubegen.io/';
/** Label on every shard Lease naming its ring (`shard.kubegen.io/ring=<ring>`); the sharder selects Leases by it. */
export const RING_LEASE_LABEL = 'shard.kubegen.io/ring';
/** Value of the drain label. */
export const DRAIN_LABEL_VALUE = 'true';

/** Throws a TypeError unless `ring` is a valid ring name (an RFC 1123 label, see the module comment). */
export function validateRingName(ring: string): void {
  const errs = validateDNS1123Label(ring);
  if (errs.length > 0) throw new TypeError(`invalid sharding ring name ${JSON.stringify(ring)}: ${errs.join('; ')}`);
}

/** Throws a TypeError unless `identity` can be a shard identity (a non-empty label value). */
export function validateShardIdentity(identity: string): void {
  const errs = identity === '' ? ['must not be empty'] : validateLabelValue(identity);
  if (errs.length > 0) throw new TypeError(`invalid shard identity ${JSON.stringify(identity)}: ${errs.join('; ')}`);
}

/** `shard.kubegen.io/<ring>`: the label carrying the identity of the shard an object is assigned to. */
export function shardLabel(ring: string): string {
  return SHARD_LABEL_PREFIX + ring;
}

/** `drain.shard.kubegen.io/<ring>`: set by the sharder to ask the current shard to let go of an object. */
export function drainLabel(ring: string): string {
  return DRAIN_LABEL_PREFIX + ring;
}

/** `<ring>-sharder`: the Lease whose holder runs the ring's sharder. */
export function sharderLeaseName(ring: string): string {
  return `${ring}-sharder`;
}

/**
 * `<ring>-shard-<identity>`: the Lease of one shard. The identity is lower-cased and every character a Lease name
 * cannot hold becomes `-`; when that changed anything (or the name would be too long) an 8-hex-digit hash of the
 * identity is appended, so two identities never share a Lease.
 */
export function shardLeaseName(ring: string, identity: string): string {
  return leaseNameWithPrefix(`${ring}-shard-`, identity);
}

/**
 * `<prefix><name>` as a Lease name: `name` lower-cased, every character a Lease name cannot hold made `-`, and an
 * 8-hex-digit hash of `name` appended when that changed anything or the name would be too long (two names never
 * share a Lease). Shard Leases and the cluster fence Leases of cluster sharding are named by it.
 */
export function leaseNameWithPrefix(prefix: string, identity: string): string {
  let part = identity.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  const max = 253 - prefix.length - 9;
  if (part !== identity || part.length > max) {
    const digest = createHash('sha1').update(identity).digest('hex').slice(0, 8);
    part = `${part.slice(0, max).replace(/[-.]+$/, '')}-${digest}`.replace(/^-/, '');
  }
  return prefix + part;
}

/**
 * The key an object is hashed by: its cache key (`metaNamespaceKey`), `namespace/name`, or `name` for cluster-scoped
 * objects. Throws a `TypeError` for an object without `metadata.name`.
 */
export function shardingKey(obj: KubeObject): string {
  return metaNamespaceKey(obj);
}
