/**
 * `codegen init`: a new controller project in an empty (or not yet existing) folder — package.json, tsconfig.json,
 * codegen.config.yaml, kubegen.project.yaml, src/main.ts (a Manager with the usual flags), apis/, test/envtest/setup.ts
 * (one control plane per envtest run), config/ (default, crd, rbac, manager, samples: kustomize folders as
 * kubebuilder's), Dockerfile, .gitignore, README.md, .github/workflows/ (CI), and with --kubegen-from the kubegen
 * tarballs in vendor/kubegen.
 * kubebuilder's `init`.
 *
 * Never overwrites: a folder holding anything but `.git` is refused before anything is written.
 */
import * as fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TRACING_SDK_PACKAGES } from '@kubegen/runtime/tracing/sdk';
import { ScaffoldError } from './errors.js';
import { assertNoneExist, writeNewFiles } from './files.js';
import type { ScaffoldFile } from './files.js';
import { checkDomain, checkProjectName, checkVersionRange, DEFAULT_DOMAIN } from './names.js';
import { formatProjectFile, newProjectFile, PROJECT_FILE } from './project-file.js';
import { renderTemplate, TEMPLATES_DIR } from './render.js';
import { localSource, registrySource, CLI_PACKAGE, RUNTIME_PACKAGE, VENDOR_DIR } from './kubegen-source.js';
import type { KubegenSource } from './kubegen-source.js';
import { monitoringScaffoldFiles } from './monitoring-files.js';
import { EXPLORE_SCENARIO_FILE, EXPLORE_SCRIPT, EXPLORE_SETUP_FILE } from './explore-files.js';

export interface InitOptions {
  /** Project folder (created when missing). */
  dir: string;
  /** Default `my.domain`. */
  domain?: string;
  /** Default: the folder's name. */
  name?: string;
  /** Registry range of `@kubegen/runtime` and `kubegen`; default `^<this kubegen's version>`. */
  runtimeVersion?: string;
  /**
   * Install kubegen from local tarballs instead of the registry: a folder of `npm pack --workspaces` tarballs or a
   * kubegen checkout (absolute path). They are copied into the project's `vendor/kubegen/`.
   */
  kubegenFrom?: string;
  /**
   * A multi-cluster project: src/main.ts runs a `MultiClusterManager` whose member clusters are kubeconfig Secrets in
   * `--clusters-namespace` of the hub, config/rbac lets it read them, the envtest suite starts a hub and a member, and
   * `create api` scaffolds controllers with a lane per member (recorded as `multicluster: true` in the project file).
   */
  multicluster?: boolean;
  /**
   * Install the OpenTelemetry Node SDK's tracing packages (`@opentelemetry/api`, `@opentelemetry/sdk-trace-node`,
   * `@opentelemetry/resources` and the OTLP/HTTP trace exporters) as production dependencies, so that
   * `startTracing()` in `src/main.ts` (`@kubegen/runtime/tracing/sdk`) exports traces when the OTEL_* variables ask
   * for them. Off by default: they add about 28 MB to the image's production install (the runtime and the rest are
   * about 12 MB); without them `startTracing()` names the packages to install when traces are asked for.
   */
  tracing?: boolean;
}

export interface ScaffoldResult {
  /** Absolute project root. */
  root: string;
  /** Files written (relative to `root`) and, for `create api` and `create webhook`, the files edited. */
  written: string[];
  edited: string[];
  /** The lines `create api` inserted (or, with `dryRun`, would insert) into each edited file but the project file. */
  inserted?: { file: string; lines: string[] }[];
}

/**
 * The GitHub Actions workflows under `.github/workflows/` (kubebuilder's lint, test and test-e2e, for this
 * toolchain): type check, lint and verify; unit tests (and, in a single-cluster project, `npm run explore`); the envtest suite; the image. test/integration/newcomer.test.ts
 * runs their steps in a fresh clone of a scaffolded project.
 */
export const WORKFLOWS = ['lint', 'test', 'test-envtest', 'image'] as const;

