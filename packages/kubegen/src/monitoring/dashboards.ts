/**
 * The three dashboards of a kubegen controller manager, as tables (see `grafana.ts` for the JSON they become), after
 * kubebuilder's grafana plugin: controller-runtime-metrics.json (reconciles, workqueues and informers),
 * controller-resources-metrics.json (the Node.js process) and controller-api-metrics.json (API client, leader
 * election, webhooks). Every metric name here is one the runtime exports (packages/runtime/src/…/metrics.ts and
 * prom-client's default collectors); an integration test scrapes a running manager and checks each one.
 */
import { buildDashboard } from './grafana.js';
import type { DashboardSpec, PanelSpec, QuerySpec, VariableSpec } from './grafana.js';

/** Label matchers every query carries: the namespace and job picked at the top of the dashboard. */
const JOB = 'namespace=~"$namespace", job=~"$job"';
/** …and the controllers picked (controller metrics and workqueues both carry a `controller` label). */
const CTRL = `${JOB}, controller=~"$controller"`;
const RATE = '[$__rate_interval]';

const VARIABLES: VariableSpec[] = [
  { name: 'namespace', label: 'Namespace', metric: 'controller_runtime_reconcile_total' },
  { name: 'job', label: 'Job', metric: 'controller_runtime_reconcile_total', filter: 'namespace=~"$namespace"' },
];
const CONTROLLER_VARIABLE: VariableSpec = { name: 'controller', label: 'Controller', metric: 'controller_runtime_reconcile_total', filter: JOB, multi: true };

/** p50, p90 and p99 of histogram `metric` (without `_bucket`) grouped by `by`, as three queries. */
function quantiles(metric: string, selector: string, by: string): QuerySpec[] {
  return [0.5, 0.9, 0.99].map((q) => ({
    expr: `histogram_quantile(${q}, sum by (${by}, le) (rate(${metric}_bucket{${selector}}${RATE})))`,
    legend: `p${Math.round(q * 100)} {{${by}}}`,
  }));
}

function latency(title: string, description: string, metric: string, selector: string, by: string): PanelSpec {
  return { title, description, unit: 's', queries: quantiles(metric, selector, by) };
}

const runtime: DashboardSpec = {
  file: 'controller-runtime-metrics.json',
  uid: 'ctrl-runtime',
  title: 'Controller Runtime',
  description: 'Reconciles, workqueues and informers of the controllers of a kubegen manager (controller_runtime_*, workqueue_*, informer_*).',
  variables: [...VARIABLES, CONTROLLER_VARIABLE],
  sections: [
    {
      title: 'Reconciliation',
      panels: [
        {
          title: 'Reconciles per second',
          description: 'Reconciles finished per second, by controller and result (success, error, requeue, requeue_after).',
          unit: 'ops',
          queries: [{ expr: `sum by (controller, result) (rate(controller_runtime_reconcile_total{${CTRL}}${RATE}))`, legend: '{{controller}} {{result}}' }],
        },
        {
          title: 'Reconcile errors per second',
          description: 'Reconciles that returned an error, per second and controller; each one is retried with backoff.',
          unit: 'ops',
          queries: [{ expr: `sum by (controller) (rate(controller_runtime_reconcile_errors_total{${CTRL}}${RATE}))`, legend: '{{controller}}' }],
        },
        {
          title: 'Reconcile error ratio',
          description: 'Share of reconciles that failed, per controller (the ReconcileErrorsHigh alert fires above 10% for 15 minutes).',
          unit: 'percentunit',
          queries: [
            {
              expr: `sum by (controller) (rate(controller_runtime_reconcile_errors_total{${CTRL}}${RATE})) / sum by (controller) (rate(controller_runtime_reconcile_total{${CTRL}}${RATE}))`,
              legend: '{{controller}}',
            },
          ],
        },
        latency('Reconcile duration', 'p50, p90 and p99 of the time one reconcile takes, per controller.', 'controller_runtime_reconcile_time_seconds', CTRL, 'controller'),
        {
          title: 'Active workers',
          description: 'Workers reconciling right now, against the maximum (maxConcurrentReconciles) per controller.',
          unit: 'short',
          queries: [
            { expr: `sum by (controller) (controller_runtime_active_workers{${CTRL}})`, legend: 'active {{controller}}' },
            { expr: `max by (controller) (controller_runtime_max_concurrent_reconciles{${CTRL}})`, legend: 'max {{controller}}' },
          ],
        },
      ],
    },
    {
      title: 'Workqueue',
      panels: [
        {
          title: 'Depth',
          description: 'Keys waiting in the queue of each controller; a depth that keeps growing means reconciles cannot keep up.',
          unit: 'short',
          queries: [{ expr: `sum by (name) (workqueue_depth{${CTRL}})`, legend: '{{name}}' }],
        },
        {
          title: 'Adds per second',
          description: 'Keys added to each queue per second (events from watches, requeues).',
          unit: 'ops',
          queries: [{ expr: `sum by (name) (rate(workqueue_adds_total{${CTRL}}${RATE}))`, legend: '{{name}}' }],
        },
        {
          title: 'Retries per second',
          description: 'Keys put back with rate-limited backoff per second (after an error or a requeue).',
          unit: 'ops',
          queries: [{ expr: `sum by (name) (rate(workqueue_retries_total{${CTRL}}${RATE}))`, legend: '{{name}}' }],
        },
        latency('Queue duration', 'p50, p90 and p99 of how long a key waits in the queue before a worker takes it.', 'workqueue_queue_duration_seconds', CTRL, 'name'),
        latency('Work duration', 'p50, p90 and p99 of how long processing a key takes.', 'workqueue_work_duration_seconds', CTRL, 'name'),
        {
          title: 'Unfinished work',
          description: 'Seconds of work in progress not yet finished, summed over the keys being processed; steady growth means a stuck worker.',
          unit: 's',
          queries: [{ expr: `sum by (name) (workqueue_unfinished_work_seconds{${CTRL}})`, legend: '{{name}}' }],
        },
        {
          title: 'Longest running processor',
          description: 'Seconds the longest-running worker of each queue has been busy with its current key.',
          unit: 's',
          queries: [{ expr: `max by (name) (workqueue_longest_running_processor_seconds{${CTRL}})`, legend: '{{name}}' }],
        },
      ],
    },
    {
      // client-go 1.36's informer metrics, per informer (`name`: the informer's key, e.g. foos.example.com/v1@ns).
      title: 'Informers',
      panels: [
        {
          title: 'Informer queued items',
          description: 'Watch events waiting in the handlers of each informer (informer_queued_items); growth means a handler cannot keep up.',
          unit: 'short',
          queries: [{ expr: `sum by (name) (informer_queued_items{${JOB}})`, legend: '{{name}}' }],
        },
        latency('Informer handler latency', 'p50, p90 and p99 of the time a handler takes for one event of each informer (informer_processing_latency_seconds).', 'informer_processing_latency_seconds', JOB, 'name'),
        {
          title: 'Store resource version',
          description: 'The resourceVersion (its last 15 digits) each informer\'s cache has applied (informer_store_resource_version); a line that stops rising while the kind changes means a cache that is behind.',
          unit: 'none',
          queries: [{ expr: `max by (name) (informer_store_resource_version{${JOB}})`, legend: '{{name}}' }],
        },
        {
          title: 'Silent watches',
          description: 'Informers whose watch has delivered nothing, not even a bookmark, past its deadline (1: stalled, their cache may be stale; /readyz fails), and watches replaced for silence.',
          unit: 'short',
          queries: [
            { expr: `max by (name) (kubegen_informer_watch_stalled{${JOB}})`, legend: 'stalled {{name}}' },
            { expr: `sum by (name) (increase(kubegen_informer_watch_stalls_total{${JOB}}${RATE}))`, legend: 'replaced {{name}}' },
          ],
        },
      ],
    },
  ],
};

