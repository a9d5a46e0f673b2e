/**
 * `codegen init`: a new controller project in an empty (or not yet existing) folder — package.json, tsconfig.json,
 * codegen.config.yaml, kubegen.project.yaml, src/main.ts (a Manager with the usual flags), apis/, config/ (manager
 * Deployment, leader-election and manager RBAC), Dockerfile, .gitignore, README.md. kubebuilder's `init`.
 *
 * Never overwrites: a folder holding anything but `.git` is refused before anything is written.
 */
import * as fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ScaffoldError } from './errors.js';
import { assertNoneExist, writeNewFiles } from './files.js';
import type { ScaffoldFile } from './files.js';
import { checkDomain, checkProjectName, checkVersionRange, DEFAULT_DOMAIN } from './names.js';
import { formatProjectFile, newProjectFile, PROJECT_FILE } from './project-file.js';
import { renderTemplate } from './render.js';

export interface InitOptions {
  /** Project folder (created when missing). */
  dir: string;
  /** Default `my.domain`. */
  domain?: string;
  /** Default: the folder's name. */
  name?: string;
  /** Range of the `kubegen` dependency; default `^<this kubegen's version>`. */
  runtimeVersion?: string;
}

export interface ScaffoldResult {
  /** Absolute project root. */
  root: string;
  /** Files written (relative to `root`) and, for `create api`, the files edited. */
  written: string[];
  edited: string[];
}

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
  const ours = kubegenPackage();
  const runtimeVersion = opts.runtimeVersion ?? `^${ours.version ?? '0.1.0'}`;
  checkVersionRange(runtimeVersion);
  await assertEmptyDir(root);

  const files = initFiles({ name, domain, runtimeVersion, devDependencies: ours.devDependencies ?? {} });
  await assertNoneExist(root, files);
  await writeNewFiles(root, files);
  return { root, written: files.map((f) => f.path), edited: [] };
}

interface InitValues {
  name: string;
  domain: string;
  runtimeVersion: string;
  /** kubegen's own devDependencies: the scaffold pins the TypeScript and @types/node that kubegen is built with. */
  devDependencies: Record<string, string>;
}

/** The files of a new project (pure; names already validated). */
export function initFiles(v: InitValues): ScaffoldFile[] {
  const project = { projectName: v.name };
  const deployed = { projectName: v.name, namespace: `${v.name}-system` };
  return [
    { path: 'package.json', content: packageJson(v) },
    { path: 'tsconfig.json', content: renderTemplate('init/tsconfig.json.tmpl') },
    { path: 'codegen.config.yaml', content: renderTemplate('init/codegen.config.yaml.tmpl') },
    { path: PROJECT_FILE, content: formatProjectFile(newProjectFile(v.name, v.domain)) },
    { path: 'src/main.ts', content: renderTemplate('init/main.ts.tmpl', { ...project, leaderElectionId: `${v.name}.${v.domain}` }) },
    { path: 'apis/README.md', content: renderTemplate('init/apis-README.md.tmpl') },
    { path: 'src/controllers/README.md', content: renderTemplate('init/controllers-README.md.tmpl') },
    { path: 'config/manager/manager.yaml', content: renderTemplate('init/manager.yaml.tmpl', deployed) },
    { path: 'config/rbac/service_account.yaml', content: renderTemplate('init/service_account.yaml.tmpl', deployed) },
    { path: 'config/rbac/role_binding.yaml', content: renderTemplate('init/role_binding.yaml.tmpl', deployed) },
    { path: 'config/rbac/leader_election_role.yaml', content: renderTemplate('init/leader_election_role.yaml.tmpl', deployed) },
    { path: 'config/rbac/leader_election_role_binding.yaml', content: renderTemplate('init/leader_election_role_binding.yaml.tmpl', deployed) },
    { path: 'Dockerfile', content: renderTemplate('init/Dockerfile.tmpl') },
    { path: '.dockerignore', content: renderTemplate('init/dockerignore.tmpl') },
    { path: '.gitignore', content: renderTemplate('init/gitignore.tmpl') },
    { path: 'README.md', content: renderTemplate('init/README.md.tmpl', project) },
  ];
}

function packageJson(v: InitValues): string {
  const pkg = {
    name: v.name,
    version: '0.0.1',
    private: true,
    type: 'module',
    engines: { node: '>=22' },
    scripts: {
      generate: 'codegen',
      verify: 'codegen verify',
      build: 'tsc -p tsconfig.json',
      pretest: 'npm run build',
      test: 'node --test "dist/src/**/*.test.js"',
      start: 'node dist/src/main.js',
    },
    dependencies: { kubegen: v.runtimeVersion },
    devDependencies: {
      '@types/node': v.devDependencies['@types/node'] ?? '^24.0.0',
      typescript: v.devDependencies['typescript'] ?? '^5.9.0',
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
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
    throw new ScaffoldError(`${root} is not empty (${shown}); codegen init only writes into an empty or new folder`);
  }
}

function kubegenPackage(): { version?: string; devDependencies?: Record<string, string> } {
  try {
    return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  } catch {
    return {};
  }
}