/** config/rbac/kustomization.yaml's entries of a multi-cluster project: reading the member clusters' Secrets. */
const CLUSTERS_RBAC_ENTRIES = '  # The member clusters: kubeconfig Secrets (and cluster-sharding Leases) in the clusters namespace.\n  - clusters_role.yaml\n  - clusters_role_binding.yaml\n';

/** Entries a folder may already hold for `init` to use it. */
const ALLOWED_ENTRIES = new Set(['.git']);

/** Scaffolds a project into `opts.dir`; throws {@link ScaffoldError} (and writes nothing) on bad input. */
export async function initProject(opts: InitOptions): Promise<ScaffoldResult> {
  const root = path.resolve(opts.dir);
  const name = opts.name ?? path.basename(root);
  if (opts.name === undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    throw new ScaffoldError(`folder name ${JSON.stringify(name)} is not a valid project name; pass --name <dns-1123-label>`);
  }
  checkProjectName(name);
  const domain = opts.domain ?? DEFAULT_DOMAIN;
  checkDomain(domain);
  if (opts.runtimeVersion !== undefined && opts.kubegenFrom !== undefined) {
    throw new ScaffoldError('--runtime-version and --kubegen-from exclude each other (a registry range, or local tarballs)');
  }
  const version = kubegenVersion();
  const range = opts.runtimeVersion ?? `^${version}`;
  checkVersionRange(range);
  await assertEmptyDir(root);
  const source = opts.kubegenFrom !== undefined ? localSource(opts.kubegenFrom, version) : registrySource(range);

  const files = initFiles({ name, domain, source, toolchain: toolchain(), multicluster: opts.multicluster ?? false, tracing: opts.tracing ?? false });
  await assertNoneExist(root, files);
  await writeNewFiles(root, files);
  return { root, written: files.map((f) => f.path), edited: [] };
}

interface InitValues {
  name: string;
  domain: string;
  source: KubegenSource;
  /** Dev dependencies every project pins: node, typescript, @types/node (templates/init/toolchain.json). */
  toolchain: Record<string, string>;
  /** See {@link InitOptions.multicluster}. */
  multicluster?: boolean;
  /** See {@link InitOptions.tracing}. */
  tracing?: boolean;
}

