/**
 * How a `ResourceRequest` maps onto the Kubernetes REST API (as client-go's `rest.Request.URL()`):
 *
 *   /api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]            core group ('')
 *   /apis/<group>/<version>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]
 *
 * The namespace segment is present only for a namespaced resource with a non-empty namespace (so an empty one
 * means "all namespaces" for list/watch/deletecollection). Name, namespace and subresource segments are
 * URL-encoded. Query values that are `undefined` are left out; the rest are sent as strings.
 */
import type { QueryValue, ResourceInfo, ResourceRequest, Verb } from './types.js';

/** The HTTP method for each verb. */
export const VERB_METHODS: Readonly<Record<Verb, string>> = {
  get: 'GET',
  list: 'GET',
  watch: 'GET',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
}

/** The path (no query, no server prefix) a request is sent to. */
export function buildRequestPath(req: Pick<ResourceRequest, 'resource' | 'namespace' | 'name' | 'subresource'>): string {
  let path = groupVersionPath(req.resource);
  if (req.resource.namespaced && req.namespace) path += `/namespaces/${encodeURIComponent(req.namespace)}`;
  path += `/${req.resource.resource}`;
  if (req.name !== undefined && req.name !== '') {
    path += `/${encodeURIComponent(req.name)}`;
    if (req.subresource) path += `/${req.subresource.split('/').map(encodeURIComponent).join('/')}`;
  }
  return path;
}

/** `?a=1&b=x` for the defined entries of `query`, or `''` when none is defined. */
export function buildQueryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  let out = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
  }
  return out;
}

/** Path plus query string. */
export function buildRequestUrl(req: ResourceRequest): string {
  return buildRequestPath(req) + buildQueryString(req.query);
}
