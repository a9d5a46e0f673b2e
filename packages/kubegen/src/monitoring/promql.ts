/**
 * A small PromQL reader: the metric names an expression selects, for checking that dashboards and alert rules only
 * refer to series the runtime exports. Not a parser: it skips what cannot hold a metric name (strings, label
 * matchers `{...}`, range and subquery brackets `[...]`, label lists after `by`/`without`/`on`/`ignoring`/
 * `group_left`/`group_right`, numbers and durations, Grafana variables `$x`) and reports every remaining identifier
 * that is neither a function or aggregation (followed by `(`, or by `by`/`without` then `(`) nor a keyword.
 */

/** PromQL words that are never metric names where they stand. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'atan2', 'inf', 'nan']);
/** Keywords followed by a parenthesised list of label names. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

const IDENT = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const NUMBER = /(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)[a-zA-Z0-9]*/y;

/** The metric names `expr` selects, sorted and without duplicates. Throws on an unterminated string or bracket. */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i]!;
    if (ch === '"' || ch === "'" || ch === '`') {
      i = skipString(expr, i);
    } else if (ch === '{') {
      i = skipBalanced(expr, i, '{', '}');
    } else if (ch === '[') {
      i = skipBalanced(expr, i, '[', ']');
    } else if (ch === '#') {
      const nl = expr.indexOf('\n', i);
      i = nl < 0 ? expr.length : nl + 1;
    } else if (ch === '$') {
      IDENT.lastIndex = i + 1;
      i = IDENT.exec(expr) ? IDENT.lastIndex : i + 1;
    } else if (/[0-9.]/.test(ch)) {
      NUMBER.lastIndex = i;
      i = NUMBER.exec(expr) ? NUMBER.lastIndex : i + 1;
    } else if (/[a-zA-Z_:]/.test(ch)) {
      IDENT.lastIndex = i;
      IDENT.exec(expr);
      const word = expr.slice(i, IDENT.lastIndex);
      i = IDENT.lastIndex;
      const next = skipSpace(expr, i);
      if (LABEL_LISTS.has(word)) {
        if (expr[next] === '(') i = skipBalanced(expr, next, '(', ')');
      } else if (KEYWORDS.has(word) || expr[next] === '(' || followedByGrouping(expr, next)) {
        // a keyword, a function call, or an aggregation written `sum by (x) (...)`
      } else {
        names.add(word);
      }
    } else {
      i++;
    }
  }
  return [...names].sort();
}

/** Whether `by (` or `without (` starts at `at` (an aggregation with its grouping before the argument). */
function followedByGrouping(expr: string, at: number): boolean {
  return /^(?:by|without)\s*\(/.test(expr.slice(at, at + 12));
}

function skipSpace(expr: string, i: number): number {
  while (i < expr.length && /\s/.test(expr[i]!)) i++;
  return i;
}

/** Index after the string starting at `start` (backslash escapes, except in backquoted raw strings). */
function skipString(expr: string, start: number): number {
  const quote = expr[start]!;
  for (let i = start + 1; i < expr.length; i++) {
    if (expr[i] === '\\' && quote !== '`') i++;
    else if (expr[i] === quote) return i + 1;
  }
  throw new Error(`unterminated string at offset ${start} in ${JSON.stringify(expr)}`);
}

/** Index after the bracket opened at `start` and closed at the same depth, strings inside skipped. */
function skipBalanced(expr: string, start: number, open: string, close: string): number {
  let depth = 0;
  for (let i = start; i < expr.length; i++) {
    const ch = expr[i]!;
    if (ch === '"' || ch === "'" || ch === '`') {
      i = skipString(expr, i) - 1;
    } else if (ch === open) {
      depth++;
    } else if (ch === close && --depth === 0) {
      return i + 1;
    }
  }
  throw new Error(`unterminated ${open} at offset ${start} in ${JSON.stringify(expr)}`);
}

/** One expression naming a metric that is not in `known`. */
export interface UnknownMetric {
  /** Where the expression is (e.g. `controller-runtime-metrics.json panel "Depth"`). */
  where: string;
  expr: string;
  metric: string;
}

/** Every metric name selected by `queries` that `known` (e.g. the sample names of a scrape) lacks. */
export function unknownMetrics(queries: readonly { where: string; expr: string }[], known: ReadonlySet<string>): UnknownMetric[] {
  return queries.flatMap((q) => metricNames(q.expr).filter((m) => !known.has(m)).map((metric) => ({ where: q.where, expr: q.expr, metric })));
}
