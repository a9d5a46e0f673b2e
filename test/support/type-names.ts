/**
 * Reads a generated `types.ts` (plain or with markers) the way a user would: from each kind's root interface, every
 * field's type name. Reports a field typed by a name rooted in another kind (`CephNFSStatusCondition` in a
 * CephCluster), a name that is not about the field (`…NetworkPolicyHead` for `worker`), and declared names ending in
 * a collision number (`TriggerSpecFilter2`) unless the digits are genuine ({@link GENUINE_DIGITS}).
 */
import { nameWords } from 'kubegen/internal/generate/names.js';
import { pascalSegment } from 'kubegen/internal/generate/emit-util.js';
import { singular } from 'kubegen/internal/generate/types/type-names.js';

/** Trailing words whose digits belong to the word (versions, protocols, standards), not to a name clash. */
export const GENUINE_DIGITS = /(?:V\d+(?:(?:alpha|beta)\d+)?|Ipv[46]|S3|Oauth2|Sigv4|Dns01|Http01|Http2|Rfc2136|Route53|Pkcs12|Tls1[0-3]|Sha(?:1|256|512)|Base64|K8s)$/;

interface Decl {
  kind: 'interface' | 'alias';
  /** Interface fields: wire name → type text. Alias: the aliased type text under the key ''. */
  fields: [string, string][];
}

/** The declarations of a generated types.ts. */
export function declarations(ts: string): Map<string, Decl> {
  const out = new Map<string, Decl>();
  const lines = ts.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const iface = /^export interface (\w+)(?: extends [\w$]+)? \{$/.exec(lines[i]!);
    if (iface) {
      const fields: [string, string][] = [];
      for (i++; lines[i] !== '}'; i++) {
        const m = /^ {2}("(?:[^"\\]|\\.)*"|[\w$]+)\??: (.*);$/.exec(lines[i]!);
        if (m) fields.push([m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : m[1]!, m[2]!]);
      }
      out.set(iface[1]!, { kind: 'interface', fields });
      continue;
    }
    const alias = /^export type (\w+) = (.*);$/.exec(lines[i]!);
    if (alias) out.set(alias[1]!, { kind: 'alias', fields: [['', alias[2]!]] });
  }
  return out;
}

/** The names a type text refers to (string literals left out). */
function namesIn(text: string): string[] {
  return text.replace(/"(?:[^"\\]|\\.)*"/g, '""').match(/\b[A-Za-z_$][\w$]*\b/g) ?? [];
}

/** The kind a type name starts with (the longest, word-wise), if any. */
function rootKind(name: string, kinds: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const k of kinds) {
    if (name.startsWith(k) && (name.length === k.length || /[A-Z0-9]/.test(name[k.length]!)) && k.length > (best?.length ?? 0)) best = k;
  }
  return best;
}

/** True when type name `t` is about field `field`: it ends with the field's last word (or its singular), maybe + Item/Value/Field. */
function aboutField(t: string, field: string): boolean {
  const fw = nameWords(pascalSegment(field));
  const last = fw[fw.length - 1]!.toLowerCase();
  const tw = nameWords(t).map((w) => w.toLowerCase());
  const ends = (w: string | undefined): boolean => w !== undefined && (w === last || w === singular(last));
  return ends(tw[tw.length - 1]) || (['item', 'value', 'field'].includes(tw[tw.length - 1]!) && ends(tw[tw.length - 2]));
}

/**
 * Problems with the names of a generated types.ts whose kinds are `kinds`: each names the field and its type. Fields
 * are walked from the kinds' roots; a type reached from several kinds is checked for each.
 */
export function typeNameProblems(ts: string, kinds: readonly string[]): string[] {
  const decls = declarations(ts);
  const problems: string[] = [];
  for (const name of decls.keys()) {
    if (/\d$/.test(name) && !GENUINE_DIGITS.test(name)) problems.push(`${name} ends in a number`);
  }
  const reached = new Map<string, Set<string>>();
  for (const kind of kinds) {
    const queue = [kind];
    const seen = new Set<string>();
    while (queue.length) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      reached.set(name, (reached.get(name) ?? new Set()).add(kind));
      for (const [, text] of decls.get(name)?.fields ?? []) for (const n of namesIn(text)) if (decls.has(n) && n !== kind) queue.push(n);
    }
  }
  for (const [owner, byKinds] of reached) {
    const decl = decls.get(owner)!;
    if (decl.kind !== 'interface') continue;
    for (const [field, text] of decl.fields) {
      if (kinds.includes(owner) && (field === 'apiVersion' || field === 'kind' || field === 'metadata')) continue;
      for (const t of namesIn(text).filter((n) => decls.has(n))) {
        const root = rootKind(t, kinds);
        if (root !== undefined && [...byKinds].some((k) => k !== root)) problems.push(`${owner}.${field}: ${t} is named after kind ${root} (field of ${[...byKinds].join(', ')})`);
        if (!aboutField(t, field)) problems.push(`${owner}.${field}: ${t} is not named after the field`);
      }
    }
  }
  return [...new Set(problems)];
}
