/**
 * YAML as kubectl reads it. kubectl (sigs.k8s.io/yaml over go-yaml v2, itself a port of libyaml) accepts three
 * things a strict YAML 1.2 reader refuses or reads otherwise, all found in CRDs projects ship:
 * - a quoted scalar whose continuation lines are indented no deeper than its key (or not at all): libyaml folds them
 *   like any other line of the scalar. They are re-indented before parsing (a continuation line's leading spaces are
 *   not part of the value, so the value is the same) and each is reported.
 * - a mapping key given twice: go-yaml keeps the last value; so does this reader, and reports the duplicate.
 * - YAML 1.1 booleans: an unquoted `y`, `Y`, `yes`, `n`, `no`, `on`, `off` (in any of their spellings) is a boolean
 *   to go-yaml v2; it is here too, and reported (a string was probably meant: quote it).
 * Everything else is YAML 1.2's core schema, as before. Reports are warnings with a 1-based line and column.
 */
import { boolYaml11Tag, CORE_SCHEMA, EVENT_ID, getScalarValue, loadAll, parseEvents, SCALAR_STYLE } from 'js-yaml';
import type { Event } from 'js-yaml';

export interface YamlWarning {
  line: number;
  column: number;
  message: string;
}

/** YAML 1.2 core with YAML 1.1's booleans, as go-yaml v2 resolves plain scalars. */
const KUBECTL_SCHEMA = CORE_SCHEMA.withTags(boolYaml11Tag);

/** Plain scalars that are booleans in YAML 1.1 only (YAML 1.2's `true`/`false` spellings are not dubious). */
const YAML11_ONLY_BOOLEANS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'on', 'On', 'ON', 'off', 'Off', 'OFF']);

const YAML11_TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);

export interface KubectlYaml {
  /** The documents' values. */
  values: unknown[];
  /** The text actually parsed (quoted scalars re-indented; same lines as the input): positions refer to it. */
  text: string;
  warnings: YamlWarning[];
}

/** Reads every document of `text` as kubectl would (see the module comment). Throws js-yaml's error when it cannot. */
export function loadKubectlYaml(text: string, opts: { filename: string; maxDepth: number }): KubectlYaml {
  const relaxed = relaxQuotedScalars(text);
  const warnings = [...relaxed.warnings];
  const events = parseEvents(relaxed.text, { filename: opts.filename, maxDepth: opts.maxDepth });
  warnings.push(...scanEvents(events, relaxed.text));
  const values = loadAll(relaxed.text, { schema: KUBECTL_SCHEMA, filename: opts.filename, maxDepth: opts.maxDepth, json: true });
  warnings.sort((a, b) => a.line - b.line || a.column - b.column);
  return { values, text: relaxed.text, warnings };
}

/** Duplicate keys and YAML 1.1 booleans, found in the event stream (which keeps source offsets). */
function scanEvents(events: readonly Event[], text: string): YamlWarning[] {
  const out: YamlWarning[] = [];
  const at = lineIndex(text);
  /** Per open collection: for a mapping, the keys seen and whether the next node is a key. */
  const stack: ({ kind: 'map'; keys: Set<string>; atKey: boolean } | { kind: 'other' })[] = [];
  const node = (): void => {
    const top = stack[stack.length - 1];
    if (top?.kind === 'map') top.atKey = !top.atKey;
  };
  for (const e of events) {
    switch (e.type) {
      case EVENT_ID.MAPPING:
        node();
        stack.push({ kind: 'map', keys: new Set(), atKey: true });
        break;
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.DOCUMENT:
        if (e.type === EVENT_ID.SEQUENCE) node();
        stack.push({ kind: 'other' });
        break;
      case EVENT_ID.POP:
        stack.pop();
        break;
      case EVENT_ID.ALIAS:
        node();
        break;
      case EVENT_ID.SCALAR: {
        const top = stack[stack.length - 1];
        const raw = text.slice(e.valueStart, e.valueEnd);
        const plain = e.style === SCALAR_STYLE.PLAIN && e.tagStart < 0;
        if (top?.kind === 'map' && top.atKey) {
          const key = getScalarValue(text, e);
          const asKey = plain && YAML11_ONLY_BOOLEANS.has(raw) ? String(YAML11_TRUE.has(raw)) : key;
          if (asKey !== key) out.push({ ...at(e.valueStart), message: `unquoted key ${raw} is a boolean in YAML 1.1: kubectl reads the key as "${asKey}"; quote it if "${raw}" is meant` });
          if (top.keys.has(asKey)) out.push({ ...at(e.valueStart), message: `duplicate key ${JSON.stringify(asKey)}: kubectl keeps the last value, and so does kubegen` });
          top.keys.add(asKey);
        } else if (plain && YAML11_ONLY_BOOLEANS.has(raw)) {
          out.push({ ...at(e.valueStart), message: `unquoted ${raw} is a boolean in YAML 1.1, as kubectl reads it (${YAML11_TRUE.has(raw)}); quote it if a string is meant` });
        }
        node();
        break;
      }
    }
  }
  return out;
}

