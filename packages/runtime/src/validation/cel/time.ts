/**
 * The string formats the apiserver turns into CEL timestamps and durations (`format: date-time`, `date`, `duration`),
 * parsed as kube-openapi's strfmt does, into protobuf Timestamp/Duration messages for `@bufbuild/cel`.
 */
import { create } from '@bufbuild/protobuf';
import { DurationSchema, TimestampSchema, type Duration, type Timestamp } from '@bufbuild/protobuf/wkt';

const NS_PER_SECOND = 1_000_000_000n;

/** A Duration message of `ns` nanoseconds (seconds and nanos carry the same sign, as protobuf requires). */
export function durationOfNanos(ns: bigint): Duration {
  return create(DurationSchema, { seconds: ns / NS_PER_SECOND, nanos: Number(ns % NS_PER_SECOND) });
}

export function nanosOfDuration(d: Duration): bigint {
  return d.seconds * NS_PER_SECOND + BigInt(d.nanos);
}

const GO_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's `time.ParseDuration` (`1h30m`, `-1.5s`, `300ms`, `0`), in nanoseconds; undefined when it does not parse. */
export function parseGoDuration(s: string): bigint | undefined {
  let rest = s;
  let sign = 1n;
  if (rest[0] === '-' || rest[0] === '+') {
    if (rest[0] === '-') sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const m = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = BigInt(GO_UNITS[m[3]!]!);
    const frac = m[2] ?? '';
    total += BigInt(m[1] || '0') * unit;
    if (frac !== '') total += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

const STRFMT_UNITS: [string[], bigint][] = [
  [['ns', 'nano'], 1n],
  [['us', 'µs', 'micro'], 1000n],
  [['ms', 'milli'], 1_000_000n],
  [['s', 'sec'], NS_PER_SECOND],
  [['m', 'min'], 60n * NS_PER_SECOND],
  [['h', 'hr', 'hour'], 3600n * NS_PER_SECOND],
  [['d', 'day'], 86400n * NS_PER_SECOND],
  [['w', 'wk', 'week'], 7n * 86400n * NS_PER_SECOND],
];

/** kube-openapi strfmt.ParseDuration: Go's syntax, else `3 days`, `1w2d`-style unit words. */
export function parseStrfmtDuration(s: string): bigint | undefined {
  const go = parseGoDuration(s);
  if (go !== undefined) return go;
  let total = 0n;
  let ok = false;
  for (const m of s.matchAll(/((\d+)\s*([A-Za-zµ]+))/g)) {
    const factor = BigInt(m[2]!);
    const unit = m[3]!.trim().toLowerCase();
    for (const [variants, mult] of STRFMT_UNITS) {
      variants.forEach((v, i) => {
        if ((i === variants.length - 1 && unit.startsWith(v)) || v === unit) {
          ok = true;
          total += factor * mult;
        }
      });
    }
  }
  return ok ? total : undefined;
}

/** A timestamp from RFC 3339 (`2006-01-02T15:04:05[.frac](Z|±hh:mm)`), or a bare local date-time taken as UTC. */
export function parseDateTime(s: string): Timestamp | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})?$/.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac = '', zone = 'Z'] = m;
  return timestampOf(+y!, +mo!, +d!, +h!, +mi!, +sec!, Number(frac.padEnd(9, '0')), zone);
}

/** A timestamp from a full date (`2006-01-02`), midnight UTC. */
export function parseDate(s: string): Timestamp | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return m ? timestampOf(+m[1]!, +m[2]!, +m[3]!, 0, 0, 0, 0, 'Z') : undefined;
}

function timestampOf(y: number, mo: number, d: number, h: number, mi: number, s: number, nanos: number, zone: string): Timestamp | undefined {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  if (new Date(ms).getUTCDate() !== d) return undefined;
  let offset = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  return create(TimestampSchema, { seconds: BigInt(ms / 1000 - offset), nanos });
}
