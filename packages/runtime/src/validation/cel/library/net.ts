/**
 * Kubernetes' IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go): `ip()`, `isIP()`,
 * `ip.isCanonical()`, `family()`, `isUnspecified()`, `isLoopback()`, `isLinkLocalMulticast()`,
 * `isLinkLocalUnicast()`, `isGlobalUnicast()`, `cidr()`, `isCIDR()`, `containsIP()`, `containsCIDR()`, `ip()`,
 * `masked()`, `prefixLength()`, and `string()` of both.
 */
import { celFunc, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import { type Addr, type Prefix, formatAddr, is4In6, maskedAddr, parseAddr, parsePrefix, prefixContains } from './netaddr.js';
import { opaqueType } from './opaque.js';
import { succeeds } from './shared.js';

const IP = opaqueType('net.IP');
const CIDR = opaqueType('net.CIDR');

/** The library's parseIPAddr: netip plus no zones and no IPv4-mapped IPv6. */
function parseIP(raw: string): Addr {
  let a: Addr;
  try {
    a = parseAddr(raw);
  } catch (e) {
    throw new Error(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (a.zone) throw new Error(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (is4In6(a)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return a;
}

function parseCIDR(raw: string): Prefix {
  let p: Prefix;
  try {
    p = parsePrefix(raw);
  } catch (e) {
    throw new Error(`network address parse error during conversion from string: ${(e as Error).message}`);
  }
  if (is4In6(p.addr)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return p;
}

const addrOf = (v: Parameters<typeof IP.text>[0]): Addr => parseAddr(IP.text(v));
const prefixOf = (v: Parameters<typeof CIDR.text>[0]): Prefix => parsePrefix(CIDR.text(v));
const cidrText = (p: Prefix): string => `${formatAddr(p.addr)}/${p.bits}`;
const b = (a: Addr, i: number): number => a.bytes[i]!;

function isLoopback(a: Addr): boolean {
  return a.bytes.length === 4 ? b(a, 0) === 127 : a.bytes.every((x, i) => x === (i === 15 ? 1 : 0));
}
function isUnspecified(a: Addr): boolean {
  return a.bytes.every((x) => x === 0);
}
function isMulticast(a: Addr): boolean {
  return a.bytes.length === 4 ? (b(a, 0) & 0xf0) === 0xe0 : b(a, 0) === 0xff;
}
function isLinkLocalUnicast(a: Addr): boolean {
  return a.bytes.length === 4 ? b(a, 0) === 169 && b(a, 1) === 254 : b(a, 0) === 0xfe && (b(a, 1) & 0xc0) === 0x80;
}
function isLinkLocalMulticast(a: Addr): boolean {
  return a.bytes.length === 4 ? b(a, 0) === 224 && b(a, 1) === 0 && b(a, 2) === 0 : b(a, 0) === 0xff && (b(a, 1) & 0x0f) === 0x02;
}
function isGlobalUnicast(a: Addr): boolean {
  if (a.bytes.length === 4 && a.bytes.every((x) => x === 255)) return false;
  return !isUnspecified(a) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);
}

const ipPredicate = (name: string, f: (a: Addr) => boolean): CelFunc =>
  celMethod(name, IP.type, [], CelScalar.BOOL, function () {
    return f(addrOf(this));
  });

export const NET_FUNCS: CelFunc[] = [
  celFunc('ip', [CelScalar.STRING], IP.type, (s) => IP.wrap(formatAddr(parseIP(s)))),
  celFunc('isIP', [CelScalar.STRING], CelScalar.BOOL, (s) => succeeds(() => parseIP(s))),
  celFunc('ip.isCanonical', [CelScalar.STRING], CelScalar.BOOL, (s) => formatAddr(parseIP(s)) === s),
  celFunc('string', [IP.type], CelScalar.STRING, (v) => IP.text(v)),
  celMethod('family', IP.type, [], CelScalar.INT, function () {
    return addrOf(this).bytes.length === 4 ? 4n : 6n;
  }),
  ipPredicate('isUnspecified', isUnspecified),
  ipPredicate('isLoopback', isLoopback),
  ipPredicate('isLinkLocalMulticast', isLinkLocalMulticast),
  ipPredicate('isLinkLocalUnicast', isLinkLocalUnicast),
  ipPredicate('isGlobalUnicast', isGlobalUnicast),
  celFunc('cidr', [CelScalar.STRING], CIDR.type, (s) => CIDR.wrap(cidrText(parseCIDR(s)))),
  celFunc('isCIDR', [CelScalar.STRING], CelScalar.BOOL, (s) => succeeds(() => parseCIDR(s))),
  celFunc('string', [CIDR.type], CelScalar.STRING, (v) => CIDR.text(v)),
  celMethod('containsIP', CIDR.type, [CelScalar.STRING], CelScalar.BOOL, function (s) {
    return prefixContains(prefixOf(this), parseIP(s));
  }),
  celMethod('containsIP', CIDR.type, [IP.type], CelScalar.BOOL, function (ip) {
    return prefixContains(prefixOf(this), addrOf(ip));
  }),
  celMethod('containsCIDR', CIDR.type, [CelScalar.STRING], CelScalar.BOOL, function (s) {
    const outer = prefixOf(this);
    const inner = parseCIDR(s);
    return inner.bits >= outer.bits && prefixContains(outer, inner.addr);
  }),
  celMethod('containsCIDR', CIDR.type, [CIDR.type], CelScalar.BOOL, function (c) {
    const outer = prefixOf(this);
    const inner = prefixOf(c);
    return inner.bits >= outer.bits && prefixContains(outer, inner.addr);
  }),
  celMethod('ip', CIDR.type, [], IP.type, function () {
    return IP.wrap(formatAddr(prefixOf(this).addr));
  }),
  celMethod('masked', CIDR.type, [], CIDR.type, function () {
    const p = prefixOf(this);
    return CIDR.wrap(cidrText({ addr: maskedAddr(p.addr, p.bits), bits: p.bits }));
  }),
  celMethod('prefixLength', CIDR.type, [], CelScalar.INT, function () {
    return BigInt(prefixOf(this).bits);
  }),
];
