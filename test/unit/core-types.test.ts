/**
 * Embedded core types (issue 9): sub-schemas that are Kubernetes' own structs are typed with the runtime's types,
 * recognised by structure (generate/types/core-types.ts); opt-outs; the CLI's summary and `--explain`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { generate } from 'kubegen/internal/generate/index.js';
import { CoreTypeMatcher, DRIFT_RATIO, TypeGraph, emitTypes } from 'kubegen/internal/generate/types/index.js';
import type { CoreTypeUse } from 'kubegen/internal/generate/types/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { builtinSchema } from 'kubegen/internal/builtin-api/schemas.js';
import { thingCrd } from '../support/crd-yaml.js';
import { fixture } from '../support/paths.js';
import { runCodegenBin } from '../support/cli.js';
import { typeCheckProject } from '../support/type-check.js';

const ROLLOUT = fixture('crds', 'argo-rollouts', 'rollout-crd.yaml');
const str: JSONSchemaProps = { type: 'string' };
const strings: JSONSchemaProps = { type: 'array', items: str };
const obj = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });

/**
 * Properties of a built-in type as controller-gen writes them into a CRD (`names` of them): a CRD of an older
 * Kubernetes, or trimmed, has a subset.
 */
function subset(definition: string, names: readonly string[], extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  const full = builtinSchema(`io.k8s.api.core.v1.${definition}`)!;
  const properties = Object.fromEntries(names.map((n) => [n, full.properties![n]!]));
  const required = (full.required ?? []).filter((r) => names.includes(r));
  return { type: 'object', properties: { ...properties, ...extra }, ...(required.length ? { required } : {}) };
}

/** A Container as a CRD inlines it (a subset of corev1.Container's fields). */
function container(extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return subset('Container', ['name', 'image', 'command', 'args', 'workingDir', 'imagePullPolicy', 'env', 'ports'], extra);
}

function rolloutGv() {
  return parseCrdPaths([ROLLOUT]).then((m) => groupVersions(m)[0]!);
}

const run = runCodegenBin;

describe('core type matching', () => {
  const matcher = new CoreTypeMatcher();

  it('takes a Container, a PodSpec and a PodTemplateSpec by structure', () => {
    assert.equal(matcher.match(container())?.type.name, 'Container');
    const podSpec = subset('PodSpec', ['nodeSelector', 'restartPolicy', 'serviceAccountName'], { containers: { type: 'array', items: container(), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } });
    podSpec.required = ['containers'];
    assert.equal(matcher.match(podSpec)?.type.name, 'PodSpec');
    const template = obj({ metadata: obj({ labels: { type: 'object', additionalProperties: str } }), spec: podSpec });
    const m = matcher.match(template);
    assert.equal(m?.type.name, 'PodTemplateSpec');
    assert.deepEqual([m.extras, m.drift], [[], []]);
  });

  it('a struct with a few fields of its own extends the core type; one mostly of its own is not one', () => {
    const script = matcher.match(container({ source: str }));
    assert.equal(script?.type.name, 'Container');
    assert.deepEqual(script.extras, ['source']);
    // Three container fields and four of its own (a Tekton-like step): not a Container.
    assert.equal(matcher.match(obj({ name: str, image: str, command: strings, script: str, timeout: str, onError: str, results: strings })), undefined);
  });

  it('refuses a look-alike: different JSON kinds, or nested objects with fields the model lacks (Argo args are not EnvVars)', () => {
    assert.equal(matcher.match(container({ ports: str })), undefined, 'ports as a string');
    const argoArg = obj({ name: str, value: str, valueFrom: obj({ fieldRef: obj({ fieldPath: str }), podTemplateHashValue: str, secretKeyRef: obj({ name: str, key: str }) }) });
    assert.equal(matcher.match(argoArg), undefined);
    const fluxKubeConfig = obj({ configMapRef: obj({ name: str }), secretRef: obj({ name: str, key: str }) });
    assert.equal(matcher.match(fluxKubeConfig), undefined, 'secretRef with a key is not EnvFromSource.secretRef');
  });

  it(`tolerates version drift (one unknown field in ${DRIFT_RATIO} of a large struct) and reports it`, () => {
    const props: Record<string, JSONSchemaProps> = { containers: { type: 'array', items: container(), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } };
    for (const f of ['hostname', 'subdomain', 'schedulerName', 'priorityClassName', 'runtimeClassName', 'serviceAccountName', 'restartPolicy', 'dnsPolicy', 'nodeName', 'preemptionPolicy', 'hostNetwork', 'hostPID', 'hostIPC', 'setHostnameAsFQDN', 'shareProcessNamespace', 'automountServiceAccountToken', 'enableServiceLinks', 'hostUsers', 'terminationGracePeriodSeconds']) {
      props[f] = /^(host(Network|PID|IPC|Users)|set|share|automount|enable)/.test(f) ? { type: 'boolean' } : f === 'terminationGracePeriodSeconds' ? { type: 'integer' } : str;
    }
    const template = obj({ spec: { ...obj({ ...props, aFieldFromKubernetes2030: str }), required: ['containers'] } });
    const m = matcher.match(template);
    assert.equal(m?.type.name, 'PodTemplateSpec');
    assert.deepEqual(m.drift, ['spec.aFieldFromKubernetes2030']);
    const tooMuch = obj({ spec: { ...obj({ ...props, a1: str, a2: str }), required: ['containers'] } });
    assert.notEqual(matcher.match(tooMuch)?.type.name, 'PodTemplateSpec', 'two unknown fields in 22 are not drift');
  });
});

