/**
 * What may stand in one segment of a request path (client-go's `rest.IsValidPathSegmentName`): a namespace, a name,
 * a resource, each part of a subresource. Anything else would change which URL a request goes to (`a/b`, `..`), or be
 * decoded into something else by the server (`%2F`), so the dynamic client refuses it before sending anything.
 */

/** Names that may not be a path segment. */
const NAME_MAY_NOT_BE = ['.', '..'];
/** Characters a path segment may not contain. */
const NAME_MAY_NOT_CONTAIN = ['/', '%'];

/** Why `name` cannot be a path segment (`may not contain '/'`), or `[]` when it can. `''` is allowed (no segment). */
export function pathSegmentErrors(name: string): string[] {
  if (NAME_MAY_NOT_BE.includes(name)) return [`may not be '${name}'`];
  return NAME_MAY_NOT_CONTAIN.filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** True when `name` can be one segment of a request path (see {@link pathSegmentErrors}). */
export function isValidPathSegmentName(name: string): boolean {
  return pathSegmentErrors(name).length === 0;
}

/**
 * Throws a `TypeError` naming `what` (`namespace`, `resource name`) and the reasons when `value` cannot be a path
 * segment, as client-go's `invalid resource name "a/b": [may not contain '/']`.
 */
export function checkPathSegment(what: string, value: string): void {
  const errors = pathSegmentErrors(value);
  if (errors.length > 0) throw new TypeError(`invalid ${what} ${JSON.stringify(value)}: ${errors.join(', ')}`);
}
