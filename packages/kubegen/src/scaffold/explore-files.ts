/**
 * What `kubegen explore` needs in a scaffolded project (issue 42): `src/explore-setup.ts`, whose default export
 * registers the controllers on a Manager as `src/main.ts` does (`create api` inserts each controller's
 * `setup<Kind>Controller` at the same `// +kubegen:scaffold:*` markers), and `test/explore/scenario.yaml`, to which
 * `create api` adds three steps for the kind's sample (apply, a label patch, delete) above
 * `# +kubegen:scaffold:explore-steps`. Single-cluster projects only (a multi-cluster controller's setup takes a
 * MultiClusterManager). A project made before these files existed simply lacks them: `create api` then leaves them be.
 */
import type { ApiNames } from './names.js';

export const EXPLORE_SETUP_FILE = 'src/explore-setup.ts';
export const EXPLORE_SCENARIO_FILE = 'test/explore/scenario.yaml';
export const EXPLORE_STEPS_MARKER = '# +kubegen:scaffold:explore-steps';

/** The `explore` script of a scaffolded package.json (after `preexplore`: the build). */
export const EXPLORE_SCRIPT = `kubegen explore --setup dist/src/explore-setup.js --crds config/crd/bases --scenario ${EXPLORE_SCENARIO_FILE}`;

/**
 * The scenario's steps for a kind's sample `name` (one flow-style line each, distinct per kind, so that
 * `delete api` can take them out again): apply it, patch a label on it, delete it.
 */
export function exploreSteps(n: ApiNames, name: string, namespaced: boolean, spec: unknown): string {
  const ref = `apiVersion: ${n.fullGroup}/${n.version}, kind: ${n.kind}, ${namespaced ? 'namespace: default, ' : ''}name: ${name}`;
  const meta = `metadata: { ${namespaced ? 'namespace: default, ' : ''}name: ${name} }`;
  return [
    `- apply: { apiVersion: ${n.fullGroup}/${n.version}, kind: ${n.kind}, ${meta}, spec: ${JSON.stringify(spec ?? {})} }`,
    `- patch: { ${ref}, patch: { metadata: { labels: { explore.kubegen.io/step: patched } } } }`,
    `- delete: { ${ref} }`,
  ].join('\n');
}
