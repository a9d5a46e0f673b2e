/**
 * Regenerates the built-in Kubernetes API from the Kubernetes Go sources, through kubegen's own model and emitters:
 *   - packages/kubegen/builtin-api/kubernetes-api.json   the model (types, kinds, client-go's clients)
 *   - packages/runtime/src/api/                            `@kubegen/runtime/api/<folder>/<version>`
 * Sources: `hack/setup-envtest-1.36.sh` unpacks Debian's golang-k8s-*-dev packages under
 * `$ENVTEST_1_36_DIR/root/usr/share/gocode/src` (default ~/.cache/envtest/k8s-1.36); `--go-root DIR` reads another.
 * Output is deterministic; `test/unit/builtin-api-fresh.test.ts` fails when what is committed is stale.
 * Usage: npm run generate:builtin-api [-- --go-root DIR]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOutput } from 'kubegen/internal/output/write.js';
import { builtinApiOutputs, defaultGoRoot } from 'kubegen/internal/builtin-api/regenerate.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const args = process.argv.slice(2);
const at = args.indexOf('--go-root');
const goRoot = at >= 0 ? args[at + 1]! : defaultGoRoot();
if (!fs.existsSync(path.join(goRoot, 'k8s.io/api'))) {
  console.error(`generate-builtin-api: no Kubernetes sources at ${goRoot} (run hack/setup-envtest-1.36.sh, or pass --go-root)`);
  process.exit(2);
}
const out = builtinApiOutputs(goRoot);
const modelFile = path.join(root, 'packages/kubegen/builtin-api/kubernetes-api.json');
fs.mkdirSync(path.dirname(modelFile), { recursive: true });
fs.writeFileSync(`${modelFile}.tmp`, out.modelJson);
fs.renameSync(`${modelFile}.tmp`, modelFile);
const result = await writeOutput(path.join(root, 'packages/runtime/src/api'), out.files);
console.log(`Kubernetes ${out.kubernetesVersion}: ${out.files.length} files in packages/runtime/src/api (${JSON.stringify(result)}), model in ${path.relative(root, modelFile)}`);
