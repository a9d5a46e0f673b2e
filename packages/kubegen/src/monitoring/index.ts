/**
 * Monitoring for a kubegen controller manager: Grafana dashboards and a PrometheusRule, generated from tables
 * (pure functions; `kubegen dashboard` and `codegen init` write them).
 */
import { grafanaDashboards } from './dashboards.js';
import { prometheusRuleYaml } from './alerts.js';

export { ALERTS, ALERT_THRESHOLDS, prometheusRule, prometheusRuleYaml, projectJob } from './alerts.js';
export type { AlertSpec } from './alerts.js';
export { DASHBOARDS, grafanaDashboards } from './dashboards.js';
export type { DashboardFile } from './dashboards.js';
export { metricNames } from './promql.js';

/** The PrometheusRule's path in the outputs of {@link monitoringFiles}. */
export const PROMETHEUS_RULE_FILE = 'prometheus/prometheus_rule.yaml';

/** Every monitoring file, paths relative to the project's `config/`: `grafana/*.json`, `prometheus/prometheus_rule.yaml`. */
export function monitoringFiles(project?: string): { path: string; content: string }[] {
  return [
    ...grafanaDashboards(project).map((d) => ({ path: `grafana/${d.file}`, content: d.json })),
    { path: PROMETHEUS_RULE_FILE, content: prometheusRuleYaml(project) },
  ];
}