/** The files of a new project (pure; names already validated). */
export function initFiles(v: InitValues): ScaffoldFile[] {
  const project = { projectName: v.name };
  const vendored = v.source.files.length > 0;
  const mc = v.multicluster === true;
  return [
    { path: 'package.json', content: packageJson(v) },
    { path: 'tsconfig.json', content: renderTemplate('init/tsconfig.json.tmpl') },
    { path: 'codegen.config.yaml', content: renderTemplate('init/codegen.config.yaml.tmpl') },
    { path: PROJECT_FILE, content: formatProjectFile(newProjectFile(v.name, v.domain, mc)) },
    { path: 'src/main.ts', content: renderTemplate(mc ? 'init/main-multicluster.ts.tmpl' : 'init/main.ts.tmpl', { ...project, leaderElectionId: `${v.name}.${v.domain}` }) },
    // `npm run explore` (kubegen explore): the controllers to register and the scenario; single cluster only.
    ...(mc
      ? []
      : [
          { path: EXPLORE_SETUP_FILE, content: renderTemplate('init/explore-setup.ts.tmpl') },
          { path: EXPLORE_SCENARIO_FILE, content: renderTemplate('init/explore-scenario.yaml.tmpl') },
        ]),
    { path: 'apis/README.md', content: renderTemplate('init/apis-README.md.tmpl') },
    { path: 'src/controllers/README.md', content: renderTemplate('init/controllers-README.md.tmpl') },
    { path: 'test/envtest/setup.ts', content: renderTemplate(mc ? 'init/envtest-setup-multicluster.ts.tmpl' : 'init/envtest-setup.ts.tmpl') },
    { path: 'config/default/kustomization.yaml', content: renderTemplate('init/kustomization-default.yaml.tmpl', project) },
    { path: 'config/default/metrics_service.yaml', content: renderTemplate('init/metrics_service.yaml.tmpl', project) },
    { path: 'config/crd/kustomization.yaml', content: renderTemplate('init/kustomization-crd.yaml.tmpl') },
    { path: 'config/samples/kustomization.yaml', content: renderTemplate('init/kustomization-samples.yaml.tmpl') },
    { path: 'config/manager/kustomization.yaml', content: renderTemplate('init/kustomization-manager.yaml.tmpl', project) },
    { path: 'config/manager/manager.yaml', content: renderTemplate('init/manager.yaml.tmpl', project) },
    { path: 'config/rbac/kustomization.yaml', content: renderTemplate('init/kustomization-rbac.yaml.tmpl', { clustersRbac: mc ? CLUSTERS_RBAC_ENTRIES : '' }) },
    { path: 'config/rbac/service_account.yaml', content: renderTemplate('init/service_account.yaml.tmpl', project) },
    { path: 'config/rbac/role_binding.yaml', content: renderTemplate('init/role_binding.yaml.tmpl', project) },
    { path: 'config/rbac/leader_election_role.yaml', content: renderTemplate('init/leader_election_role.yaml.tmpl', project) },
    { path: 'config/rbac/leader_election_role_binding.yaml', content: renderTemplate('init/leader_election_role_binding.yaml.tmpl', project) },
    ...(mc
      ? [
          { path: 'config/rbac/clusters_role.yaml', content: renderTemplate('init/clusters_role.yaml.tmpl', project) },
          { path: 'config/rbac/clusters_role_binding.yaml', content: renderTemplate('init/clusters_role_binding.yaml.tmpl', project) },
        ]
      : []),
    { path: 'config/rbac/metrics_auth_role.yaml', content: renderTemplate('init/metrics_auth_role.yaml.tmpl', project) },
    { path: 'config/rbac/metrics_auth_role_binding.yaml', content: renderTemplate('init/metrics_auth_role_binding.yaml.tmpl', project) },
    { path: 'config/rbac/metrics_reader_role.yaml', content: renderTemplate('init/metrics_reader_role.yaml.tmpl', project) },
    { path: 'Dockerfile', content: renderTemplate('init/Dockerfile.tmpl', { vendorCopy: vendored ? `COPY ${VENDOR_DIR}/ ./${VENDOR_DIR}/\n` : '' }) },
    { path: '.dockerignore', content: renderTemplate('init/dockerignore.tmpl') },
    { path: '.gitignore', content: renderTemplate('init/gitignore.tmpl') },
    { path: 'README.md', content: renderTemplate('init/README.md.tmpl', { ...project, multiclusterSection: mc ? renderTemplate('init/README-multicluster.md.tmpl', project) : '' }) },
    ...WORKFLOWS.map((w) => ({ path: `.github/workflows/${w}.yml`, content: renderTemplate(`init/workflow-${w}.yml.tmpl`, workflowValues(w, v.name, mc)) })),
    ...monitoringScaffoldFiles(v.name),
    ...v.source.files,
  ];
}

/** What a workflow template takes: the image's name; the test workflow's explore job (single-cluster projects: `npm run explore`). */
function workflowValues(w: (typeof WORKFLOWS)[number], name: string, multicluster: boolean): Record<string, string> {
  if (w === 'image') return { projectName: name };
  if (w === 'test') return { exploreJob: multicluster ? '' : renderTemplate('init/workflow-test-explore-job.yml.tmpl') };
  return {};
}

/**
 * The runtime's optional peers that make certificates: production dependencies, because the manager makes its
 * self-signed metrics serving certificate at start (`--metrics-secure` without `--metrics-cert-dir`) in the image,
 * where the Dockerfile keeps only production dependencies.
 */
const CERTIFICATE_PACKAGES = new Set(['@peculiar/x509', 'reflect-metadata']);
/**
 * OpenTelemetry's api and the Node SDK's tracing packages: with `--tracing`, production dependencies (`startTracing()`
 * of `@kubegen/runtime/tracing/sdk`, called in src/main.ts, loads them in the image when traces are asked for);
 * otherwise not installed at all.
 */
const TRACING_PACKAGES = new Set(TRACING_SDK_PACKAGES);

