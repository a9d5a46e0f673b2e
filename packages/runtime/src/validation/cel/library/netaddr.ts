/**
 * IP addresses and prefixes as Go's net/netip parses and prints them (what the IP and CIDR libraries build on):
 * dotted IPv4 without leading zeros, IPv6 with `::` and a trailing dotted quad, RFC 5952 output.
 */

export interface Addr {
  bytes: Uint8Array; // 4 or 16
  zone: string;
}

/** Parses an address; the error text follows netip's where practical. */
export function parseAddr(s: string): Addr {
  const pct = s.indexOf('%');
  const zone = pct >= 0 ? s.slice(pct + 1) : '';
  const body = pct >= 0 ? s.slice(0, pct) : s;
  if (body.includes(':')) return { bytes: parseV6(s, body), zone };
  if (pct >= 0) throw new Error(`ParseAddr(${JSON.stringify(s)}): IPv4 address with zone`);
  return { bytes: parseV4(s, body), zone };
}

function parseV4(orig: string, s: string): Uint8Array {
  const parts = s.split('.');
  if (s === '') throw new Error(`ParseAddr(${JSON.stringify(orig)}): unable to parse IP`);
  if (parts.length !== 4) throw new Error(`ParseAddr(${JSON.stringify(orig)}): IPv4 address too ${parts.length < 4 ? 'short' : 'long'}`);
  const out = new Uint8Array(4);
  parts.forEach((p, i) => {
    if (!/^\d{1,3}$/.test(p)) throw new Error(`ParseAddr(${JSON.stringify(orig)}): unexpected character`);
    if (p.length > 1 && p[0] === '0') throw new Error(`ParseAddr(${JSON.stringify(orig)}): IPv4 field has octet with leading zero`);
    const n = Number(p);
    if (n > 255) throw new Error(`ParseAddr(${JSON.stringify(orig)}): IPv4 field has value >255`);
    out[i] = n;
  });
  return out;
}

function parseV6(orig: string, s: string): Uint8Array {
  const bad = (why: string): never => {
    throw new Error(`ParseAddr(${JSON.stringify(orig)}): ${why}`);
  };
  const halves = s.split('::');
  if (halves.length > 2) bad('multiple :: in address');
  const groups = (h: string): number[] => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    parts.forEach((p, i) => {
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(orig, p);
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) bad(p === '' ? 'unexpected character' : 'each colon-separated field must have at least one digit');
        out.push(parseInt(p, 16));
      }
    });
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (halves.length === 1 && head.length !== 8) bad('address string too short');
  if (halves.length === 2 && head.length + tail.length > 7) bad('address string too long');
  const all = [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

export const is4In6 = (a: Addr): boolean => a.bytes.length === 16 && a.bytes.slice(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;

/** netip's Addr.String(). */
export function formatAddr(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4) return [...b].join('.');
  if (is4In6(a)) return `::ffff:${[...b.slice(12)].join('.')}`;
  const g = Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]): string => xs.map((x) => x.toString(16)).join(':');
  const text = bestStart < 0 ? hex(g) : `${hex(g.slice(0, bestStart))}::${hex(g.slice(bestStart + bestLen))}`;
  return a.zone ? `${text}%${a.zone}` : text;
}

export interface Prefix {
  addr: Addr;
  bits: number;
}

export function parsePrefix(s: string): Prefix {
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw new Error(`netip.ParsePrefix(${JSON.stringify(s)}): no '/'`);
  const addr = parseAddr(s.slice(0, slash));
  if (addr.zone) throw new Error(`netip.ParsePrefix(${JSON.stringify(s)}): IPv6 zones cannot be present in a prefix`);
  const bitsText = s.slice(slash + 1);
  const max = addr.bytes.length * 8;
  if (!/^(0|[1-9]\d*)$/.test(bitsText) || Number(bitsText) > max) {
    throw new Error(`netip.ParsePrefix(${JSON.stringify(s)}): bad bits after slash: ${JSON.stringify(bitsText)}`);
  }
  return { addr, bits: Number(bitsText) };
}

export function maskedAddr(a: Addr, bits: number): Addr {
  const out = new Uint8Array(a.bytes);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i]! &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return { bytes: out, zone: '' };
}

export function prefixContains(p: Prefix, a: Addr): boolean {
  if (a.bytes.length !== p.addr.bytes.length) return false;
  const m1 = maskedAddr(p.addr, p.bits).bytes;
  const m2 = maskedAddr(a, p.bits).bytes;
  return m1.every((x, i) => x === m2[i]);
}
