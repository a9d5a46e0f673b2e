/**
 * Kubernetes' regex library (k8s.io/apiserver/pkg/cel/library/regex.go): `find` and `findAll` with Go's RE2
 * semantics, through `re2js` (a port of RE2/J; `@bufbuild/re2`, which `matches` uses, only answers yes or no).
 * ECMAScript RegExp differs from RE2 in ways rules notice: RE2 has no lookaround or backreferences, accepts
 * `(?i)`-style inline flags and `\pL`/`[[:alpha:]]` classes, and its `$` matches only at the end of text.
 */
import { celMethod, CelScalar, listType, type CelFunc } from '@bufbuild/cel';
import { re2 } from '../../optional-packages.js';

interface GoRegexp {
  find(s: string): string;
  findAll(s: string, n: number): string[];
}

const cache = new Map<string, GoRegexp>();

function compile(pattern: string): GoRegexp {
  let re = cache.get(pattern);
  if (!re) {
    try {
      re = (re2().compile(pattern) as unknown as { re2Input: GoRegexp }).re2Input;
    } catch (e) {
      throw new Error(`Illegal regex: ${(e as Error).message}`);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

export const REGEX_FUNCS: CelFunc[] = [
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
    return compile(pattern).find(this);
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern) {
    return compile(pattern).findAll(this, -1) ?? [];
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (pattern, n) {
    if (n === 0n) return [];
    return compile(pattern).findAll(this, Number(n)) ?? [];
  }),
];
