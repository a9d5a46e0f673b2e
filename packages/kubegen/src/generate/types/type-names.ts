/**
 * The names of a group/version's generated types (`TypeGraph` builds the shapes, this names them). The contract:
 *
 * - A field's type is named after the field: its parent type's name + the field name in PascalCase (`FooSpec` +
 *   `template` → `FooSpecTemplate`). An array's items take the field name in the singular where the English plural
 *   is regular (`rules` → `…Rule`, see `singular`); map values add nothing. So a child's name extends its parent's,
 *   and a kind's own types start with the kind.
 * - Clashes are settled by meaning before numbers: beside a field `filter`, the items of `filters` are
 *   `…FiltersItem`; a map value that needs it is `…Value`, a field whose name is taken (a reserved word, a global, a
 *   kind's list, client or lister type) `…Field`. A numeric suffix is the last resort (names spelled alike, such as
 *   the fields `fooBar` and `foo-bar`).
 * - A name longer than {@link MAX_TYPE_NAME} starts again from the kind: `<Kind>` + the field (+ the fields above
 *   it, one by one, while that is taken); its children extend that name in turn.
 * - A shape several fields share (identical sub-schemas share one interface) is named for what the fields have in
 *   common: the leading and trailing words of their own names (`ElasticsearchSpec` + `Metadata` for the metadata of
 *   `spec.http.service` and `spec.podDisruptionBudget`; `FooSpecProbe` for `livenessProbe` and `readinessProbe`).
 *   Several kinds' shape starts with no kind: only with the words the kinds' names begin with when that is not a kind
 *   (CephCluster's and CephNFS's conditions: `CephStatusCondition`), and without a leading `Spec` (Issuer's and
 *   ClusterIssuer's `spec.acme`: `Acme`); it is never one word too general to say what it is (`Type`), never a
 *   phrase's tail (`AndKey`, though a whole field's name is fine: Cilium's `toPorts`), never a runtime name the file
 *   imports. When the fields have no such name, the shape is shared only where a name fits: the fields are grouped
 *   by the last word of their own names (Istio's `route[].destination` and `mirrors[].destination`:
 *   `VirtualServiceSpecHttpDestination`), a group with nothing more in common by field (the same field of several
 *   kinds is one, named without the kind), and every group but the first (its first field: shortest path, then
 *   shortest name, then A–Z) types its fields with a copy of the shape (`shape-copies.ts`): a RayCluster's `head`
 *   and `worker` are two interfaces, and no field's type is named after another field.
 * - A name never reads as another kind's: a one-kind shape's name starts with no longer kind name than its own
 *   (`Workflow` + `TemplateRef` is taken for kind WorkflowTemplate's), a shared shape's with none.
 * - A literal union (an enum) that types several fields is one named type, named by the same rules.
 * - A kind's own names may be runtime names (Volcano's `JobSpec`): a file that imports the runtime's as well imports
 *   it aliased (`RuntimeNames`). Nothing else of the runtime's is reserved.
 *
 * A type is named once every type that uses it is named, in a fixed order (shortest path first, then by path name),
 * so names do not depend on the order of properties; generation is deterministic.
 */
import { firstFreeName, isUsableName, pascalSegment } from '../emit-util.js';
import { nameWords } from '../names.js';
import { cmp, commonPrefix, commonSuffix, CONNECTIVES, isGeneric, kindless, kindsPrefix, nameWordCount, segments } from './name-parts.js';
import type { Candidate, Stem } from './name-parts.js';
import { copyEnumDef, copyObjectDef } from './shape-copies.js';
import type { EnumDef, ObjectDef, TypeRef } from './type-ref.js';
import { collectEdges, groupBy, pathInfo, placeDeclarations, resolveSiblings, type Edge, type Node } from './type-uses.js';

export { singular } from './name-parts.js';

type ObjRef = Extract<TypeRef, { kind: 'obj' }>;
type LitRef = Extract<TypeRef, { kind: 'lit' }>;

/** Type names longer than this start again from the kind (see the module comment). */
export const MAX_TYPE_NAME = 64;

