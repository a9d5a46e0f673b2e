/**
 * What Grafana sends to Prometheus for a dashboard, and alert conditions made to show their operands: the helpers of
 * the real-Prometheus dashboard test (test/integration/prometheus.test.ts).
 */
import type { PrometheusProcess } from './prometheus.js';

/** A panel query of a dashboard: where it is (file, panel title, refId) and its PromQL as written. */
export interface PanelQuery {
  where: string;
  expr: string;
}

interface DashboardJson {
  panels: { title: string; type: string; targets?: { expr: string; refId: string }[] }[];
  templating: { list: { name: string; type: string; definition?: string; multi?: boolean; includeAll?: boolean }[] };
}

/** Every query of every panel of dashboard `file` (its JSON text). */
export function panelQueries(file: string, json: string): PanelQuery[] {
  const d = JSON.parse(json) as DashboardJson;
  return d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${file} panel ${JSON.stringify(p.title)} query ${t.refId}`, expr: t.expr })));
}

/** Grafana's regex escape of a multi-value variable's value (`prometheusSpecialRegexEscape`). */
function regexEscape(v: string): string {
  return v.replace(/[\\^$*+?.()|[\]{}]/g, '\\$&');
}

/**
 * Resolves the query variables of dashboard `json` as Grafana does, in order: each `label_values(selector, label)`
 * is asked of Prometheus (`/api/v1/label/<label>/values?match[]=<selector>` with the variables before it filled in)
 * and must list the value `pick` names for it; a multi-value variable gets the value regex-escaped. Returns the
 * variables' values (without the `$`), and throws naming the variable when a value is not listed.
 */
export async function resolveVariables(json: string, prom: PrometheusProcess, pick: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  const d = JSON.parse(json) as DashboardJson;
  const values: Record<string, string> = {};
  for (const v of d.templating.list) {
    if (v.type !== 'query') continue;
    const m = /^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(v.definition ?? '');
    if (!m) throw new Error(`variable ${v.name}: definition ${JSON.stringify(v.definition)} is not label_values(selector, label)`);
    const selector = substitute(m[1]!, values);
    const listed = await prom.labelValues(m[2]!, selector);
    const wanted = pick[v.name];
    if (wanted === undefined) throw new Error(`variable ${v.name}: the test picks no value for it`);
    if (!listed.includes(wanted)) throw new Error(`variable ${v.name}: label_values(${selector}, ${m[2]}) lists ${JSON.stringify(listed)}, not ${JSON.stringify(wanted)}`);
    values[v.name] = v.multi || v.includeAll ? regexEscape(wanted) : wanted;
  }
  return values;
}

/**
 * `expr` with `$name` / `${name}` replaced from `values` (Grafana's built-ins such as `$__rate_interval` included
 * when `values` has them); throws when a variable is left.
 */
export function substitute(expr: string, values: Readonly<Record<string, string>>): string {
  const out = expr.replace(/\$\{?([a-zA-Z_][a-zA-Z0-9_]*)\}?/g, (whole, name: string) => values[name] ?? whole);
  const left = /\$\{?[a-zA-Z_][a-zA-Z0-9_]*/.exec(out);
  if (left) throw new Error(`no value for ${left[0]} in ${expr}`);
  return out;
}

/**
 * An alert condition with `bool` after each comparison operator outside label matchers and strings (`x > 0.1` →
 * `x > bool 0.1`): instead of only the series past the threshold, it returns every series compared (0 or 1), so an
 * empty result means the condition has nothing to look at, not that the alert is quiet. Operators that already have
 * `bool` are left as they are.
 */
export function withBoolComparisons(expr: string): string {
  let out = '';
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i]!;
    if (ch === '{') {
      const end = closing(expr, i, '{', '}');
      out += expr.slice(i, end);
      i = end;
    } else if (ch === '"' || ch === "'" || ch === '`') {
      const end = stringEnd(expr, i);
      out += expr.slice(i, end);
      i = end;
    } else {
      const op = /^(==|!=|>=|<=|>|<)/.exec(expr.slice(i))?.[1];
      if (op) {
        out += op;
        i += op.length;
        if (!/^\s*bool\b/.test(expr.slice(i))) out += ' bool';
      } else {
        out += ch;
        i++;
      }
    }
  }
  return out;
}

function closing(s: string, from: number, open: string, close: string): number {
  let depth = 0;
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"' || c === "'" || c === '`') i = stringEnd(s, i) - 1;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return i + 1;
  }
  throw new Error(`unterminated ${open} in ${s}`);
}

function stringEnd(s: string, from: number): number {
  const quote = s[from]!;
  for (let i = from + 1; i < s.length; i++) {
    if (s[i] === '\\' && quote !== '`') i++;
    else if (s[i] === quote) return i + 1;
  }
  throw new Error(`unterminated string in ${s}`);
}
