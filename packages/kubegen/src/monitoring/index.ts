/**
 * Monitoring for a kubegen controller manager: Grafana dashboards and a PrometheusRule, generated from tables
 * (pure functions; `kubegen dashboard` and `codegen init` write them).
 */
import { grafanaDashboards } from './dashboards.js';
import { prometheusRule, prometheusRuleYaml } from './alerts.js';

export { ALERTS, ALERT_THRESHOLDS, prometheusRule, prometheusRuleYaml, projectJob } from './alerts.js';
export type { AlertSpec } from './alerts.js';
export { DASHBOARDS, grafanaDashboards } from './dashboards.js';
export type { DashboardFile } from './dashboards.js';
export { metricNames, unknownMetrics } from './promql.js';
export type { UnknownMetric } from './promql.js';

/** The PrometheusRule's path in the outputs of {@link monitoringFiles}. */
export const PROMETHEUS_RULE_FILE = 'prometheus/prometheus_rule.yaml';

/** Every monitoring file, paths relative to the project's `config/`: `grafana/*.json`, `prometheus/prometheus_rule.yaml`. */
export function monitoringFiles(project?: string): { path: string; content: string }[] {
  return [
    ...grafanaDashboards(project).map((d) => ({ path: `grafana/${d.file}`, content: d.json })),
    { path: PROMETHEUS_RULE_FILE, content: prometheusRuleYaml(project) },
  ];
}

/**
 * Every PromQL expression of the dashboards (panel queries; for a variable, the series selector of its
 * `label_values(<selector>, <label>)`) and of the PrometheusRule, with where it is: what the metric checks read.
 */
export function monitoringQueries(project?: string): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const d of grafanaDashboards(project)) {
    const json = JSON.parse(d.json) as { panels: { title: string; targets?: { expr: string }[] }[]; templating: { list: { name: string; definition?: string }[] } };
    for (const p of json.panels) for (const t of p.targets ?? []) out.push({ where: `${d.file} panel ${JSON.stringify(p.title)}`, expr: t.expr });
    for (const v of json.templating.list) {
      const m = v.definition === undefined ? null : /^label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$/.exec(v.definition);
      if (m) out.push({ where: `${d.file} variable ${v.name}`, expr: m[1]! });
    }
  }
  const rule = prometheusRule(project) as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } };
  for (const g of rule.spec.groups) for (const r of g.rules) out.push({ where: `PrometheusRule alert ${r.alert}`, expr: r.expr });
  return out;
}
