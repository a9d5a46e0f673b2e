/**
 * `kubegen create webhook` (issue 11): the webhook code, its markers and tests, the registration in src/main.ts, the
 * deployment side (config/webhook, config/certmanager, config/default wiring) — generated, compiled under the
 * project's strict tsconfig, its unit tests run, and config/default rendered by kustomize. The envtest test it
 * writes runs in test/integration/newcomer.test.ts (a control plane of its own).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';
import { runCli } from '../support/cli.js';

const cli = runCli;

const read = (dir: string, p: string): string => fs.readFileSync(path.join(dir, p), 'utf8');

test('create webhook: code, markers, tests and deployment wiring that generate, compile, pass and render', async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-webhook-'));
  const dir = path.join(tmp, 'fleet-operator');
  try {
    assert.equal((await cli(tmp, 'init', '--domain', 'example.com', 'fleet-operator')).code, 0);
    assert.equal((await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate')).code, 0);
    const none = await cli(dir, 'create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
    assert.equal(none.code, 1);
    assert.match(none.err, /pass --defaulting, --programmatic-validation and\/or --conversion/);
    const missing = await cli(dir, 'create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Sloop', '--defaulting');
    assert.match(missing.err, /kind Sloop does not exist in ships\.example\.com\/v1: run "kubegen create api" first/);
    const typo = await cli(dir, 'create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Firgate', '--defaulting');
    assert.match(typo.err, /kind Firgate does not exist in ships\.example\.com\/v1 \(did you mean Frigate\?\)/);

    const made = await cli(dir, 'create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate', '--defaulting', '--programmatic-validation');
    assert.equal(made.code, 0, made.err);
    const webhook = read(dir, 'src/webhooks/frigate-webhook.ts');
    assert.match(webhook, /^\/\/ \+kubebuilder:webhook:path=\/mutate-ships-example-com-v1-frigate,mutating=true,failurePolicy=fail,sideEffects=None,groups=ships\.example\.com,resources=frigates,verbs=create;update,versions=v1,name=mfrigate-v1\.ships\.example\.com,admissionReviewVersions=v1$/m);
    assert.match(webhook, /^\/\/ \+kubebuilder:webhook:path=\/validate-ships-example-com-v1-frigate,mutating=false,/m);
    const mainTs = read(dir, 'src/main.ts');
    assert.match(mainTs, /^import \{ setupFrigateWebhook \} from '\.\/webhooks\/frigate-webhook\.js';$/m);
    assert.match(mainTs, /^ {4}setupFrigateWebhook\(webhookServer\);\n {4}\/\/ \+kubegen:scaffold:webhooks$/m);
    assert.deepEqual(parse(read(dir, 'codegen.config.yaml')).rbacSources, ['src/controllers', 'src/webhooks']);
    assert.match(read(dir, 'config/default/kustomization.yaml'), / {2}- \.\.\/webhook\n {2}- \.\.\/certmanager\n/);
    const again = await cli(dir, 'create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate', '--defaulting');
    assert.equal(again.code, 1);
    assert.match(again.err, /already exists|already calls setupFrigateWebhook/);

    const gen = await cli(dir, 'generate', '-q');
    assert.equal(gen.code, 0, gen.err);
    const manifests = read(dir, 'config/webhook/manifests.yaml').split(/^---$/m).slice(1).map((d) => parse(d));
    assert.deepEqual(manifests.map((m) => [m.kind, m.webhooks[0].name, m.webhooks[0].clientConfig.service.path]), [
      ['MutatingWebhookConfiguration', 'mfrigate-v1.ships.example.com', '/mutate-ships-example-com-v1-frigate'],
      ['ValidatingWebhookConfiguration', 'vfrigate-v1.ships.example.com', '/validate-ships-example-com-v1-frigate'],
    ]);
    assert.equal((await cli(dir, 'verify')).code, 0);

    fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
    linkRuntimePackage(dir);
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
    const tsc = spawnSync(TSC, ['-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(tsc.status, 0, `tsc failed:\n${(tsc.stdout + tsc.stderr).slice(0, 4000)}`);
    const env = { ...process.env, NODE_TEST_CONTEXT: undefined, NODE_OPTIONS: '' };
    const unit = spawnSync(process.execPath, ['--test', 'dist/src/webhooks/frigate-webhook.test.js'], { cwd: dir, encoding: 'utf8', env });
    assert.equal(unit.status, 0, unit.stdout + unit.stderr);
    assert.match(unit.stdout, /pass 2/);

    if (spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status !== 0) {
      t.diagnostic('kubectl not found: config/default not rendered');
      return;
    }
    const rendered = spawnSync('kubectl', ['kustomize', 'config/default'], { cwd: dir, encoding: 'utf8' });
    assert.equal(rendered.status, 0, rendered.stderr);
    const docs = rendered.stdout.split(/^---$/m).map((d) => parse(d) as any);
    const certificate = docs.find((d) => d.kind === 'Certificate');
    assert.deepEqual(certificate.spec.dnsNames, ['fleet-operator-webhook-service.fleet-operator-system.svc', 'fleet-operator-webhook-service.fleet-operator-system.svc.cluster.local']);
    assert.equal(certificate.spec.issuerRef.name, 'fleet-operator-selfsigned-issuer');
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      const config = docs.find((d) => d.kind === kind);
      assert.equal(config.metadata.annotations['cert-manager.io/inject-ca-from'], 'fleet-operator-system/fleet-operator-serving-cert', kind);
      assert.deepEqual(config.webhooks[0].clientConfig.service, { name: 'fleet-operator-webhook-service', namespace: 'fleet-operator-system', path: config.webhooks[0].clientConfig.service.path });
    }
    const deployment = docs.find((d) => d.kind === 'Deployment');
    const container = deployment.spec.template.spec.containers[0];
    assert.ok(container.ports.some((p: any) => p.containerPort === 9443));
    assert.deepEqual(container.volumeMounts, [{ name: 'webhook-certs', mountPath: '/tmp/k8s-webhook-server/serving-certs', readOnly: true }]);
    assert.equal(deployment.spec.template.spec.volumes[0].secret.secretName, 'webhook-server-cert');
    assert.equal(docs.find((d) => d.kind === 'Service' && d.metadata.name === 'fleet-operator-webhook-service').spec.ports[0].targetPort, 9443);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('create webhook --conversion: hub = the storage version, CRD spec.conversion, compiled, and kustomize injects the CA into the CRD', async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-conversion-'));
  const dir = path.join(tmp, 'fleet-operator');
  try {
    assert.equal((await cli(tmp, 'init', '--domain', 'example.com', 'fleet-operator')).code, 0);
    assert.equal((await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate')).code, 0);
    const one = await cli(dir, 'create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate', '--conversion');
    assert.equal(one.code, 1);
    assert.match(one.err, /kind Frigate has one version \(v1\): conversion needs two/);
    assert.equal((await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate', '--controller=false')).code, 0);
    const made = await cli(dir, 'create', 'webhook', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate', '--conversion');
    assert.equal(made.code, 0, made.err);
    const conversion = read(dir, 'src/webhooks/frigate-conversion.ts');
    assert.match(conversion, /hub: 'ships\.example\.com\/v1',/);
    assert.match(conversion, /'ships\.example\.com\/v2': \{/);
    assert.match(read(dir, 'apis/ships/v1/frigate_types.ts'), / \* \+kubebuilder:storageversion\n \* \+kubegen:conversion:path=\/convert-ships-example-com-frigate\n/);
    assert.match(read(dir, 'src/main.ts'), /^ {4}setupFrigateConversion\(webhookServer\);$/m);
    assert.ok(fs.existsSync(path.join(dir, 'test/envtest/frigate-conversion.test.ts')));
    assert.ok(!fs.existsSync(path.join(dir, 'src/webhooks/frigate-webhook.ts')), 'no admission webhook asked for');

    assert.equal((await cli(dir, 'generate', '-q')).code, 0);
    const crd = parse(read(dir, 'config/crd/bases/ships.example.com_frigates.yaml')) as any;
    assert.deepEqual(crd.spec.conversion, {
      strategy: 'Webhook',
      webhook: { clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert-ships-example-com-frigate' } }, conversionReviewVersions: ['v1'] },
    });
    fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
    linkRuntimePackage(dir);
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
    const tsc = spawnSync(TSC, ['-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(tsc.status, 0, `tsc failed:\n${(tsc.stdout + tsc.stderr).slice(0, 4000)}`);

    if (spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status !== 0) {
      t.diagnostic('kubectl not found: config/default not rendered');
      return;
    }
    const rendered = spawnSync('kubectl', ['kustomize', 'config/default'], { cwd: dir, encoding: 'utf8' });
    assert.equal(rendered.status, 0, rendered.stderr);
    const crdOut = rendered.stdout.split(/^---$/m).map((d) => parse(d) as any).find((d) => d.kind === 'CustomResourceDefinition' && d.metadata.name === 'frigates.ships.example.com');
    assert.equal(crdOut.metadata.annotations['cert-manager.io/inject-ca-from'], 'fleet-operator-system/fleet-operator-serving-cert');
    assert.deepEqual(crdOut.spec.conversion.webhook.clientConfig.service, { name: 'fleet-operator-webhook-service', namespace: 'fleet-operator-system', path: '/convert-ships-example-com-frigate' });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('create webhook: the exports of an acronym kind are cased as its resource descriptor (kvStoreResource → kvStoreDefaulter)', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-webhook-case-'));
  const dir = path.join(tmp, 'kv-operator');
  try {
    assert.equal((await cli(tmp, 'init', '--domain', 'example.com', 'kv-operator')).code, 0);
    assert.equal((await cli(dir, 'create', 'api', '--group', 'kv', '--version', 'v1alpha1', '--kind', 'KVStore')).code, 0);
    const made = await cli(dir, 'create', 'webhook', '--group', 'kv', '--version', 'v1alpha1', '--kind', 'KVStore', '--defaulting', '--programmatic-validation');
    assert.equal(made.code, 0, made.err);
    const webhook = read(dir, 'src/webhooks/kvstore-webhook.ts');
    assert.match(webhook, /^export const kvStoreDefaulter: Defaulter<KVStore> = /m);
    assert.match(webhook, /^export const kvStoreValidator: Validator<KVStore> = /m);
    assert.match(webhook, /defaultingWebhook\(kvStoreDefaulter\)/);
    assert.doesNotMatch(webhook, /kVStore/);
    assert.match(read(dir, 'src/webhooks/kvstore-webhook.test.ts'), /import \{ kvStoreDefaulter, kvStoreValidator \} from '\.\/kvstore-webhook\.js';/);
    assert.equal((await cli(dir, 'generate', '-q')).code, 0);
    assert.match(read(dir, 'src/generated/kv.example.com/v1alpha1/register.ts'), /^export const kvStoreResource\b/m);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
