/**
 * `@kubegen/runtime/testing/explore`: finds a controller's bugs by perturbing what it sees (issue 42; Sieve's
 * crash and observability-gap faults, Acto's history-independence oracle over spec changes) on the in-process fake control plane, comparing every perturbed run's end
 * state with a fault-free run's. `explore(opts)` is what `kubegen explore` runs; call it from a `node:test` suite to
 * get the same report. See docs/explore.md.
 */
export { parseBudget, planRuns, type Budget } from './budget.js';
export { crashPoints, explore, parsePoint, type ExploreEnvtestProfile, type ExploreOptions, type ExplorePoint } from './explore.js';
export { mutationRuns, mutationSequences, type MutationSequence } from './mutate.js';
export { formatReport, type Divergence, type DivergencePoint, type ExploreReport, type FaultKind } from './report.js';
export { compareStates, normalizeState, type FieldDiff } from './compare.js';
export { runScenario, endState, ScenarioStepError, type InjectedFault, type RunInput, type RunResult, type SetupFunc } from './runner.js';
export { checkScenario, describeStep, ScenarioError, SCENARIO_FIELD_MANAGER, type ObjectRef, type ScenarioStep } from './scenario.js';
export { describeRequest, FaultTransport, type RecordedRequest } from './faults.js';
export { fakePlane, type PlaneInput, type RunPlane } from './plane.js';
export { checkEnvtestScenario, envtestPlane } from './envtest-plane.js';
