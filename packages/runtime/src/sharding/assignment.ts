/**
 * The sharder's decision for one object of the sharded kind, as a pure function of its labels, the ring of live
 * shards and the state of the shard it is assigned to:
 *
 * | object | decision |
 * |---|---|
 * | no live shard at all | `wait` (nobody could take it) |
 * | assigned to an uncertain shard (Lease expired or released, not fenced yet) | `wait` |
 * | unassigned | `assign` to the ring's choice (reason `new`) |
 * | assigned to a dead shard | `assign` to the ring's choice, drain label dropped (reason `dead`) |
 * | assigned to a live shard, the ring's choice | `keep` (and `cancelDrain` if a drain was asked for earlier) |
 * | assigned to a live shard, not the ring's choice, not draining | `drain`: set the drain label only |
 * | same, already draining | `keep`: the current shard acknowledges by removing both labels, then it is unassigned |
 *
 * Objects the object controls follow the shard in `owner`: the shard it keeps or is assigned to.
 */
import type { ShardState } from './lease-tracker.js';
import type { ReassignmentReason } from './metrics.js';

/** What the sharder does with one object (see the module comment). */
export type Assignment =
  | { action: 'wait' }
  | { action: 'keep'; owner: string }
  | { action: 'cancelDrain'; owner: string }
  | { action: 'drain'; owner: string; to: string }
  | { action: 'assign'; owner: string; from: string | undefined; reason: ReassignmentReason };

/** Inputs of {@link decideAssignment}. */
export interface AssignmentInput {
  /** The object's shard label value (undefined: unassigned). */
  current: string | undefined;
  /** Whether the object carries the drain label. */
  draining: boolean;
  /** The ring's choice among live shards (undefined: no live shard). */
  desired: string | undefined;
  /** State of a shard by identity. */
  stateOf: (identity: string) => ShardState;
}

/** The decision for one object (see the module comment). */
export function decideAssignment(input: AssignmentInput): Assignment {
  const { current, draining, desired, stateOf } = input;
  if (desired === undefined) return { action: 'wait' };
  if (current === undefined || current === '') return { action: 'assign', owner: desired, from: undefined, reason: 'new' };
  const state = stateOf(current);
  if (state === 'uncertain') return { action: 'wait' };
  if (state === 'dead') return { action: 'assign', owner: desired, from: current, reason: 'dead' };
  if (current === desired) return draining ? { action: 'cancelDrain', owner: current } : { action: 'keep', owner: current };
  return draining ? { action: 'keep', owner: current } : { action: 'drain', owner: current, to: desired };
}
