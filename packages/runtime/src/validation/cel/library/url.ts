/**
 * Kubernetes' URL library (k8s.io/apiserver/pkg/cel/library/urls.go): `url(s)`, `isURL(s)` (an absolute URI or an
 * absolute path, as Go's url.Parse reads it), and `getScheme`, `getHost`, `getHostname`, `getPort`,
 * `getEscapedPath`, `getQuery`.
 */
import { celFunc, celMethod, CelScalar, listType, mapType, type CelFunc, type CelValue } from '@bufbuild/cel';
import { opaqueType } from './opaque.js';
import { succeeds } from './shared.js';

const URL_T = opaqueType('kubernetes.URL');

interface ParsedURL {
  scheme: string;
  host: string;
  path: string;
  rawQuery: string;
}

const RFC3986 = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

function parseURL(s: string): ParsedURL {
  const m = RFC3986.exec(s);
  if (!m) throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URL`);
  const [, scheme = '', authority, path = '', rawQuery = ''] = m;
  if (scheme !== '' && !/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme)) {
    throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: first path segment in URL cannot contain colon`);
  }
  let host = authority ?? '';
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  const port = /^(\[[^\]]*\]|[^:]*)(:.*)?$/.exec(host)?.[2] ?? '';
  if (port !== '' && !/^:\d*$/.test(port)) {
    throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid port ${JSON.stringify(port)} after host`);
  }
  if (scheme === '' && !path.startsWith('/')) {
    throw new Error(`URL must be an absolute path or an absolute URL`);
  }
  return { scheme, host, path: decodePath(path), rawQuery };
}

function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

const valueOf = (v: CelValue): ParsedURL => parseURL(URL_T.text(v));
const hostname = (host: string): string => {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.indexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
};
const port = (host: string): string => /^(?:\[[^\]]*\]|[^:]*):(\d*)$/.exec(host)?.[1] ?? '';

/** Go's url.PathEscape-style escaping of a path (as URL.EscapedPath gives it for a decoded path). */
function escapePath(p: string): string {
  return p.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/gu, (c) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

function parseQuery(q: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (q === '') return out;
  for (const part of q.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const unescape = (x: string): string => {
      try {
        return decodeURIComponent(x.replace(/\+/g, ' '));
      } catch {
        return x;
      }
    };
    const k = unescape(eq >= 0 ? part.slice(0, eq) : part);
    const v = unescape(eq >= 0 ? part.slice(eq + 1) : '');
    out.set(k, [...(out.get(k) ?? []), v]);
  }
  return out;
}

const getter = (name: string, f: (u: ParsedURL) => string): CelFunc =>
  celMethod(name, URL_T.type, [], CelScalar.STRING, function () {
    return f(valueOf(this));
  });

export const URL_FUNCS: CelFunc[] = [
  celFunc('url', [CelScalar.STRING], URL_T.type, (s) => {
    parseURL(s);
    return URL_T.wrap(s);
  }),
  celFunc('isURL', [CelScalar.STRING], CelScalar.BOOL, (s) => succeeds(() => parseURL(s))),
  getter('getScheme', (u) => u.scheme),
  getter('getHost', (u) => u.host),
  getter('getHostname', (u) => hostname(u.host)),
  getter('getPort', (u) => port(u.host)),
  getter('getEscapedPath', (u) => escapePath(u.path)),
  celMethod('getQuery', URL_T.type, [], mapType(CelScalar.STRING, listType(CelScalar.STRING)), function () {
    return parseQuery(valueOf(this).rawQuery) as never;
  }),
];