/**
 * Re-indents the continuation lines of quoted scalars that are indented no deeper than the line the scalar starts on
 * (libyaml accepts them, js-yaml refuses them as "deficient indentation"): each such line is indented to the opening
 * quote's column. Comments, block scalars (`|`, `>`) and plain text are passed over.
 */
export function relaxQuotedScalars(text: string): { text: string; warnings: YamlWarning[] } {
  const lines = text.split('\n');
  const warnings: YamlWarning[] = [];
  let blockIndent = -1; // inside a block scalar: lines indented more than this belong to it
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.length - line.trimStart().length;
    if (blockIndent >= 0) {
      if (line.trim() === '' || indent > blockIndent) continue;
      blockIndent = -1;
    }
    let j = indent;
    let flow = 0;
    while (j < line.length) {
      const c = line[j]!;
      const spaced = j + 1 === line.length || line[j + 1] === ' ' || line[j + 1] === '\t';
      if (c === ' ' || c === '\t') j++;
      else if (c === '#') break;
      else if ((c === '-' || c === '?' || c === ':') && spaced) j++; // a sequence entry, a complex key, a value after a quoted key
      else if (c === '[' || c === '{') (flow++, j++);
      else if (c === ']' || c === '}') (flow--, j++);
      else if (c === ',' && flow > 0) j++;
      else if (c === '|' || c === '>') {
        blockIndent = indent;
        break;
      } else if (c === '"' || c === "'") {
        const end = closeQuote(lines, i, j + 1, c);
        if (end === undefined) return { text, warnings }; // unterminated: leave it to the parser to report
        for (let k = i + 1; k <= end.line; k++) {
          const l = lines[k]!;
          const body = l.trimStart();
          if (body === '' || l.length - body.length > indent) continue;
          lines[k] = ' '.repeat(j) + body;
          warnings.push({ line: k + 1, column: 1, message: 'continuation line of a quoted string is indented no deeper than its key; kubectl reads it, strict YAML parsers refuse it' });
        }
        if (end.line > i) {
          i = end.line; // the rest of the closing line holds no new scalar of interest
          break;
        }
        j = end.column + 1;
      } else {
        // A plain scalar: a key when `: ` follows it (scanning goes on after it), else a value running to the end of
        // the line (or, in a flow collection, to the next `,`, `]` or `}`). Quotes inside it are its own text.
        const stop = plainEnd(line, j, flow > 0);
        if (stop === undefined) break;
        j = stop;
      }
    }
  }
  return { text: lines.join('\n'), warnings };
}

/** Where the plain scalar starting at `from` ends: at a `: ` (its key's colon) or, in flow, a `,`/`]`/`}`; undefined when it runs to the end of the line. */
function plainEnd(line: string, from: number, inFlow: boolean): number | undefined {
  for (let j = from; j < line.length; j++) {
    const c = line[j]!;
    if (c === ':' && (j + 1 === line.length || line[j + 1] === ' ' || line[j + 1] === '\t')) return j;
    if (c === '#' && (line[j - 1] === ' ' || line[j - 1] === '\t')) return undefined;
    if (inFlow && (c === ',' || c === ']' || c === '}')) return j;
  }
  return undefined;
}

/** The position of the quote closing a scalar opened before (`line`, `from`), or undefined when it never closes. */
function closeQuote(lines: readonly string[], line: number, from: number, quote: string): { line: number; column: number } | undefined {
  for (let i = line; i < lines.length; i++) {
    const l = lines[i]!;
    for (let j = i === line ? from : 0; j < l.length; j++) {
      const c = l[j]!;
      if (quote === '"' && c === '\\') {
        j++;
        continue;
      }
      if (c !== quote) continue;
      if (quote === "'" && l[j + 1] === "'") {
        j++;
        continue;
      }
      return { line: i, column: j };
    }
  }
  return undefined;
}

/** Offset → 1-based line and column. */
function lineIndex(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}
