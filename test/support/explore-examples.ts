/**
 * Running `explore` on an example as `kubegen explore` would (issue 42, item 5): the example's CRDs (every
 * CustomResourceDefinition in the YAML files of the folders given), its scenario (`examples/<name>/test/explore/
 * scenario.yaml`), its setup module, and every built-in resource of the fake control plane served besides (as the
 * command serves them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { explore, type ExploreOptions, type ExploreReport, type ScenarioStep, type SetupFunc } from '@kubegen/runtime/testing/explore';
import { REPO_ROOT } from './paths.js';

/** The CRDs in the YAML files of `dirs` (relative to the repository root; a file is taken as it is). */
export function crdsIn(...dirs: string[]): ExploreOptions['crds'] {
  const out: object[] = [];
  for (const d of dirs) {
    const p = path.join(REPO_ROOT, d);
    const files = fs.statSync(p).isDirectory() ? fs.readdirSync(p).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(p, f)) : [p];
    for (const f of files) {
      for (const doc of parseAllDocuments(fs.readFileSync(f, 'utf8'))) {
        const v = doc.toJS() as { kind?: string } | null;
        if (v?.kind === 'CustomResourceDefinition') out.push(v);
      }
    }
  }
  return out as never;
}

/** The scenario of example `name`. */
export function exampleScenario(name: string): ScenarioStep[] {
  return parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', name, 'test', 'explore', 'scenario.yaml'), 'utf8')) as ScenarioStep[];
}

/** Explores example `name` with `setup`, its CRDs in `crdDirs`, and `opts` (faults, mutations, seed). */
export function exploreExample(name: string, setup: SetupFunc, crdDirs: string[], opts: Partial<ExploreOptions> = {}): Promise<ExploreReport> {
  return explore({ setup, crds: crdsIn(...crdDirs), steps: exampleScenario(name), ...opts });
}
