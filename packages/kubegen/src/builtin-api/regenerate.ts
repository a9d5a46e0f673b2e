/**
 * What `hack/builtin-api/generate` writes, computed without writing: the built-in API model's JSON and the runtime's
 * generated `api/` folder, from a Kubernetes source tree (Debian's `golang-k8s-*-dev` packages unpacked by
 * `hack/setup-envtest-1.36.sh`). The staleness test compares the same outputs with what is committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { generate } from '../generate/index.js';
import type { GeneratedFile } from '../generate/index.js';
import { readKubeApi } from '../parse/kube-api/index.js';
import { serializeBuiltinApi } from './index.js';

/** The import generated built-in code uses for the runtime, relative to the `api/` folder. */
export const BUILTIN_RUNTIME_IMPORT = '../api-runtime.js';
/** The import generated built-in `types.ts` files use for the runtime's scalar types: a module that imports nothing. */
export const BUILTIN_TYPES_IMPORT = '../api-types.js';

export interface BuiltinApiOutputs {
  kubernetesVersion: string;
  /** The model file's text (`builtin-api/kubernetes-api.json`). */
  modelJson: string;
  /** The runtime's `src/api/` folder. */
  files: GeneratedFile[];
}

/**
 * The default source root: `$ENVTEST_1_36_DIR/root/usr/share/gocode/src` (default `~/.cache/envtest/k8s-1.36`), where
 * `hack/setup-envtest-1.36.sh` unpacks the Kubernetes Go packages.
 */
export function defaultGoRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['ENVTEST_1_36_DIR'] || path.join(env['HOME'] ?? '', '.cache/envtest/k8s-1.36');
  return path.join(base, 'root/usr/share/gocode/src');
}

/** The Kubernetes release of Debian's `golang-k8s-api-dev` below `goRoot` (`0.36.4` → `1.36.4`). */
export function kubernetesVersionOf(goRoot: string): string {
  const changelog = path.resolve(goRoot, '../../doc/golang-k8s-api-dev/changelog.Debian.gz');
  const first = zlib.gunzipSync(fs.readFileSync(changelog)).toString('utf8').split('\n')[0] ?? '';
  const m = /\(0\.(\d+)\.(\d+)/.exec(first);
  if (!m) throw new Error(`${changelog}: no version in its first line (${first})`);
  return `1.${m[1]}.${m[2]}`;
}

export function builtinApiOutputs(goRoot: string): BuiltinApiOutputs {
  const kubernetesVersion = kubernetesVersionOf(goRoot);
  const model = readKubeApi({ goRoot });
  const source = `Debian's golang-k8s-api-dev, golang-k8s-apimachinery-dev and golang-k8s-client-go-dev for Kubernetes ${kubernetesVersion} (hack/builtin-api/generate)`;
  const modelJson = serializeBuiltinApi({ kubernetesVersion, model }, source);
  const files = generate(model, { runtimeImport: BUILTIN_RUNTIME_IMPORT, typesImport: BUILTIN_TYPES_IMPORT });
  return { kubernetesVersion, modelJson, files };
}
