/**
 * `@kubegen/runtime/testing/loadtest`: the load, stress and fault harness (`runLoadTest`, and `kubegen loadtest` over
 * it). Starts child processes, an envtest control plane and a fault-injecting proxy; see `loadtest.ts`.
 */
export { runLoadTest } from './loadtest.js';
export type { LoadTestOptions } from './loadtest.js';
export type { FaultOptions } from './faults.js';
export { FaultProxy } from './fault-proxy.js';
export type { FaultProxyOptions } from './fault-proxy.js';
export { DEFAULT_CHURN_PATCH, loadObjectTemplate, observedGenerationCheck, parseObjectTemplate, renderChurnPatch, renderPlaceholders } from './load-objects.js';
export type { CheckContext, ConvergenceCheck, ObjectTemplate, PlaceholderValues } from './load-objects.js';
export { formatReport, plotSvg } from './report.js';
export type { LoadTestReport, Sample as LoadTestSample } from './report.js';
export type { ReconcileSummary } from './metrics-reader.js';
export type { ControllerRun } from './controller-process.js';
export type { RequestCounts } from './request-verbs.js';