/** What the naming needs from the graph. */
export interface NamingInput {
  /** Each kind's root and list interfaces, already named. */
  kinds: { kind: string; root: ObjectDef; list: ObjectDef }[];
  /** Every interface in emission order (roots first). */
  ordered: ObjectDef[];
  /** Names nothing else may take (the kinds' client, lister and informer types). */
  reserved: Iterable<string>;
  /**
   * The runtime names the file imports (`ObjectMeta`, the core types it uses): a name of no kind never takes one (a
   * Strimzi container template is no `Container`); a kind's own names may, the import is then aliased.
   */
  imported: ReadonlySet<string>;
  /** Give literal unions used by several fields a name. */
  enums: boolean;
}

/**
 * Names every interface of `input.ordered` (except the kinds' roots and lists) and the literal unions used by several
 * fields; sets `ObjectDef.name`, `TypeRef` `named` and `ObjectDef.after`. Where a shape's fields share no name it
 * puts copies of the shape in the graph (reachable from the roots like any interface; see `copies`).
 */
export class TypeNamer {
  private readonly taken = new Set<string>();
  /** Every name claimed (`claim`), the kinds' roots and lists included: what the group-version's types declare. */
  readonly declared = new Set<string>();
  private readonly stems = new Map<ObjectDef, Stem>();
  private readonly info = new Map<ObjectDef, { depth: number; order: string; kinds: Set<string> }>();
  private readonly kindNames: string[];
  private readonly imported: ReadonlySet<string>;
  private readonly enums: boolean;
  /** Every field's use of a type to name, and the node (type) each names; copies add theirs. */
  private readonly edges: Edge[];
  private readonly nodeOf = new Map<Edge, Node>();
  /** The copies of shared shapes made so far (see `shape-copies.ts`), in the order made. */
  readonly copies: ObjectDef[] = [];

  constructor(input: NamingInput) {
    this.kindNames = input.kinds.map((k) => k.kind);
    this.imported = input.imported;
    this.enums = input.enums;
    for (const n of input.reserved) this.taken.add(n);
    for (const k of input.kinds) {
      this.taken.add(k.root.name).add(k.list.name);
      this.declared.add(k.root.name).add(k.list.name);
      this.stems.set(k.root, { anchor: k.root.name, chain: [] });
      this.stems.set(k.list, { anchor: k.list.name, chain: [] });
    }
    const pascal = new Map<string, string>();
    const pascalOf = (segment: string): string => pascal.get(segment) ?? pascal.set(segment, pascalSegment(segment)).get(segment)!;
    for (const d of input.ordered) this.info.set(d, pathInfo(d, pascalOf));
    this.edges = collectEdges(input.ordered, input.enums);
    const nodes = this.nodes(this.edges);
    resolveSiblings(this.edges, nodes);
    this.nameAll(nodes, new Set(input.kinds.flatMap((k) => [k.root, k.list])));
    placeDeclarations([...input.ordered, ...this.copies], this.edges);
  }

  /**
   * Claims the first free of `candidates` (else the first with a number); `avoid` lists more names not to take (the
   * runtime names a file imports, for names declared beside the graph's).
   */
  claim(candidates: readonly string[], avoid?: ReadonlySet<string>): string {
    const name = firstFreeName(candidates, avoid ? new Set([...this.taken, ...avoid]) : this.taken);
    this.taken.add(name);
    this.declared.add(name);
    return name;
  }

  /**
   * The names, best first, a type declared for `parent.field` would take (through `arrays` array levels, in a map
   * or not): `<parent><Field>`, then its meaning-based alternative. For the marked types' element aliases.
   */
  fieldCandidates(parent: ObjectDef, field: string, arrays: number, map: boolean): string[] {
    const { seg, alt } = segments(field, arrays, map);
    return [...this.candidates(parent, seg), ...this.candidates(parent, alt)].map((c) => c.name);
  }

