/**
 * The word-level parts of generated type names (see `type-names.ts`): a field's segment, singulars, common leading
 * and trailing words, and the words too general or too joining to name a thing.
 */
import { pascalSegment } from '../emit-util.js';
import { nameWords } from '../names.js';

/** What a name is made of: the anchor (a kind, or a cross-kind name's leading words) and the segments after it. */
export interface Stem {
  anchor: string;
  chain: string[];
}

/** A possible name, and what it is made of. */
export interface Candidate {
  name: string;
  stem: Stem;
}

/** A field's part of a type name (`Rule` for the items of `rules`) and its meaning-based alternative (`RulesItem`). */
export function segments(field: string, arrays: number, map: boolean): { seg: string; alt: string } {
  let base = field;
  for (let i = 0; i < arrays; i++) base = singular(base);
  return { seg: pascalSegment(base), alt: pascalSegment(field) + (arrays > 0 ? 'Item' : map ? 'Value' : 'Field') };
}

/** Words that join a phrase: a common tail that starts with one names no thing. */
export const CONNECTIVES: ReadonlySet<string> = new Set(['And', 'Or', 'Of', 'To', 'By', 'For', 'From', 'With', 'In', 'On', 'At', 'If', 'Per', 'Not', 'No', 'Than']);

/**
 * A name of no kind: `prefix` + `chain`. Without a prefix, a leading `Spec` goes (the desired state of every kind;
 * Issuer's and ClusterIssuer's `spec.acme` is `Acme`), with it kept as the second choice.
 */
export function kindless(prefix: string, chain: string[]): Candidate[] {
  const out = [{ name: prefix + chain.join(''), stem: { anchor: prefix, chain } }];
  const rest = chain.slice(1);
  if (prefix === '' && chain[0] === 'Spec' && rest.length > 0 && !isGeneric(rest.join(''))) out.unshift({ name: rest.join(''), stem: { anchor: '', chain: rest } });
  return out;
}

/** Words too general to name a thing by themselves: fields called `type` in different places are different types. */
const GENERIC: ReadonlySet<string> = new Set([
  'Type', 'Kind', 'Name', 'Value', 'Values', 'Key', 'Mode', 'Version', 'Status', 'Spec', 'Item', 'Items', 'Config',
  'Data', 'Ref', 'Field', 'Phase', 'State', 'Reason', 'Message', 'Format', 'Level', 'Action', 'Operator', 'Default',
  'Path', 'Source', 'Target', 'Info', 'Options', 'Settings', 'Parameters', 'Params', 'Properties', 'Template', 'Policy',
]);

export function isGeneric(name: string): boolean {
  return GENERIC.has(name);
}

/** The leading words several kinds' names have in common, unless they are a whole kind's name (`Ceph` for CephCluster, CephNFS). */
export function kindsPrefix(kinds: readonly string[]): string {
  const common = commonPrefix(kinds.map((k) => nameWords(k))).join('');
  return kinds.includes(common) ? '' : common;
}

export function nameWordCount(name: string): number {
  return name === '' ? 0 : nameWords(name).length;
}

export function commonPrefix(lists: readonly string[][]): string[] {
  const out: string[] = [];
  for (let i = 0; lists.every((l) => i < l.length && l[i] === lists[0]![i]); i++) out.push(lists[0]![i]!);
  return out;
}

export function commonSuffix(lists: readonly string[][]): string[] {
  return commonPrefix(lists.map((l) => [...l].reverse())).reverse();
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The singular of a field name whose English plural is regular; anything else is left as it is. `rules` → `rule`,
 * `policies` → `policy`, `addresses` → `address`, `matches` → `match`, `boxes` → `box`; `status`, `data`,
 * `aliases`, `heroes` and `ingress` stay (the `-ses`/`-oes` endings are ambiguous, `-us`/`-is`/`-ss` are not plurals).
 */
export function singular(word: string): string {
  if (word.length <= 3) return word;
  // Latin plurals in -ices whose singular is -ex/-ix (Numaflow's `vertices`); other -ices words (`devices`,
  // `services`, `slices`) lose their s.
  const latin = /(vert|ind|vort|ap|simpl|matr|append)ices$/i.exec(word);
  if (latin) return word.slice(0, -4) + (/(matr|append)ices$/i.test(word) ? 'ix' : 'ex');
  if (/[^aeiou]ies$/.test(word)) return word.slice(0, -3) + 'y';
  if (/sses$/.test(word)) return word.slice(0, -2);
  if (/(x|ch|sh|z)es$/.test(word)) return word.slice(0, -2);
  if (/(ses|oes|us|is|ss)$/.test(word) || !word.endsWith('s')) return word;
  return word.slice(0, -1);
}
