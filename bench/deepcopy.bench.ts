/**
 * Deep-copy benchmark: generated `deepCopyPrometheus` vs `structuredClone` vs `JSON.parse(JSON.stringify())` on a
 * large, fully filled Prometheus object (prometheus-operator CRD: containers, volumes, affinity, ...).
 * The deepcopy module is generated into `dist/bench-gen/` and loaded from there. Run: `npm run bench:deepcopy`.
 * Goal: the generated copy is faster than structuredClone (ratio > 1).
 */
import { deepStrictEqual } from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emitDeepCopy, sampleFromSchema } from 'kubegen/internal/generate/deepcopy/index.js';
import { TypeGraph } from 'kubegen/internal/generate/types/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';

const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(distRoot, '..');
const CRD = join(repoRoot, 'fixtures/crds/prometheus-operator/monitoring.coreos.com_prometheuses.yaml');

type Copier = (o: unknown) => unknown;

async function loadGenerated(): Promise<{ copy: Copier; schemaObject: unknown }> {
  const model = await parseCrdPaths([CRD]);
  const gv = groupVersions(model).find((g) => g.kinds.some((k) => k.resource.names.kind === 'Prometheus'));
  if (!gv) throw new Error('Prometheus kind not found');
  const dir = join(distRoot, 'bench-gen', gv.group, gv.version);
  mkdirSync(dir, { recursive: true });
  const runtime = relative(dir, join(distRoot, '../packages/runtime/dist/index.js')).split('\\').join('/');
  const graph = new TypeGraph(gv);
  const ts = emitDeepCopy(gv, { graph, runtimeImport: runtime.startsWith('.') ? runtime : `./${runtime}` });
  writeFileSync(join(dir, 'deepcopy.ts'), ts);
  writeFileSync(join(dir, 'deepcopy.js'), stripTypeScriptTypes(ts));
  const mod = (await import(pathToFileURL(join(dir, 'deepcopy.js')).href)) as Record<string, Copier>;
  const kv = gv.kinds.find((k) => k.resource.names.kind === 'Prometheus')!;
  const spec = sampleFromSchema(kv.version.schema, { maxDepth: 9, arrayLength: 2 }) as Record<string, unknown>;
  const obj = {
    apiVersion: `${gv.group}/${gv.version}`,
    kind: 'Prometheus',
    metadata: {
      name: 'k8s',
      namespace: 'monitoring',
      uid: '0b8e1c8e-6a3f-4f0e-9d43-1f0c7f0e2a11',
      resourceVersion: '123456',
      generation: 7,
      creationTimestamp: '2024-01-02T03:04:05Z',
      labels: { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/part-of': 'kube-prometheus' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"json"}' },
      managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }],
    },
    spec: spec['spec'],
    status: spec['status'],
  };
  return { copy: mod['deepCopyPrometheus']!, schemaObject: obj };
}

function opsPerSecond(fn: () => unknown, ms: number): number {
  for (let i = 0; i < 50; i++) fn(); // warm-up
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 20; i++) fn();
    n += 20;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

async function main(): Promise<void> {
  const { copy, schemaObject: obj } = await loadGenerated();
  const copied = copy(obj);
  deepStrictEqual(copied, obj);
  const bytes = JSON.stringify(obj).length;
  const ms = Number(process.env['BENCH_MS'] ?? 1500);
  const results = {
    generated: opsPerSecond(() => copy(obj), ms),
    structuredClone: opsPerSecond(() => structuredClone(obj), ms),
    jsonRoundTrip: opsPerSecond(() => JSON.parse(JSON.stringify(obj)), ms),
  };
  console.log(`object: Prometheus, ${(bytes / 1024).toFixed(1)} KiB of JSON`);
  for (const [name, ops] of Object.entries(results)) console.log(`${name.padEnd(16)} ${ops.toFixed(0).padStart(8)} ops/s`);
  console.log(`generated / structuredClone = ${(results.generated / results.structuredClone).toFixed(2)}x`);
  console.log(`generated / JSON round trip = ${(results.generated / results.jsonRoundTrip).toFixed(2)}x`);
  if (results.generated <= results.structuredClone) {
    console.log('WARNING: generated deep copy is not faster than structuredClone');
    process.exitCode = 1;
  }
}

await main();
