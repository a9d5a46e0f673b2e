/**
 * KEP-5866 shard selectors in the fake (`FakeTransport.shardSelectors`): a list or watch with `shardSelector` gets
 * only the objects whose hashed field falls in its ranges, and an invalid selector is refused with the message a
 * filtering apiserver gives ("invalid shard selector: …"), so code that probes for the feature sees what it would
 * see on Kubernetes 1.36 with `ShardedListAndWatch` on. Only the grammar the apiserver accepts:
 * `shardRange(<field>, '<start>', '<end>')` joined by `||`, fields `object.metadata.uid` and
 * `object.metadata.namespace`, bounds `0x` + 16 lowercase hex digits (the end may be `0x10000000000000000`).
 */
import { ApiError, newStatus } from '../../client/errors.js';
import type { KubeObject, Watch, WatchEvent } from '../../client/types.js';
import { HASH_SPACE_END, inRanges, shardHash, type HashRange } from '../../sharding/shard-hash.js';

/** A parsed shard selector: the field hashed and the ranges selected. */
export interface ParsedShardSelector {
  field: 'object.metadata.uid' | 'object.metadata.namespace';
  ranges: HashRange[];
}

const TERM = /^\s*shardRange\(\s*(object\.metadata\.uid|object\.metadata\.namespace)\s*,\s*'([^']*)'\s*,\s*'([^']*)'\s*\)\s*$/;

function invalid(why: string): ApiError {
  // kube-apiserver 1.36 answers 500 with this message (observed); the code may change, the message is the signal.
  return new ApiError(newStatus(500, 'InternalError', `invalid shard selector: ${why}`));
}

function bound(hex: string, which: string): string {
  if (hex === HASH_SPACE_END) return hex;
  if (!/^0x[0-9a-f]{16}$/.test(hex)) throw invalid(`${which} must be a 0x-prefixed 16-digit hex value, got "${hex}"`);
  return hex;
}

/** Parses `expr`; throws the apiserver's "invalid shard selector" error for anything it does not accept. */
export function parseShardSelector(expr: string): ParsedShardSelector {
  let field: ParsedShardSelector['field'] | undefined;
  const ranges: HashRange[] = [];
  for (const term of expr.split('||')) {
    const m = TERM.exec(term);
    if (!m) throw invalid(`unsupported expression ${JSON.stringify(term.trim())}; only shardRange() and || are allowed`);
    if (field && field !== m[1]) throw invalid('all shardRange() terms must hash the same field');
    field = m[1] as ParsedShardSelector['field'];
    ranges.push({ start: bound(m[2]!, 'hexStart'), end: bound(m[3]!, 'hexEnd') });
  }
  return { field: field!, ranges };
}

/** Whether `obj` is selected by `sel`. */
export function matchesShardSelector(obj: KubeObject, sel: ParsedShardSelector): boolean {
  const value = sel.field === 'object.metadata.uid' ? obj.metadata?.uid : obj.metadata?.namespace;
  return value !== undefined && inRanges(shardHash(value), sel.ranges);
}

/** `watch` with only the events of selected objects (bookmarks and errors pass). */
export function filterWatch<T>(watch: Watch<T>, sel: ParsedShardSelector): Watch<T> {
  return {
    stop: (reason) => watch.stop(reason),
    async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
      for await (const e of watch) {
        if (e.type === 'BOOKMARK' || e.type === 'ERROR' || matchesShardSelector(e.object as unknown as KubeObject, sel)) yield e;
      }
    },
  };
}