  private nodes(edges: Edge[]): Node[] {
    const byDef = new Map<ObjectDef, Node>();
    const byValues = new Map<string, Node>();
    let seq = 0;
    for (const e of edges) {
      let node: Node | undefined;
      if (e.ref.kind === 'obj') {
        node = byDef.get(e.ref.def);
        if (!node) {
          const i = this.info.get(e.ref.def)!;
          node = { def: e.ref.def, edges: [], parents: new Set(), kinds: i.kinds, depth: i.depth, order: i.order, seq: seq++ };
          byDef.set(e.ref.def, node);
        }
      } else {
        const key = JSON.stringify(e.ref.values);
        node = byValues.get(key);
        if (!node) {
          node = { def: { name: '', values: e.ref.values }, edges: [], parents: new Set(), kinds: new Set(), depth: Infinity, order: '', seq: seq++ };
          byValues.set(key, node);
        }
        const p = this.info.get(e.parent)!;
        const order = p.order + e.seg;
        if (p.depth + 1 < node.depth || (p.depth + 1 === node.depth && order < node.order)) [node.depth, node.order] = [p.depth + 1, order];
        for (const k of p.kinds) node.kinds.add(k);
      }
      node.edges.push(e);
      node.parents.add(e.parent);
    }
    // A literal union is named only when several fields use it; the others stay inline.
    const enums = [...byValues.values()].filter((n) => n.edges.length > 1);
    for (const n of enums) for (const e of n.edges) (e.ref as LitRef).named = n.def as EnumDef;
    const nodes = [...byDef.values(), ...enums];
    for (const n of nodes) for (const e of n.edges) this.nodeOf.set(e, n);
    return nodes;
  }