const resources: DashboardSpec = {
  file: 'controller-resources-metrics.json',
  uid: 'ctrl-resources',
  title: 'Controller Resources',
  description: 'CPU, memory, heap, event loop and garbage collection of the kubegen manager process (process_*, nodejs_*).',
  variables: VARIABLES,
  sections: [
    {
      title: 'Process',
      panels: [
        {
          title: 'CPU',
          description: 'CPU seconds used per second (1 = one core), user and system time together.',
          unit: 'short',
          queries: [{ expr: `sum by (instance) (rate(process_cpu_seconds_total{${JOB}}${RATE}))`, legend: '{{instance}}' }],
        },
        {
          title: 'Resident memory',
          description: 'Resident set size of the process: what counts against the container memory limit.',
          unit: 'bytes',
          queries: [{ expr: `sum by (instance) (process_resident_memory_bytes{${JOB}})`, legend: '{{instance}}' }],
        },
        {
          title: 'Open file descriptors',
          description: 'Open file descriptors (sockets included) against the process limit.',
          unit: 'short',
          queries: [
            { expr: `sum by (instance) (process_open_fds{${JOB}})`, legend: 'open {{instance}}' },
            { expr: `max by (instance) (process_max_fds{${JOB}})`, legend: 'max {{instance}}' },
          ],
        },
      ],
    },
    {
      title: 'Node.js runtime',
      panels: [
        {
          title: 'Heap',
          description: 'V8 heap used and allocated; used creeping up across GCs suggests a leak (an informer cache grows with the objects it holds).',
          unit: 'bytes',
          queries: [
            { expr: `sum by (instance) (nodejs_heap_size_used_bytes{${JOB}})`, legend: 'used {{instance}}' },
            { expr: `sum by (instance) (nodejs_heap_size_total_bytes{${JOB}})`, legend: 'total {{instance}}' },
          ],
        },
        {
          title: 'Event loop lag',
          description: 'How late timers fire: p50 and p99 of the event loop delay. Long synchronous work blocks every reconcile, watch and probe.',
          unit: 's',
          queries: [
            { expr: `max by (instance) (nodejs_eventloop_lag_p50_seconds{${JOB}})`, legend: 'p50 {{instance}}' },
            { expr: `max by (instance) (nodejs_eventloop_lag_p99_seconds{${JOB}})`, legend: 'p99 {{instance}}' },
          ],
        },
        {
          title: 'GC time per second',
          description: 'Seconds spent in garbage collection per second, by kind (minor, major, incremental, weakcb).',
          unit: 'percentunit',
          queries: [{ expr: `sum by (kind) (rate(nodejs_gc_duration_seconds_sum{${JOB}}${RATE}))`, legend: '{{kind}}' }],
        },
        {
          title: 'GC runs per second',
          description: 'Garbage collections per second, by kind.',
          unit: 'ops',
          queries: [{ expr: `sum by (kind) (rate(nodejs_gc_duration_seconds_count{${JOB}}${RATE}))`, legend: '{{kind}}' }],
        },
      ],
    },
  ],
};

