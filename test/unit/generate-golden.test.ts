import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { HEADER } from 'kubegen/internal/generate/emit-util.js';
import { assertGolden } from '../support/golden.js';
import { REPO_ROOT, SAMPLE_CRD, fixture } from '../support/paths.js';

const GOLDEN = path.join(REPO_ROOT, 'test', 'golden');

test('sample-controller Foo: the whole generated tree matches the golden copy', async () => {
  // The accessors client-go's (`samplecontrollerV1alpha1`), as examples/sample-controller/codegen.config.yaml names them.
  const files = generate(await parseCrdPaths([SAMPLE_CRD]), { groupAccessors: { 'samplecontroller.k8s.io': 'samplecontroller' } });
  assert.deepEqual(
    files.map((f) => f.path),
    [
      'samplecontroller.k8s.io/v1alpha1/types.ts',
      'samplecontroller.k8s.io/v1alpha1/applyconfigurations.ts',
      'samplecontroller.k8s.io/v1alpha1/deepcopy.ts',
      'samplecontroller.k8s.io/v1alpha1/register.ts',
      'samplecontroller.k8s.io/v1alpha1/client.ts',
      'samplecontroller.k8s.io/v1alpha1/listers.ts',
      'samplecontroller.k8s.io/v1alpha1/informers.ts',
      'samplecontroller.k8s.io/v1alpha1/index.ts',
      'clientset.ts',
      'fake.ts',
      'informers.ts',
      'index.ts',
    ],
  );
  for (const f of files) assert.ok(f.content.startsWith(`${HEADER}\n`), `${f.path} starts with the header`);
  assertGolden(path.join(GOLDEN, 'sample-controller'), files);
});

const HARD = [
  // embedded resources, preserve-unknown objects, cluster-scoped
  ['crossplane', 'apiextensions.crossplane.io_compositions.yaml'],
  // three versions (two served but not storage), Istio oneOf/not constraints, int-or-string
  ['istio', 'crd-all.gen.authorizationpolicies.security.istio.io.yaml'],
  // storage version that is not the newest, list-map keys
  ['gateway-api', 'gateway.networking.k8s.io_referencegrants.yaml'],
  // int-or-string, additionalProperties maps, printer columns
  ['keda', 'keda.sh_scaledobjects.yaml'],
] as const;

for (const [project, file] of HARD) {
  test(`hard fixture ${project}/${file} matches its golden copy`, async () => {
    const files = generate(await parseCrdPaths([fixture('crds', project, file)]));
    assertGolden(path.join(GOLDEN, 'hard', project), files);
  });
}

test('the scale and status subresources decide which verbs the typed client exposes', async () => {
  const files = generate(await parseCrdPaths([fixture('crds', 'strimzi', '041-Crd-kafkaconnect.yaml'), fixture('crds', 'velero', 'velero.io_backups.yaml')]));
  const strimzi = files.find((f) => f.path === 'kafka.strimzi.io/v1/client.ts')!.content;
  assert.match(strimzi, /export type KafkaConnectInterface = ResourceInterface<KafkaConnect, KafkaConnectList, KafkaConnectApply> & StatusInterface<KafkaConnect, KafkaConnectApply> & ScaleInterface;/);
  const register = files.find((f) => f.path === 'kafka.strimzi.io/v1/register.ts')!.content;
  assert.match(register, /"specReplicasPath":".spec.replicas"/);
  const velero = files.find((f) => f.path === 'velero.io/v1/client.ts')!.content;
  assert.match(velero, /export type BackupInterface = ResourceInterface<Backup, BackupList, BackupApply>;/);
});

test('namespaced kinds take a namespace, cluster-scoped kinds none', async () => {
  const files = generate(await parseCrdPaths([fixture('crds', 'cert-manager', 'cert-manager.io_issuers.yaml'), fixture('crds', 'cert-manager', 'cert-manager.io_clusterissuers.yaml')]));
  const client = files.find((f) => f.path === 'cert-manager.io/v1/client.ts')!.content;
  assert.match(client, /  issuers\(namespace: string\): IssuerInterface \{/);
  assert.match(client, /  clusterIssuers\(\): ClusterIssuerInterface \{/);
});

test('generation is deterministic whatever the input order', async () => {
  const a = generate(await parseCrdPaths([fixture('crds', 'keda'), fixture('crds', 'fluxcd')]));
  const b = generate(await parseCrdPaths([fixture('crds', 'fluxcd'), fixture('crds', 'keda')]));
  assert.deepEqual(a, b);
});
