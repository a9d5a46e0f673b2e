/**
 * What a list or watch asks for: namespace, label selector and field selector, parsed once into a predicate, and
 * the opaque `continue` tokens of paged lists.
 */
import { parseFieldSelector } from '../../labels/field-selector.js';
import { parseSelector } from '../../labels/parse-selector.js';
import type { KubeList, KubeObject } from '../../client/types.js';
import { badRequest } from './fake-errors.js';

export interface SelectionOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

/** A predicate over stored objects; throws a 400 `ApiError` if a selector does not parse. */
export function selectionPredicate(namespace: string | undefined, opts: SelectionOptions): (obj: KubeObject) => boolean {
  let labels;
  let fields;
  try {
    labels = parseSelector(opts.labelSelector ?? '');
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  try {
    fields = parseFieldSelector(opts.fieldSelector ?? '');
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  const l = labels;
  const f = fields;
  return (obj) =>
    (!namespace || obj.metadata?.namespace === namespace) && l.matches(obj.metadata?.labels) && (f.empty() || f.matches(obj));
}

interface ContinueToken {
  /** The list's resourceVersion (of the first page). */
  rv: string;
  /** The storage key of the last item returned; the next page starts after it. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 1, ...token })).toString('base64url');
}

export function decodeContinue(s: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Partial<ContinueToken> & { v?: number };
    if (t.v === 1 && typeof t.rv === 'string' && typeof t.start === 'string') return { rv: t.rv, start: t.start };
  } catch {
    // fall through
  }
  throw badRequest(`continue key is not valid: "${s}"`);
}

export interface PageOptions extends SelectionOptions {
  limit?: number;
  continue?: string;
}

/**
 * One page of a list: the matching entries after the continue token's key, at most `limit` of them, with a
 * `continue` token (and, for unfiltered lists, `remainingItemCount`) when more remain. Every page reports the
 * resourceVersion of the first one. Pages continue from the current state, not from a snapshot.
 */
export function paginate(
  sortedEntries: [key: string, obj: KubeObject][],
  predicate: (obj: KubeObject) => boolean,
  opts: PageOptions,
  currentRv: string,
): { items: KubeObject[]; metadata: NonNullable<KubeList<KubeObject>['metadata']> } {
  const token = opts.continue ? decodeContinue(opts.continue) : undefined;
  const matching = sortedEntries.filter(([k, o]) => (!token || k > token.start) && predicate(o));
  const limit = opts.limit && opts.limit > 0 ? opts.limit : matching.length;
  const page = matching.slice(0, limit);
  const rv = token?.rv ?? currentRv;
  const metadata: NonNullable<KubeList<KubeObject>['metadata']> = { resourceVersion: rv };
  if (page.length < matching.length) {
    metadata.continue = encodeContinue({ rv, start: page[page.length - 1]![0] });
    if (!opts.labelSelector && !opts.fieldSelector) metadata.remainingItemCount = matching.length - page.length;
  }
  return { items: page.map(([, o]) => o), metadata };
}
