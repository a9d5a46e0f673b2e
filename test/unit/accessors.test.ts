/**
 * Accessors that do not move (issues 25 and 38): a group's accessors (`cs.servingKnativeV1`, `ServingKnativeV1Client`,
 * the informer factory's `servingKnativeV1`) come from the group alone — its DNS labels but the top-level domain, or a
 * name given with `groupAccessors` / `--group-accessor` / `+groupGoName=` — so generating any subset of the corpus
 * names every group as generating the whole corpus does, and a Crossplane v2 provider's `.m.` twins do not clash; two
 * groups with one name (they differ in the top-level domain alone) are an error naming both and the fix. Plurals are
 * cased by the kind's words (`envoyProxies()`, `cephNfses()`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
// prng: explore's seeded PRNG (mulberry32), so a failing subset can be replayed from the seed in the message.
import { prng } from '@kubegen/runtime/internal/testing/explore/mutate.js';
import { main } from 'kubegen/internal/cli/main.js';
import type { MainIO } from 'kubegen/internal/cli/main.js';
import { parseConfigText } from 'kubegen/internal/config/config-file.js';
import { generate } from 'kubegen/internal/generate/index.js';
import type { GeneratedFile } from 'kubegen/internal/generate/index.js';
import { pluralMember } from 'kubegen/internal/generate/names.js';
import { groupIdentifier, InputError } from 'kubegen/internal/model/index.js';
import type { ApiModel, KindVersion, ResourceModel } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { corpusRuns } from '../support/corpus.js';
import { fixture } from '../support/paths.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-accessors-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A one-version CRD of `kind` in `group`, as YAML text. */
function crd(group: string, kind: string, plural = `${kind.toLowerCase()}s`): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}, listKind: ${kind}List}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}}
`;
}

const model = (...docs: [group: string, kind: string][]): ApiModel => ({ resources: docs.flatMap(([g, k], i) => parseCrdText(crd(g, k), `crd${i}.yaml`)) });

/**
 * Group/version → clientset member and client class, `informers:` + group/version → the informer factory's member,
 * and group/version/kind → accessor on its group client and its informers.
 */
function accessors(files: readonly GeneratedFile[]): Map<string, string> {
  const out = new Map<string, string>();
  const clientset = files.find((f) => f.path === 'clientset.ts')!.content;
  for (const m of clientset.matchAll(/\/\*\* The (\S+) API\. \*\/\n {2}readonly (\w+): (\w+);/g)) out.set(m[1]!, `${m[2]} ${m[3]}`);
  const informers = files.find((f) => f.path === 'informers.ts')!.content;
  for (const m of informers.matchAll(/^import \{ (\w+)Informers \} from "\.\/(.+)\/informers\.js";$/gm)) {
    const member = new RegExp(`^ {2}readonly (\\w+): ${m[1]}Informers;$`, 'm').exec(informers)?.[1];
    out.set(`informers:${m[2]}`, `${member} ${m[1]}Informers`);
  }
  for (const f of files) {
    const [, gv, mod] = /^(.+\/[^/]+)\/(client|informers)\.ts$/.exec(f.path) ?? [];
    if (!gv) continue;
    const re = mod === 'client' ? /^ {2}(\w+)\((?:namespace: string)?\): (\w+)Interface \{$/gm : /^ {2}(\w+)\(opts: \w+<(\w+)> = \{\}\): \w+Informer \{$/gm;
    for (const m of f.content.matchAll(re)) out.set(`${mod}:${gv}/${m[2]}`, m[1]!);
  }
  return out;
}

/**
 * The resources with one trivial schema per version: accessors never depend on schemas, and this keeps the
 * property test fast (type generation dominates the cost of `generate`).
 */
function withoutSchemas(resources: readonly ResourceModel[]): ResourceModel[] {
  return resources.map((r) => ({ ...r, versions: r.versions.map((v) => ({ ...v, schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } })) }));
}


describe('group accessors', () => {
  it('come from the DNS labels but the top-level domain, camel-cased, so no two groups of a Crossplane v2 provider clash', () => {
    assert.equal(groupIdentifier('serving.knative.dev'), 'servingKnative');
    assert.equal(groupIdentifier('cert-manager.io'), 'certManager');
    assert.equal(groupIdentifier('gateway.networking.k8s.io'), 'gatewayNetworkingK8s');
    assert.equal(groupIdentifier('3scale.example.com'), 'g3scaleExample');
    assert.equal(groupIdentifier('k8s.mariadb.com'), 'k8sMariadb');
    assert.equal(groupIdentifier('example'), 'example');
    assert.equal(groupIdentifier('kubernetes.crossplane.io'), 'kubernetesCrossplane');
    assert.equal(groupIdentifier('kubernetes.m.crossplane.io'), 'kubernetesMCrossplane');
    assert.equal(groupIdentifier('rds.aws.upbound.io'), 'rdsAwsUpbound');
    assert.equal(groupIdentifier('rds.aws.m.upbound.io'), 'rdsAwsMUpbound');
  });

  it("generates a Crossplane v2 provider's cluster-scoped and namespaced twins with no configuration (provider-helm, provider-upjet-azuread)", async () => {
    for (const [dir, names] of [
      ['provider-helm', ['helmCrossplaneV1beta1 HelmCrossplaneV1beta1Client', 'helmMCrossplaneV1beta1 HelmMCrossplaneV1beta1Client']],
      ['provider-upjet-azuread', ['invitationsAzureadUpboundV1beta1 InvitationsAzureadUpboundV1beta1Client', 'invitationsAzureadMUpboundV1beta1 InvitationsAzureadMUpboundV1beta1Client']],
    ] as const) {
      const m = await parseCrdPaths([fixture('crds-wave5', dir)]);
      const got = [...accessors(generate(m)).entries()].filter(([k]) => !k.includes(':')).map(([, v]) => v);
      for (const name of names) assert.ok(got.includes(name), `${dir}: ${name} among ${got.join(', ')}`);
    }
  });

  it('generating any subset of the corpus gives every group and kind the accessor the whole corpus gives it', async () => {
    const runs = (await Promise.all(corpusRuns().map((files) => parseCrdPaths(files)))).map((m) => withoutSchemas(m.resources));
    const whole = new Map<string, string>();
    for (const resources of runs) for (const [k, v] of accessors(generate({ resources }))) whole.set(k, v);
    assert.ok(whole.size > 200, `accessors found (${whole.size})`);
    assert.equal(whole.get('serving.knative.dev/v1'), 'servingKnativeV1 ServingKnativeV1Client');
    assert.equal(whole.get('informers:security.istio.io/v1'), 'securityIstioV1 SecurityIstioV1Informers');
    assert.equal(whole.get('client:security.istio.io/v1/AuthorizationPolicy'), 'authorizationPolicies');
    assert.equal(whole.get('informers:kyverno.io/v1/ClusterPolicy'), 'clusterPolicies');
    const seed = Number(process.env['KUBEGEN_TEST_SEED'] ?? Date.now() % 1_000_000);
    const random = prng(seed);
    const all = runs[0]!;
    for (let round = 0; round < 40; round++) {
      const subset = all.filter(() => random() < 0.02 + 0.02 * round);
      if (subset.length === 0) subset.push(all[Math.floor(random() * all.length)]!);
      const got = accessors(generate({ resources: subset }));
      assert.ok(got.size > 0);
      for (const [k, v] of got) {
        assert.equal(v, whole.get(k), `${k} with ${subset.length} CRDs (${subset.map((r) => r.names.kind).join(', ')}); KUBEGEN_TEST_SEED=${seed} replays it`);
      }
    }
  });

  it('adding a CRD of a group that differs in the top-level domain alone never renames an existing accessor: it is an error until one is named', () => {
    const knative = model(['serving.knative.example', 'Service']);
    const one = accessors(generate(knative));
    assert.equal(one.get('serving.knative.example/v1'), 'servingKnativeV1 ServingKnativeV1Client');
    const kserve = model(['serving.knative.example', 'Service'], ['serving.kserve.example', 'InferenceService']);
    assert.equal(accessors(generate(kserve)).get('serving.kserve.example/v1'), 'servingKserveV1 ServingKserveV1Client', 'different second labels do not clash');
    const both = model(['serving.knative.example', 'Service'], ['serving.knative.test', 'InferenceService']);
    assert.throws(
      () => generate(both),
      (e: unknown) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, /^crd1\.yaml:1:1: groups serving\.knative\.example and serving\.knative\.test would both name their accessors servingKnative \(servingKnativeV1, …\); give one its own name: groupAccessors: \{ serving\.knative\.test: servingKnativeTest \} in codegen\.config\.yaml \(or \+groupGoName=ServingKnativeTest in the doc comment of its TypeScript package\)$/);
        return true;
      },
    );
    const named = accessors(generate(both, { groupAccessors: { 'serving.knative.test': 'kserve' } }));
    assert.equal(named.get('serving.knative.example/v1'), 'servingKnativeV1 ServingKnativeV1Client', 'the existing accessor stays');
    assert.equal(named.get('serving.knative.test/v1'), 'kserveV1 KserveV1Client');
    assert.equal(named.get('client:serving.knative.test/v1/InferenceService'), 'inferenceServices');
    // A PascalCase name (client-go's +groupGoName style) starts lower-case on the clientset.
    assert.equal(accessors(generate(both, { groupAccessors: { 'serving.knative.test': 'KServe' } })).get('serving.knative.test/v1'), 'kServeV1 KServeV1Client');
    assert.throws(() => generate(both, { groupAccessors: { 'serving.knative.test': 'servingKnative' } }), /would both name their accessors servingKnative/);
    assert.throws(() => generate(knative, { groupAccessors: { 'serving.knative.example': 'k-native' } }), /group serving\.knative\.example: "k-native" cannot name a group's accessors/);
  });

  it('codegen.config.yaml groupAccessors and --group-accessor name them; a bad entry names the file, line and column', async () => {
    const cfg = parseConfigText('crds: [c]\nout: o\ngroupAccessors:\n  serving.kserve.example: kserve\n', '/p/codegen.config.yaml', 'codegen.config.yaml');
    assert.deepEqual(cfg.groupAccessors, { 'serving.kserve.example': 'kserve' });
    assert.throws(() => parseConfigText('groupAccessors:\n  serving.kserve.example: k serve\n', '/p/c.yaml', 'c.yaml'), /^InputError: c\.yaml:2:27 \(at groupAccessors\.serving\.kserve\.example\): groupAccessors\.serving\.kserve\.example: "k serve" cannot name/);
    assert.throws(() => parseConfigText('groupAccessors: [a]\n', '/p/c.yaml', 'c.yaml'), /c\.yaml:1:17 \(at groupAccessors\): groupAccessors must be a mapping of API group to accessor name/);

    const dir = path.join(tmp, 'cli');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'crds.yaml'), `${crd('serving.knative.example', 'Service')}---\n${crd('serving.knative.test', 'InferenceService')}`);
    let err = '';
    const io: MainIO = { cwd: dir, env: {}, stdout: () => undefined, stderr: { write: (s: string) => (err += s) }, now: () => 0 };
    assert.equal(await main(['generate', '--crds', 'crds.yaml', '--out', 'gen', '-q'], io), 1);
    assert.match(err, /would both name their accessors servingKnative/);
    assert.ok(!fs.existsSync(path.join(dir, 'gen')), 'nothing written');
    err = '';
    assert.equal(await main(['generate', '--crds', 'crds.yaml', '--out', 'gen', '-q', '--group-accessor', 'serving.knative.test=kserve'], io), 0, err);
    const clientset = fs.readFileSync(path.join(dir, 'gen', 'clientset.ts'), 'utf8');
    assert.match(clientset, /^ {2}readonly kserveV1: KserveV1Client;$/m);
    assert.match(clientset, /^ {2}readonly servingKnativeV1: ServingKnativeV1Client;$/m);
    assert.equal(await main(['generate', '--crds', 'crds.yaml', '--out', 'gen', '--group-accessor', 'serving.knative.test'], io), 2);
    assert.match(err, /--group-accessor serving\.knative\.test: expected <group>=<name>/);
  });

  it('+groupGoName= in a TypeScript package names its group as client-go does', async () => {
    const dir = path.join(tmp, 'apis', 'serving', 'v1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'doc.ts'), '/**\n * +groupName=serving.kserve.example\n * +groupGoName=KServe\n */\nexport {};\n');
    fs.writeFileSync(
      path.join(dir, 'types.ts'),
      `import type { ObjectMeta, ListMeta } from '@kubegen/runtime';
