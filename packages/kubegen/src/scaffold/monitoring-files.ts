/**
 * The monitoring part of `codegen init`: `config/grafana/*.json` (the dashboards of `kubegen dashboard`) and
 * `config/prometheus/` (kustomization.yaml, monitor.yaml: a ServiceMonitor for the metrics Service,
 * prometheus_rule.yaml: the alerts), kubebuilder's grafana plugin and config/prometheus.
 */
import type { ScaffoldFile } from './files.js';
import { renderTemplate } from './render.js';
import { monitoringFiles } from '../monitoring/index.js';

/** The monitoring files of project `projectName` (already validated), paths relative to the project root. */
export function monitoringScaffoldFiles(projectName: string): ScaffoldFile[] {
  const project = { projectName };
  return [
    ...monitoringFiles(projectName).map((f) => ({ path: `config/${f.path}`, content: f.content })),
    { path: 'config/prometheus/kustomization.yaml', content: renderTemplate('init/prometheus-kustomization.yaml.tmpl', project) },
    { path: 'config/prometheus/monitor.yaml', content: renderTemplate('init/prometheus-monitor.yaml.tmpl', project) },
  ];
}
