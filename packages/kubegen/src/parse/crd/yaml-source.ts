import { LineCounter, parseAllDocuments, isNode } from 'yaml';
import type { Document } from 'yaml';
import { InputError } from '../../model/index.js';
import type { SourceLocation } from '../../model/index.js';
import { loadKubectlYaml } from './kubectl-yaml.js';

export type { YamlWarning } from './kubectl-yaml.js';

/** A JSON path inside a document, as keys and indexes: `['spec', 'versions', 0, 'name']`. */
export type JsonPath = (string | number)[];

/**
 * One parsed YAML/JSON document plus what is needed to point at a place in it. `value` is plain JSON data, read as
 * kubectl reads it (`kubectl-yaml.ts`: YAML 1.1's `yes`/`on`/`y` are booleans, the last of duplicate keys wins, a
 * quoted string's under-indented continuation lines are taken); locations are looked up lazily, only for errors.
 *
 * Values come from js-yaml (about 6x faster than the `yaml` package on the corpus); positions, needed only when
 * something is wrong, come from re-reading the file with `yaml`, which keeps a node tree with source ranges.
 */
export class SourceDoc {
  private located?: { doc: Document.Parsed | undefined; lines: LineCounter };

  constructor(
    readonly file: string,
    readonly value: unknown,
    /** The file's text; undefined for an object that has none (read from a cluster): locations are paths only. */
    private readonly text: string | undefined,
    /** 0-based index of the document in its file. */
    readonly index: number,
  ) {}

  /**
   * A document for an object that was never text (a CRD read from a cluster): `source` names it in messages
   * (`cluster:foos.samplecontroller.k8s.io`), and its locations are JSON paths with no line or column.
   */
  static fromObject(source: string, value: unknown): SourceDoc {
    return new SourceDoc(source, value, undefined, 0);
  }

  /** Location of the node at `path` (or of its nearest existing ancestor). */
  locate(path: JsonPath): SourceLocation {
    if (this.text === undefined) return { file: this.file, line: 0, column: 0, path: formatPath(path) };
    if (!this.located) {
      const lines = new LineCounter();
      const docs = parseAllDocuments(this.text, { lineCounter: lines, version: '1.2', schema: 'core', merge: false });
      this.located = { doc: Array.isArray(docs) ? docs[this.index] : undefined, lines };
    }
    const { doc, lines } = this.located;
    return { file: this.file, ...positionIn(doc, lines, path), path: formatPath(path) };
  }

  /**
   * The location of `path`, with line and column worked out only when read (reading them re-parses the file with
   * the position-keeping parser, so a model that is never used in an error message never pays for it).
   */
  lazyLocate(path: JsonPath): SourceLocation {
    let found: SourceLocation | undefined;
    const get = (): SourceLocation => (found ??= this.locate(path));
    return {
      file: this.file,
      path: formatPath(path),
      get line() {
        return get().line;
      },
      get column() {
        return get().column;
      },
    };
  }

  /** An `InputError` pointing at `path`. */
  error(path: JsonPath, detail: string): InputError {
    return new InputError(this.locate(path), detail);
  }
}

