/**
 * The API verb and resource of a raw HTTP request to an apiserver (as the apiserver's RequestInfo resolver sees it):
 * `GET` of a collection is `list`, with `watch=true` (or `/watch/` in the path) `watch`; `PATCH` with the apply content
 * type is `apply`; `DELETE` of a collection is `deletecollection`. Resource is `<resource>[/<subresource>]`, with the
 * group (`foos.samplecontroller.k8s.io`); non-resource URLs (`/version`, `/apis`) are `get <path>`.
 */

/** Requests counted by verb and by `"<verb> <resource>"`. */
export interface RequestCounts {
  byVerb: Record<string, number>;
  byResource: Record<string, number>;
}

/** Verb and resource of `method url` (see the module comment). */
export function classifyRequest(method: string, url: string, contentType = ''): { verb: string; resource: string } {
  const u = new URL(url, 'http://x');
  let parts = u.pathname.split('/').filter((p) => p !== '');
  let group: string;
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    parts = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1]!;
    parts = parts.slice(3);
  } else {
    return { verb: method.toLowerCase(), resource: u.pathname };
  }
  let watchPath = false;
  if (parts[0] === 'watch') {
    watchPath = true;
    parts = parts.slice(1);
  }
  // namespaces/<ns>/<resource>/... (but `namespaces` and `namespaces/<ns>` alone are the namespace resource)
  if (parts[0] === 'namespaces' && parts.length >= 3) parts = parts.slice(2);
  const [resource = '', name, subresource] = parts;
  const fullResource = `${resource}${group ? `.${group}` : ''}${subresource ? `/${subresource}` : ''}`;
  const m = method.toUpperCase();
  const watchQuery = ['true', '1'].includes(u.searchParams.get('watch') ?? '');
  let verb: string;
  if (m === 'GET' || m === 'HEAD') verb = watchPath || watchQuery ? 'watch' : name === undefined ? 'list' : 'get';
  else if (m === 'POST') verb = 'create';
  else if (m === 'PUT') verb = 'update';
  else if (m === 'PATCH') verb = contentType.startsWith('application/apply-patch') ? 'apply' : 'patch';
  else if (m === 'DELETE') verb = name === undefined ? 'deletecollection' : 'delete';
  else verb = m.toLowerCase();
  return { verb, resource: fullResource };
}