  /** Names `nodes` parents first, by priority among those whose parents are all named (`named`: the roots). */
  private nameAll(nodes: Node[], named: Set<ObjectDef>): void {
    const before = (a: Node, b: Node): number => a.depth - b.depth || cmp(a.order, b.order) || a.seq - b.seq;
    const waiting = new Map<Node, number>();
    const children = new Map<ObjectDef, Node[]>();
    const ready: Node[] = [];
    for (const n of nodes) {
      const open = [...n.parents].filter((p) => !named.has(p));
      for (const p of open) {
        const list = children.get(p);
        if (list) list.push(n);
        else children.set(p, [n]);
      }
      if (open.length === 0) ready.push(n);
      else waiting.set(n, open.length);
    }
    ready.sort(before);
    while (ready.length > 0) {
      const n = ready.shift()!;
      this.name(n);
      if (!('props' in n.def)) continue;
      for (const c of children.get(n.def) ?? []) {
        const left = waiting.get(c)! - 1;
        waiting.set(c, left);
        if (left > 0) continue;
        // Insert in priority order (binary search).
        let lo = 0;
        let hi = ready.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (before(ready[mid]!, c) < 0) lo = mid + 1;
          else hi = mid;
        }
        ready.splice(lo, 0, c);
      }
    }
    if ([...waiting.values()].some((left) => left > 0)) throw new Error('type graph has a cycle');
  }

  private name(n: Node): void {
    const own = n.edges.map((e) => this.candidates(e.parent, e.seg, e.alt));
    const name = this.nameFor(n, own);
    if (name) this.assign(n.def, name);
    else this.split(n, own);
  }

  /** The name every field of `n` takes, claimed: their own when it is one, else what they have in common, if anything. */
  private nameFor(n: Node, own: readonly Candidate[][]): Candidate | undefined {
    if (new Set(own.map((c) => c[0]!.name)).size === 1) return this.claimCandidate(own[0]!);
    const shared = this.sharedNames(n, own.map((c) => c[0]!)).find((c) => isUsableName(c.name, this.taken) && this.fits(c, n));
    return shared ? this.claimCandidate([shared]) : undefined;
  }

  /**
   * No name fits every field of `n`: the fields that share a name share the type, each other group of fields gets a
   * copy (see the module comment). Groups are named in order, the first keeps `n`'s type.
   */
  private split(n: Node, own: readonly Candidate[][]): void {
    const uses = n.edges.map((e, i) => ({ e, c: own[i]! })).sort((a, b) => {
      const pa = this.info.get(a.e.parent)!;
      const pb = this.info.get(b.e.parent)!;
      return pa.depth - pb.depth || a.c[0]!.name.length - b.c[0]!.name.length || cmp(a.c[0]!.name, b.c[0]!.name);
    });
    const groups: { uses: typeof uses; name: Candidate }[] = [];
    for (const byWord of groupBy(uses, (u) => nameWords(u.c[0]!.name).at(-1)!)) {
      const name = this.nameFor(this.part(n, byWord.map((u) => u.e)), byWord.map((u) => u.c));
      if (name) {
        groups.push({ uses: byWord, name });
        continue;
      }
      for (const byField of groupBy(byWord, (u) => u.c[0]!.stem.chain.join('.'))) {
        const first = byField[0]!.c;
        const one = byField.every((u) => u.c[0]!.name === first[0]!.name);
        groups.push({ uses: byField, name: this.claimCandidate(one ? first : this.withoutKind(first, this.part(n, byField.map((u) => u.e)))) });
      }
    }
    groups.forEach((g, i) => this.assign(i === 0 ? n.def : this.copy(n, g.uses.map((u) => u.e)), g.name));
  }

  /** `n` as seen by some of its fields (`edges`): their parents and kinds. */
  private part(n: Node, edges: Edge[]): Node {
    const kinds = new Set(edges.flatMap((e) => [...this.info.get(e.parent)!.kinds]));
    return { ...n, edges, parents: new Set(edges.map((e) => e.parent)), kinds };
  }

  /**
   * A copy of `n`'s type for `edges` (see `shape-copies.ts`): their refs point at it, and each field of the copy is one
   * more use of the type the original's field has, so that type's name is settled by both.
   */
  private copy(n: Node, edges: readonly Edge[]): ObjectDef | EnumDef {
    if (!('props' in n.def)) {
      const def = copyEnumDef(n.def);
      for (const e of edges) (e.ref as LitRef).named = def;
      return def;
    }
    const src = n.def;
    const def = copyObjectDef(src, -(this.copies.length + 1));
    for (const e of edges) (e.ref as ObjRef).def = def;
    const parents = edges.map((e) => ({ e, i: this.info.get(e.parent)! }));
    const depth = Math.min(...parents.map((p) => p.i.depth));
    const order = parents.filter((p) => p.i.depth === depth).map((p) => p.i.order + p.e.seg).sort(cmp)[0]!;
    this.info.set(def, { depth: depth + 1, order, kinds: new Set(parents.flatMap((p) => [...p.i.kinds])) });
    const theirs = this.edges.filter((e) => e.parent === src);
    collectEdges([def], this.enums).forEach((mine, i) => {
      const their = theirs[i]!;
      [mine.seg, mine.alt] = [their.seg, their.alt];
      this.edges.push(mine);
      const child = this.nodeOf.get(their);
      if (!child) return;
      child.edges.push(mine);
      child.parents.add(def);
      this.nodeOf.set(mine, child);
    });
    this.copies.push(def);
    return def;
  }

  private assign(def: ObjectDef | EnumDef, c: Candidate): void {
    def.name = c.name;
    if ('props' in def) this.stems.set(def, c.stem);
  }

  /** The first free candidate (else the first numbered), claimed; its stem follows the name. */
  private claimCandidate(cands: readonly Candidate[]): Candidate {
    const name = this.claim(cands.map((c) => c.name));
    const found = cands.find((c) => c.name === name);
    if (found) return found;
    const first = cands[0]!;
    const chain = [...first.stem.chain];
    if (chain.length > 0) chain[chain.length - 1] += name.slice(first.name.length);
    return { name, stem: { anchor: chain.length > 0 ? first.stem.anchor : name, chain } };
  }

  /**
   * `<parent><seg>` (then `<parent><alt>`); past the length limit, the parent's anchor (its kind) + `seg`, then + the
   * segments above it one by one.
   */
  private candidates(parent: ObjectDef, seg: string, alt?: string): Candidate[] {
    const stem = this.stems.get(parent)!;
    const out: Candidate[] = [];
    for (const s of alt !== undefined && alt !== seg ? [seg, alt] : [seg]) {
      const name = parent.name + s;
      if (name.length <= MAX_TYPE_NAME) {
        out.push({ name, stem: { anchor: stem.anchor, chain: [...stem.chain, s] } });
        continue;
      }
      // The anchor + the field, then + the fields above it while that is taken (up to the whole name).
      const full = [...stem.chain, s];
      for (let k = 1; k <= full.length; k++) {
        const chain = full.slice(full.length - k);
        out.push({ name: stem.anchor + chain.join(''), stem: { anchor: stem.anchor, chain } });
      }
    }
    return out;
  }

  /** The kind `name` starts with (the longest, word-wise), if any: `WorkflowTemplateRef` → `WorkflowTemplate`. */
  private rootKind(name: string): string | undefined {
    let best: string | undefined;
    for (const k of this.kindNames) {
      if (name.startsWith(k) && (name.length === k.length || /[A-Z0-9]/.test(name[k.length]!)) && k.length > (best?.length ?? 0)) best = k;
    }
    return best;
  }

  /**
   * A cross-kind shape named after its first field keeps no kind in its name (its own fields' types extend it, and
   * are fields of every kind that uses it): the kinds' common leading words + the field's segments.
   */
  private withoutKind(cands: Candidate[], n: Node): Candidate[] {
    const prefix = kindsPrefix([...n.kinds]);
    const out = cands.flatMap((c) => (n.kinds.has(c.stem.anchor) ? kindless(prefix, c.stem.chain) : [c]));
    const fitting = out.filter((c) => this.fits(c, n));
    return fitting.length > 0 ? fitting : out;
  }

  /**
   * Whether `c` may name `n`: a one-kind shape's name starts with that kind and no longer one (`Workflow` +
   * `TemplateRef` would read as kind WorkflowTemplate's); a shape of several kinds' starts with none and is no
   * runtime name the file imports.
   */
  private fits(c: Candidate, n: Node): boolean {
    const root = this.rootKind(c.name);
    if (n.kinds.size === 1) return root === [...n.kinds][0];
    return root === undefined && !this.imported.has(c.name);
  }

  /** Names, best first, for what several fields' own names have in common (see the module comment), if any. */
  private sharedNames(n: Node, own: Candidate[]): Candidate[] {
    const words = own.map((c) => nameWords(c.name));
    // The trailing words stop before each name's anchor: `SpecAcme` for Issuer's and ClusterIssuer's `spec.acme`.
    const room = Math.min(...own.map((c, i) => words[i]!.length - nameWordCount(c.stem.anchor)));
    const all = commonSuffix(words);
    const suffix = room > 0 ? all.slice(Math.max(0, all.length - room)) : [];
    // No thing's name: nothing in common, or the tail of a phrase (`brokerCertChainAndKey`, `certificateAndKey`) that
    // is not every field's whole name (Cilium's `toPorts`).
    if (suffix.length === 0) return [];
    if (CONNECTIVES.has(suffix[0]!) && !n.edges.every((e) => nameWords(e.seg).join(' ') === suffix.join(' '))) return [];
    let prefix = commonPrefix(words);
    const shortest = Math.min(...words.map((w) => w.length));
    prefix = prefix.slice(0, Math.max(0, shortest - suffix.length));
    const kinds = [...n.kinds].sort();
    if (kinds.length > 1) {
      const limit = nameWordCount(kindsPrefix(kinds));
      prefix = prefix.slice(0, Math.min(prefix.length, limit));
      return kindless(prefix.join(''), suffix).filter((c) => !isGeneric(c.name));
    }
    const kind = kinds[0]!;
    const kindWords = nameWordCount(kind);
    return [{ name: [...prefix, ...suffix].join(''), stem: { anchor: kind, chain: [...prefix.slice(kindWords), ...suffix] } }];
  }
}
