/**
 * The PrometheusRule (monitoring.coreos.com/v1, the Prometheus Operator's) with the alerts of a kubegen controller
 * manager, from a table: each alert is a name, a PromQL condition over the runtime's series, how long it must hold,
 * a severity and a summary/description. Serialised with the `yaml` library, never by pasting text.
 */
import { stringify } from 'yaml';

/** One alert of the table. `expr` is a function of the label matchers that scope it to the manager's job. */
export interface AlertSpec {
  alert: string;
  expr: (sel: string) => string;
  for: string;
  severity: 'warning' | 'critical';
  summary: string;
  description: string;
}

/** Thresholds of the alerts below (documented in docs/monitoring.md; edit the generated YAML to tune them). */
export const ALERT_THRESHOLDS = {
  /** Share of reconciles that fail. */
  reconcileErrorRatio: 0.1,
  /** Keys waiting in one workqueue. */
  workqueueDepth: 100,
  /** Seconds the longest-running worker of a queue has been on one key. */
  longestRunningProcessorSeconds: 600,
  /** Seconds of unfinished work summed over a queue's busy workers. */
  unfinishedWorkSeconds: 1800,
  /** Share of API server requests answered 5xx or not at all. */
  restClientErrorRatio: 0.05,
  /** Share of admission requests answered 5xx. */
  webhookErrorRatio: 0.05,
} as const;

const T = ALERT_THRESHOLDS;
const at = (labels: string): string => `{{ $labels.${labels} }}`;

export const ALERTS: readonly AlertSpec[] = [
  {
    alert: 'ControllerSourcesNotSynced',
    expr: (s) => `min by (namespace, job, controller, source) (kubegen_controller_source_synced{${s}}) == 0`,
    for: '10m',
    severity: 'warning',
    summary: 'A controller waits for a kind it cannot list.',
    description: `Controller ${at('controller')} (${at('namespace')}/${at('job')}) has waited 10 minutes for its source ${at('source')} to sync and reconciles nothing meanwhile: its identity may not list the kind (RBAC) or the kind is not installed. /readyz/controller-${at('controller')} and the manager's log say which.`,
  },
  {
    alert: 'ControllerReconcileErrorsHigh',
    expr: (s) =>
      `sum by (namespace, job, controller) (rate(controller_runtime_reconcile_errors_total{${s}}[5m]))\n` +
      `  / sum by (namespace, job, controller) (rate(controller_runtime_reconcile_total{${s}}[5m])) > ${T.reconcileErrorRatio}`,
    for: '15m',
    severity: 'warning',
    summary: 'A controller fails many of its reconciles.',
    description: `Over ${T.reconcileErrorRatio * 100}% of the reconciles of controller ${at('controller')} (${at('namespace')}/${at('job')}) returned an error for 15 minutes; see its logs.`,
  },
  {
    alert: 'ControllerWorkqueueDepthHigh',
    expr: (s) => `sum by (namespace, job, name) (workqueue_depth{${s}}) > ${T.workqueueDepth}`,
    for: '15m',
    severity: 'warning',
    summary: 'A workqueue holds many keys.',
    description: `Workqueue ${at('name')} of ${at('namespace')}/${at('job')} has held over ${T.workqueueDepth} keys for 15 minutes: reconciles cannot keep up (too few workers, slow or failing reconciles).`,
  },
  {
    alert: 'ControllerWorkqueueDepthGrowing',
    expr: (s) => `sum by (namespace, job, name) (deriv(workqueue_depth{${s}}[15m])) > 0\n  and sum by (namespace, job, name) (workqueue_depth{${s}}) > 10`,
    for: '30m',
    severity: 'warning',
    summary: 'A workqueue keeps growing.',
    description: `Workqueue ${at('name')} of ${at('namespace')}/${at('job')} has been growing for 30 minutes.`,
  },
  {
    alert: 'ControllerWorkqueueStuck',
    expr: (s) => `max by (namespace, job, name) (workqueue_longest_running_processor_seconds{${s}}) > ${T.longestRunningProcessorSeconds}`,
    for: '5m',
    severity: 'warning',
    summary: 'A reconcile has been running for a long time.',
    description: `A worker of workqueue ${at('name')} (${at('namespace')}/${at('job')}) has been on one key for over ${T.longestRunningProcessorSeconds / 60} minutes: a reconcile that hangs (a request without a timeout, a lock).`,
  },
  {
    alert: 'ControllerWorkqueueUnfinishedWorkHigh',
    expr: (s) => `sum by (namespace, job, name) (workqueue_unfinished_work_seconds{${s}}) > ${T.unfinishedWorkSeconds}`,
    for: '10m',
    severity: 'warning',
    summary: 'Work in progress is piling up in a workqueue.',
    description: `Workqueue ${at('name')} of ${at('namespace')}/${at('job')} has over ${T.unfinishedWorkSeconds / 60} minutes of unfinished work: its workers are stuck.`,
  },
  {
    alert: 'ControllerInformerWatchSilent',
    expr: (s) => `max by (namespace, job, name) (kubegen_informer_watch_stalled{${s}}) == 1`,
    for: '10m',
    severity: 'warning',
    summary: 'An informer has received nothing from its watch for a long time.',
    description: `The watch of informer ${at('name')} (${at('namespace')}/${at('job')}) has delivered nothing, not even a bookmark, past its deadline and for 10 minutes since: its cache may be stale. /readyz/informer-watches and the manager's log say since when; look at the network path to the API server.`,
  },
  {
    alert: 'ControllerNoLeader',
    expr: (s) => `sum by (namespace, job, name) (leader_election_master_status{${s}}) == 0`,
    for: '5m',
    severity: 'critical',
    summary: 'No replica holds the leader election lease.',
    description: `No replica of ${at('namespace')}/${at('job')} has led lease ${at('name')} for 5 minutes: nothing is reconciled.`,
  },
  {
    alert: 'ControllerRestClientErrorsHigh',
    expr: (s) =>
      `sum by (namespace, job) (rate(rest_client_requests_total{${s}${s ? ', ' : ''}code=~"5..|<error>"}[5m]))\n` +
      `  / sum by (namespace, job) (rate(rest_client_requests_total{${s}}[5m])) > ${T.restClientErrorRatio}`,
    for: '10m',
    severity: 'warning',
    summary: 'Many API server requests fail.',
    description: `Over ${T.restClientErrorRatio * 100}% of the API server requests of ${at('namespace')}/${at('job')} got a 5xx or no answer for 10 minutes.`,
  },
  {
    alert: 'ControllerWebhookErrorsHigh',
    expr: (s) =>
      `sum by (namespace, job, webhook) (rate(controller_runtime_webhook_requests_total{${s}${s ? ', ' : ''}code=~"5.."}[5m]))\n` +
      `  / sum by (namespace, job, webhook) (rate(controller_runtime_webhook_requests_total{${s}}[5m])) > ${T.webhookErrorRatio}`,
    for: '10m',
    severity: 'warning',
    summary: 'An admission webhook fails many requests.',
    description: `Over ${T.webhookErrorRatio * 100}% of the admission requests to ${at('webhook')} of ${at('namespace')}/${at('job')} failed with 5xx for 10 minutes.`,
  },
];