/** +kubebuilder:object:root=true */
export interface InferenceService { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { model?: string } }
export interface InferenceServiceList { apiVersion?: string; kind?: string; metadata?: ListMeta; items: InferenceService[] }
`,
    );
    const m = await parseApis(path.join(tmp, 'apis'), { outDir: path.join(tmp, 'gen') });
    assert.deepEqual(m.groupAccessors, { 'serving.kserve.example': 'KServe' });
    m.resources.push(...parseCrdText(crd('serving.knative.example', 'Service'), 'knative.yaml'));
    const got = accessors(generate(m));
    assert.equal(got.get('serving.kserve.example/v1'), 'kServeV1 KServeV1Client');
    assert.equal(got.get('serving.knative.example/v1'), 'servingKnativeV1 ServingKnativeV1Client');
    assert.equal(accessors(generate(m, { groupAccessors: { 'serving.kserve.example': 'kserve' } })).get('serving.kserve.example/v1'), 'kserveV1 KserveV1Client', 'the config wins');
  });
});

describe('plural accessors', () => {
  const kv = (kind: string, plural: string): KindVersion => ({ resource: { names: { kind, plural } } }) as unknown as KindVersion;
  const cases: [kind: string, plural: string, member: string][] = [
    ['EnvoyProxy', 'envoyproxies', 'envoyProxies'],
    ['CephNFS', 'cephnfses', 'cephNfses'],
    ['ClusterPolicy', 'clusterpolicies', 'clusterPolicies'],
    ['GitRepository', 'gitrepositories', 'gitRepositories'],
    ['ServiceEntry', 'serviceentries', 'serviceEntries'],
    ['HTTPRoute', 'httproutes', 'httpRoutes'],
    ['IPAddressPool', 'ipaddresspools', 'ipAddressPools'],
    ['Foo', 'foos', 'foos'],
    ['Mouse', 'mice', 'mice'],
    ['FooBar', 'foos', 'foos'],
    ['WidgetTemplate', 'widget-templates', 'widgetTemplates'],
  ];
  for (const [kind, plural, member] of cases) {
    it(`${kind} (${plural}) → ${member}()`, () => assert.equal(pluralMember(kv(kind, plural)), member));
  }

  it('the generated client and informers use them', () => {
    const files = generate({ resources: parseCrdText(crd('gateway.envoyproxy.example', 'EnvoyProxy', 'envoyproxies'), 'e.yaml') });
    assert.match(files.find((f) => f.path.endsWith('/v1/client.ts'))!.content, /^ {2}envoyProxies\(namespace: string\): EnvoyProxyInterface \{$/m);
    assert.match(files.find((f) => f.path.endsWith('/v1/informers.ts'))!.content, /^ {2}envoyProxies\(opts: /m);
  });
});