const api: DashboardSpec = {
  file: 'controller-api-metrics.json',
  uid: 'ctrl-api',
  title: 'Controller API Client, Leader Election and Webhooks',
  description: 'Requests to the API server (rest_client_*), leader election (leader_election_master_status) and admission webhooks (controller_runtime_webhook_*).',
  variables: VARIABLES,
  sections: [
    {
      title: 'API server requests',
      panels: [
        {
          title: 'Requests by status code',
          description: 'Requests to the API server per second by HTTP status; <error> is a request that got no response.',
          unit: 'reqps',
          queries: [{ expr: `sum by (code) (rate(rest_client_requests_total{${JOB}}${RATE}))`, legend: '{{code}}' }],
        },
        {
          title: 'Requests by method',
          description: 'Requests to the API server per second by HTTP method.',
          unit: 'reqps',
          queries: [{ expr: `sum by (method) (rate(rest_client_requests_total{${JOB}}${RATE}))`, legend: '{{method}}' }],
        },
        {
          title: 'Error ratio',
          description: 'Share of requests answered 5xx or not answered at all (the RestClientErrorsHigh alert fires above 5% for 10 minutes).',
          unit: 'percentunit',
          queries: [
            {
              // `or vector(0)`: 0 while no request failed (no 5xx or <error> series exists yet), not "No data".
              expr: `(sum(rate(rest_client_requests_total{${JOB}, code=~"5..|<error>"}${RATE})) or vector(0)) / sum(rate(rest_client_requests_total{${JOB}}${RATE}))`,
              legend: 'errors',
            },
          ],
        },
        latency('Request latency', 'p50, p90 and p99 from sending a request to its response headers, by verb (for a watch, until the stream opens).', 'rest_client_request_duration_seconds', JOB, 'verb'),
      ],
    },
    {
      title: 'Leader election',
      panels: [
        {
          title: 'Leaders per lease',
          description: 'Replicas holding each lease: 1 is healthy, 0 means no replica reconciles (the LeaderElectionNoLeader alert).',
          unit: 'short',
          width: 8,
          stat: {
            thresholds: [
              { value: null, color: 'red' },
              { value: 1, color: 'green' },
              { value: 2, color: 'orange' },
            ],
            mappings: [{ value: '0', text: 'no leader' }],
          },
          queries: [{ expr: `sum by (name) (leader_election_master_status{${JOB}})`, legend: '{{name}}' }],
        },
        {
          title: 'Leader by replica',
          description: 'Which replica holds each lease over time (1 leader, 0 standby).',
          unit: 'short',
          width: 16,
          queries: [{ expr: `max by (name, instance) (leader_election_master_status{${JOB}})`, legend: '{{name}} {{instance}}' }],
        },
      ],
    },
    {
      title: 'Webhooks',
      panels: [
        {
          title: 'Admission requests',
          description: 'Admission requests per second by webhook path and HTTP status code.',
          unit: 'reqps',
          queries: [{ expr: `sum by (webhook, code) (rate(controller_runtime_webhook_requests_total{${JOB}}${RATE}))`, legend: '{{webhook}} {{code}}' }],
        },
        latency('Admission latency', 'p50, p90 and p99 of the time to answer an admission request, by webhook path.', 'controller_runtime_webhook_latency_seconds', JOB, 'webhook'),
        {
          title: 'Requests in flight',
          description: 'Admission requests being served right now, by webhook path.',
          unit: 'short',
          queries: [{ expr: `sum by (webhook) (controller_runtime_webhook_requests_in_flight{${JOB}})`, legend: '{{webhook}}' }],
        },
      ],
    },
  ],
};

/** The dashboard tables, in file order. */
export const DASHBOARDS: readonly DashboardSpec[] = [runtime, resources, api];

/** A dashboard file: its name under config/grafana/ and its JSON text (two-space indented, newline-terminated). */
export interface DashboardFile {
  file: string;
  json: string;
}

/** The three dashboards for `project` (titles and uids carry its name; any project when undefined). */
export function grafanaDashboards(project?: string): DashboardFile[] {
  return DASHBOARDS.map((spec) => ({ file: spec.file, json: `${JSON.stringify(buildDashboard(spec, project), null, 2)}\n` }));
}