/** The compiler checks `npm run lint` adds to the project's tsconfig.json (which `build` uses as is). */
const LINT_FLAGS = ['--noUnusedLocals', '--noUnusedParameters', '--noImplicitReturns', '--allowUnreachableCode', 'false', '--allowUnusedLabels', 'false'];

/**
 * The project's package.json. Scripts mirror kubebuilder's make targets; `install` would be an npm life-cycle
 * script (run by every `npm install`), so the CRD targets are `install-crds` / `uninstall-crds`.
 */
function packageJson(v: InitValues): string {
  const pkg = {
    name: v.name,
    version: '0.0.1',
    private: true,
    type: 'module',
    engines: { node: '>=22' },
    scripts: {
      generate: 'kubegen',
      verify: 'kubegen verify',
      // tsc, then the image's bundle (kubegen bundle: dist/src/main.js and the runtime into dist/image/main.js, which
      // the Dockerfile runs; it starts with less CPU and memory than the compiled modules).
      build: 'tsc -p tsconfig.json && kubegen bundle --quiet',
      // The type check with the compiler's lint checks on (unused names and parameters, missing returns, unreachable
      // code): what the Lint workflow runs. typescript-eslint needs the TypeScript 5 API, which TypeScript 7 has not.
      lint: `tsc -p tsconfig.json --noEmit ${LINT_FLAGS.join(' ')}`,
      pretest: 'npm run build',
      test: 'node --test "dist/src/**/*.test.js"',
      'pretest:envtest': 'npm run build',
      'test:envtest': 'node --test --test-concurrency=1 --test-global-setup=dist/test/envtest/setup.js "dist/test/envtest/**/*.test.js"',
      'setup-envtest': 'kubegen-setup-envtest',
      // kubegen explore: the scenario fault-free, then with the controllers crashed after each write and watch gaps.
      ...(v.multicluster === true ? {} : { preexplore: 'npm run build', explore: EXPLORE_SCRIPT }),
      dev: 'kubegen dev',
      start: 'node dist/src/main.js',
      run: 'npm run build && node dist/src/main.js',
      'install-crds': 'npm run generate && kubectl apply -k config/crd',
      'uninstall-crds': 'kubectl delete --ignore-not-found -k config/crd',
      deploy: 'npm run generate && kubectl apply -k config/default',
      undeploy: 'kubectl delete --ignore-not-found -k config/default',
    },
    dependencies: sortKeys({ [RUNTIME_PACKAGE]: v.source.runtimeSpec, ...pick(v.toolchain, (name) => CERTIFICATE_PACKAGES.has(name) || (v.tracing === true && TRACING_PACKAGES.has(name))) }),
    devDependencies: sortKeys({ [CLI_PACKAGE]: v.source.cliSpec, ...pick(v.toolchain, (name) => !CERTIFICATE_PACKAGES.has(name) && !TRACING_PACKAGES.has(name)) }),
    // The `node` package installs its binary from an install script.
    allowScripts: { node: true },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function pick(o: Record<string, string>, keep: (name: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter(([name]) => keep(name)));
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

async function assertEmptyDir(root: string): Promise<void> {
  let entries: string[];
  try {
    const st = await fs.stat(root);
    if (!st.isDirectory()) throw new ScaffoldError(`${root} exists and is not a folder`);
    entries = await fs.readdir(root);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return;
    throw err;
  }
  const other = entries.filter((e) => !ALLOWED_ENTRIES.has(e)).sort();
  if (other.length > 0) {
    const shown = other.slice(0, 3).join(', ') + (other.length > 3 ? ', …' : '');
    throw new ScaffoldError(`${root} is not empty (${shown}); kubegen init only writes into an empty or new folder`);
  }
}

/** This kubegen's version (packages/kubegen/package.json; this file is dist/scaffold/init.js). */
function kubegenVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.1.0';
  } catch {
    return '0.1.0';
  }
}

/** The dev dependencies a project pins (templates/init/toolchain.json, without its comment key). */
export function toolchain(): Record<string, string> {
  const all = JSON.parse(readFileSync(new URL('init/toolchain.json', TEMPLATES_DIR), 'utf8')) as Record<string, string>;
  return Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('//')));
}