describe('core types only where the schemas match (issue 38, item 7)', () => {
  const matcher = new CoreTypeMatcher();
  const condition = builtinSchema('io.k8s.apimachinery.pkg.apis.meta.v1.Condition')!;
  const selector = builtinSchema('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector')!;

  it('keeps its own type for a condition that leaves optional what metav1.Condition requires (Crossplane omits message), saying why', () => {
    assert.equal(matcher.match(condition)?.type.name, 'Condition', 'controller-gen\'s metav1.Condition is one');
    const crossplane = { ...condition, required: ['lastTransitionTime', 'reason', 'status', 'type'] };
    const r = matcher.matchOrMiss(crossplane, 'conditions');
    assert.equal(r.match, undefined);
    assert.equal(r.miss?.type.name, 'Condition');
    assert.deepEqual(r.miss?.differences, ['requires lastTransitionTime, reason, status, type, the core type requires lastTransitionTime, message, reason, status, type']);
  });

  it('keeps its own type for a selector with a oneOf and free-form matchLabels (Linkerd\'s podSelector)', () => {
    const linkerd: JSONSchemaProps = {
      ...selector,
      oneOf: [{ required: ['matchExpressions'] }, { required: ['matchLabels'] }],
      properties: { ...selector.properties, matchLabels: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    };
    const r = matcher.matchOrMiss(linkerd, 'podSelector');
    assert.equal(r.match, undefined);
    assert.deepEqual(r.miss?.differences, ['has oneOf']);
    const structured = { ...selector, 'x-kubernetes-preserve-unknown-fields': true };
    assert.deepEqual(matcher.matchOrMiss(structured, 'podSelector').miss?.differences, ['keeps unknown fields, the core type does not'], 'a structured object that keeps unknown fields differs too');
  });

  it('types resource quantities as int-or-string (the server takes cpu: 2) and refuses a string-only copy', () => {
    const resources = builtinSchema('io.k8s.api.core.v1.ResourceRequirements')!;
    assert.equal(matcher.match(resources, 'resources')?.type.name, 'ResourceRequirements');
    const strings = { ...resources, properties: { ...resources.properties, limits: { type: 'object', additionalProperties: { type: 'string' } } } } as JSONSchemaProps;
    assert.deepEqual(matcher.matchOrMiss(strings, 'resources').miss?.differences, ['limits{}: a string, the core type\'s is int-or-string']);
  });

  it('--explain lists each schema part like a core type that keeps its own type, and why', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-core-miss-'));
    try {
      const crossplane = { ...condition, required: ['lastTransitionTime', 'reason', 'status', 'type'] };
      fs.writeFileSync(path.join(dir, 'thing.yaml'), thingCrd({ conditions: JSON.stringify({ type: 'array', items: crossplane }) }));
      const r = run(dir, 'generate', '--crds', 'thing.yaml', '--out', 'gen', '--explain');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^x\.io\/v1 Thing spec\.conditions\[\]: like Condition, but its own type:\n {2}requires lastTransitionTime, reason, status, type, the core type requires lastTransitionTime, message, reason, status, type$/m);
      assert.match(r.stdout, /^core types: none; 1 schema parts like a core type but different keep their own$/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('generated types with core types', () => {
  it("types the Argo Rollout's spec.template as the runtime's PodTemplateSpec, and a controller assigns one without a cast (tsc --strict)", async () => {
    const model = await parseCrdPaths([ROLLOUT]);
    const uses: CoreTypeUse[] = [];
    const files = generate(model, { onCoreTypes: (_gv, u) => void uses.push(...u) });
    const types = files.find((f) => f.path === 'argoproj.io/v1alpha1/types.ts')!.content;
    assert.match(types, /^import type \{ [^}]*\bPodTemplateSpec\b[^}]*\} from "@kubegen\/runtime\/api\/core\/v1";$/m);
    assert.match(types, /^ {2}template\?: PodTemplateSpec;$/m);
    assert.doesNotMatch(types, /interface RolloutSpecTemplate\b/);
    assert.match(types, /^export interface RolloutStatusCondition extends Condition \{$/m, 'a condition with lastUpdateTime extends Condition');
    assert.ok(uses.some((u) => u.kind === 'Rollout' && u.where === 'spec.template' && u.type.name === 'PodTemplateSpec'));

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-core-types-'));
    try {
      for (const f of files) {
        fs.mkdirSync(path.dirname(path.join(dir, 'generated', f.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, 'generated', f.path), f.content);
      }
      fs.writeFileSync(
        path.join(dir, 'controller.ts'),
        [
          `import type { Deployment } from '@kubegen/runtime';
import type { PodTemplateSpec } from '@kubegen/runtime/api/core/v1';`,
          `import type { Rollout } from './generated/argoproj.io/v1alpha1/index.js';`,
          `import { deepCopyRollout } from './generated/argoproj.io/v1alpha1/index.js';`,
          ``,
          `/** A Rollout running what a Deployment runs: the Deployment's pod template goes in as it is. */`,
          `export function rolloutFor(d: Deployment): Rollout {`,
          `  const template: PodTemplateSpec = d.spec!.template;`,
          `  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: d.metadata!.name! }, spec: { template, selector: d.spec!.selector } };`,
          `}`,
          ``,
          `export function firstImage(r: Rollout): string | undefined {`,
          `  const t: PodTemplateSpec | undefined = deepCopyRollout(r).spec?.template;`,
          `  return t?.spec?.containers[0]?.image;`,
          `}`,
          ``,
        ].join('\n'),
      );
      const output = typeCheckProject(dir);
      assert.equal(output, '', `tsc:\n${output.slice(0, 3000)}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('turns off globally (coreTypes: false) or per CRD (annotation kubegen.io/core-types: "false")', async () => {
    const gv = await rolloutGv();
    assert.match(emitTypes(gv), /template\?: PodTemplateSpec;/);
    const off = emitTypes(gv, { graph: new TypeGraph(gv, { coreTypes: false }) });
    assert.doesNotMatch(off, /PodTemplateSpec|@kubegen\/runtime";\n.*Container/);
    assert.match(off, /^ {2}template\?: RolloutSpecTemplate;$/m);

    const field = '{type: object, required: [name], properties: {name: {type: string}, image: {type: string}, command: {type: array, items: {type: string}}, args: {type: array, items: {type: string}}}}';
    const plain = thingCrd({ c: field });
    const annotated = plain.replace('metadata: {name: things.x.io}', 'metadata: {name: things.x.io, annotations: {kubegen.io/core-types: "false"}}');
    assert.notEqual(annotated, plain, 'the annotation was added');
    const typesOf = (text: string): string => emitTypes(groupVersions({ resources: parseCrdText(text, 'c.yaml') })[0]!);
    assert.match(typesOf(plain), /c\?: Container;/);
    assert.doesNotMatch(typesOf(annotated), /Container/);
  });
});

describe('codegen generate and core types', () => {
  it('prints a summary line, lists every match with --explain, and --no-core-types or coreTypes: false in the config turn it off', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-core-cli-'));
    try {
      const g = run(dir, 'generate', '--crds', ROLLOUT, '--out', 'gen');
      assert.equal(g.code, 0, g.stderr);
      assert.match(g.stdout, /^core types: \d+ schema parts typed with \d+ runtime types \(.*PodTemplateSpec ×1.*\); --explain lists them$/m);
      const e = run(dir, 'generate', '--crds', ROLLOUT, '--out', 'gen', '--explain');
      assert.match(e.stdout, /^argoproj\.io\/v1alpha1 Rollout spec\.template: PodTemplateSpec$/m);
      assert.match(e.stdout, /^argoproj\.io\/v1alpha1 Rollout status\.conditions\[\]: extends Condition \(\+ lastUpdateTime\)$/m);
      assert.equal(run(dir, 'verify', '--crds', ROLLOUT, '--out', 'gen').code, 0);

      const n = run(dir, 'generate', '--crds', ROLLOUT, '--out', 'gen', '--no-core-types');
      assert.equal(n.code, 0, n.stderr);
      assert.doesNotMatch(n.stdout, /core types/);
      assert.doesNotMatch(fs.readFileSync(path.join(dir, 'gen/argoproj.io/v1alpha1/types.ts'), 'utf8'), /PodTemplateSpec/);
      assert.equal(run(dir, 'verify', '--crds', ROLLOUT, '--out', 'gen').code, 1, 'verify without the flag sees the difference');

      fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), `crds: [${JSON.stringify(ROLLOUT)}]\nout: gen\ncoreTypes: false\n`);
      assert.equal(run(dir, 'verify').code, 0, 'coreTypes: false in the config file');
      fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), `crds: [${JSON.stringify(ROLLOUT)}]\nout: gen\ncoreTypes: "no"\n`);
      assert.match(run(dir, 'verify').stderr, /codegen\.config\.yaml:3:\d+ \(at coreTypes\): coreTypes must be true or false/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
