/**
 * Kubernetes' semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go, version 1): `semver(s[, normalize])`,
 * `isSemver(s[, normalize])`, `major()`, `minor()`, `patch()`, `isGreaterThan`, `isLessThan`, `compareTo`, with
 * semver.org precedence (build metadata ignored, so `==` ignores it too, as the server's Semver type does).
 */
import { celFunc, celMethod, CelScalar, type CelFunc, type CelValue } from '@bufbuild/cel';
import { opaqueType } from './opaque.js';
import { comparisonMethods, succeeds } from './shared.js';

const SEMVER = opaqueType('kubernetes.Semver');

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
}

const NUM = '(0|[1-9]\\d*)';
const PRE_ID = '(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)';
const STRICT = new RegExp(`^${NUM}\\.${NUM}\\.${NUM}(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?$`);

function parseSemver(s: string, normalize: boolean): Version {
  let v = s;
  if (normalize) {
    if (v.startsWith('v')) v = v.slice(1);
    const m = /^([0-9.]+)(.*)$/.exec(v);
    if (m) {
      const parts = m[1]!.split('.');
      while (parts.length < 3) parts.push('0');
      v = parts.map((p) => (/^\d+$/.test(p) ? String(BigInt(p)) : p)).join('.') + m[2]!;
    }
  }
  const m = STRICT.exec(v);
  if (!m) throw new Error(`No Major.Minor.Patch elements found`);
  return { major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!), pre: m[4] ? m[4].split('.') : [] };
}

function compare(a: Version, b: Version): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

const text = (v: Version): string => `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}`;
const valueOf = (v: CelValue): Version => parseSemver(SEMVER.text(v), false);
const ok = (s: string, n: boolean): boolean => succeeds(() => parseSemver(s, n));

export const SEMVER_FUNCS: CelFunc[] = [
  celFunc('semver', [CelScalar.STRING], SEMVER.type, (s) => SEMVER.wrap(text(parseSemver(s, false)))),
  celFunc('semver', [CelScalar.STRING, CelScalar.BOOL], SEMVER.type, (s, n) => SEMVER.wrap(text(parseSemver(s, n)))),
  celFunc('isSemver', [CelScalar.STRING], CelScalar.BOOL, (s) => ok(s, false)),
  celFunc('isSemver', [CelScalar.STRING, CelScalar.BOOL], CelScalar.BOOL, (s, n) => ok(s, n)),
  celMethod('major', SEMVER.type, [], CelScalar.INT, function () {
    return valueOf(this).major;
  }),
  celMethod('minor', SEMVER.type, [], CelScalar.INT, function () {
    return valueOf(this).minor;
  }),
  celMethod('patch', SEMVER.type, [], CelScalar.INT, function () {
    return valueOf(this).patch;
  }),
  ...comparisonMethods(SEMVER.type, (a, b) => compare(valueOf(a), valueOf(b))),
];