/** The Prometheus `job` of a scaffolded project's metrics Service (the Service name after kustomize's namePrefix). */
export function projectJob(project: string): string {
  return `${project}-controller-manager-metrics-service`;
}

/** The PrometheusRule object; with `project`, rules only match its metrics Service's job, else any job. */
export function prometheusRule(project?: string): Record<string, unknown> {
  const sel = project === undefined ? '' : `job="${projectJob(project)}"`;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'controller-manager-alerts',
      namespace: 'system',
      labels: { 'control-plane': 'controller-manager', ...(project !== undefined ? { 'app.kubernetes.io/name': project } : {}) },
    },
    spec: {
      groups: [
        {
          name: project === undefined ? 'controller-manager' : `${project}-controller-manager`,
          rules: ALERTS.map((a) => ({
            alert: a.alert,
            expr: a.expr(sel),
            for: a.for,
            labels: { severity: a.severity },
            annotations: { summary: a.summary, description: a.description },
          })),
        },
      ],
    },
  };
}

/** The PrometheusRule as YAML, with a comment header. */
export function prometheusRuleYaml(project?: string): string {
  const header = [
    '# Alerts for the controller manager (kubegen dashboard / codegen init). Thresholds: docs/monitoring.md.',
    '# The Prometheus Operator loads it when its ruleSelector matches these labels (add e.g. `release: prometheus`',
    '# for kube-prometheus-stack).',
  ];
  return `${header.join('\n')}\n${stringify(prometheusRule(project), { lineWidth: 0 })}`;
}