/** Line and column of the node at `path` in a parsed document, or of its nearest existing ancestor (0, 0: none). */
export function positionIn(doc: Document.Parsed | undefined, lines: LineCounter, path: JsonPath): { line: number; column: number } {
  for (let n = path.length; doc && n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) {
      const pos = lines.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return { line: 0, column: 0 };
}

/**
 * Positions in `text`'s documents, parsed again with node ranges only when a position is first asked for (the
 * happy path never pays for it): line and column of the node at `path` in document `doc` (0-based), as
 * {@link positionIn} gives them.
 */
export function lazyPositions(text: string): (doc: number, path: JsonPath) => { line: number; column: number } {
  let tree: { docs: Document.Parsed[]; lines: LineCounter } | undefined;
  return (doc, path) => {
    if (!tree) {
      const lines = new LineCounter();
      tree = { docs: parseAllDocuments(text, { lineCounter: lines, version: '1.2', schema: 'core', merge: false }) as Document.Parsed[], lines };
    }
    return positionIn(tree.docs[doc], tree.lines, path);
  };
}

/**
 * YAML nesting the reader accepts: each schema level is two (its mapping and `properties`), so this takes schemas
 * nested far deeper than the 200 levels kube-apiserver is known to accept.
 */
export const MAX_YAML_DEPTH = 1000;
/**
 * A document may expand to at most this many nodes once aliases are followed: a few KB of nested aliases ("billion
 * laughs") would otherwise expand to billions. kubectl refuses such input as excessive aliasing; so do we.
 */
export const MAX_EXPANDED_NODES = 5_000_000;
/** Larger input is refused before it is parsed (kube-apiserver takes request bodies of at most 3 MiB). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * Parses every document of a YAML (or JSON) text as kubectl reads it; empty documents are skipped. Malformed input →
 * InputError at the place the reader stopped. What kubectl accepts but is dubious (an unquoted `yes`, a duplicate key,
 * an under-indented continuation line) is told to `onWarning` with its location.
 */
export function parseDocuments(text: string, file: string, onWarning?: (where: SourceLocation, message: string) => void): SourceDoc[] {
  if (text.length > MAX_INPUT_BYTES) {
    throw new InputError({ file, line: 1, column: 1 }, `input too large: ${text.length} characters (at most ${MAX_INPUT_BYTES}); a CRD is far smaller`);
  }
  let values: unknown[];
  let parsed: string;
  try {
    const read = loadKubectlYaml(text, { filename: file, maxDepth: MAX_YAML_DEPTH });
    values = read.values;
    parsed = read.text;
    for (const w of read.warnings) onWarning?.({ file, line: w.line, column: w.column }, w.message);
  } catch (e) {
    throw malformed(text, file, e);
  }
  const out: SourceDoc[] = [];
  values.forEach((value, index) => {
    if (value === null || value === undefined) return;
    const expanded = expandedSize(value, MAX_EXPANDED_NODES);
    if (expanded > MAX_EXPANDED_NODES) {
      throw new InputError({ file, line: 1, column: 1 }, `excessive aliasing: document ${index + 1} expands to more than ${MAX_EXPANDED_NODES} nodes once its aliases are followed`);
    }
    out.push(new SourceDoc(file, value, parsed, index));
  });
  return out;
}

/**
 * The number of nodes `value` has as a tree (an aliased mapping counts every time it is used), computed over the
 * graph js-yaml builds (an alias is the same object), each object visited once; stops counting past `limit`.
 */
function expandedSize(value: unknown, limit: number): number {
  const memo = new Map<object, number>();
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 1;
    const known = memo.get(v);
    if (known !== undefined) return known;
    memo.set(v, limit + 1); // a cycle (a self-referencing alias) counts as too large
    let n = 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      n += size(child);
      if (n > limit) break;
    }
    memo.set(v, n);
    return n;
  };
  return size(value);
}

/**
 * The error for text the reader refused: js-yaml's reason at the place it stopped (`mark`), which is where the input
 * went wrong; the `yaml` package's position and wording only when js-yaml gives no place.
 */
function malformed(text: string, file: string, cause: unknown): InputError {
  const mark = (cause as { mark?: { line?: number; column?: number } }).mark;
  const reason = (cause as { reason?: string }).reason;
  if (mark?.line !== undefined && reason) return new InputError({ file, line: mark.line + 1, column: (mark.column ?? 0) + 1 }, `malformed YAML: ${reason}`);
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, version: '1.2', schema: 'core', merge: false });
  for (const doc of Array.isArray(docs) ? docs : []) {
    const err = doc.errors[0];
    if (err) {
      const pos = err.linePos?.[0] ?? lines.linePos(err.pos[0]);
      // The message repeats the position (" at line 3, column 5:") and a snippet: the location says it already.
      return new InputError({ file, line: pos.line, column: pos.col }, `malformed YAML: ${firstLine(err.message).replace(/ at line \d+, column \d+:?$/, '')}`);
    }
  }
  return new InputError({ file, line: 0, column: 0 }, `malformed YAML: ${reason ?? 'cannot be read'}`);
}

/** `['spec', 'versions', 0, 'name']` → `spec.versions[0].name`; odd keys are bracketed as JSON strings. */
export function formatPath(path: JsonPath): string {
  let s = '';
  for (const p of path) {
    if (typeof p === 'number') s += `[${p}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(p)) s += s === '' ? p : `.${p}`;
    else s += `[${JSON.stringify(p)}]`;
  }
  return s;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
