/**
 * All of core/v1 that CRDs embed (issue 25, item 3): every core/v1 struct reachable from PodTemplateSpec, ServiceSpec
 * and PersistentVolumeClaimSpec is a runtime type the generator matches, and over the whole corpus no generated
 * interface re-declares one of them (an executable check, independent of the matcher's heuristics: a generated
 * interface whose fields are, at every depth, fields of one core type — all of them but one in four at its own level,
 * none it requires left optional by the type — must have been typed with that type).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { builtinDefinition, builtinFields, builtinSchema } from 'kubegen/internal/builtin-api/schemas.js';
import { CORE_TYPES } from 'kubegen/internal/model/core-types.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { TypeGraph } from 'kubegen/internal/generate/types/index.js';
import { coreTypeEntry } from 'kubegen/internal/generate/types/runtime-type-imports.js';
import type { ObjectDef } from 'kubegen/internal/generate/types/index.js';
import { corpusRuns } from '../support/corpus.js';
import { REPO_ROOT } from '../support/paths.js';
import { typeCheckProject } from '../support/type-check.js';

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** Whether definition `id` of the built-in API is a struct (not an enum, a scalar or a type the runtime provides). */
function isStruct(id: string): boolean {
  const d = builtinDefinition(id);
  return d !== undefined && d.runtimeName === undefined && d.schema.type === 'object' && d.schema.properties !== undefined;
}

/** Every struct of the built-in API reachable from `roots` through fields (lists and maps unwrapped). */
function reachable(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const walk = (id: string): void => {
    if (!isStruct(id) || seen.has(id)) return;
    seen.add(id);
    for (const f of builtinFields(id)) if (f.ref !== undefined) walk(f.ref);
  };
  roots.forEach(walk);
  return seen;
}

const requiredOf = (id: string): Set<string> => new Set(builtinFields(id).filter((f) => f.required).map((f) => f.name));

/**
 * Structs of other API groups with a core type's exact shape, which therefore are not that type: rbac/v1's Subject
 * (`{apiGroup, kind, name, namespace}`, Kyverno's `subjects[]`) is shaped like core/v1's TypedObjectReference.
 */
const LOOKALIKES: readonly { field: string; type: string }[] = [{ field: 'subject', type: 'TypedObjectReference' }];

/** Object metadata is the runtime's `ObjectMeta` (and what it holds), typed by its own rule. */
const METADATA = new Set([`${META}ObjectMeta`, `${META}ManagedFieldsEntry`, `${META}OwnerReference`]);

type Kind = 'string' | 'ios' | 'number' | 'boolean' | 'array' | 'object' | 'any';
function kind(s: JSONSchemaProps): Kind {
  if (s['x-kubernetes-int-or-string']) return 'ios' as Kind;
  if (s.type === 'integer' || s.type === 'number') return 'number';
  if (s.type === 'string' || s.type === 'boolean' || s.type === 'array') return s.type;
  return s.type === 'object' || s.properties || s.additionalProperties ? 'object' : 'any';
}

/**
 * True when every property of `s`, at every depth, is a property of `ref` of the same JSON kind, and `s` says nothing
 * the core type does not that the generated type shows: the same required properties (of those both have), no
 * `oneOf`/`anyOf`/`allOf`/`not`, the same keeping of unknown fields, no enum, the same list type and keys.
 */
function within(s: JSONSchemaProps, ref: JSONSchemaProps, exactly = true): boolean {
  const a = kind(s);
  const b = kind(ref);
  if (a !== b && a !== 'any' && b !== 'any' && (exactly || !['ios', 'string'].includes(a) || !['ios', 'string'].includes(b))) return false;
  if (!exactly) return a !== 'array' || !s.items || !ref.items || within(s.items, ref.items, false);
  if (s.oneOf || s.anyOf || s.allOf || s.not || (s.enum && !ref.enum)) return false;
  if (s['x-kubernetes-preserve-unknown-fields'] !== ref['x-kubernetes-preserve-unknown-fields'] && a === 'object') return false;
  if (a === 'array' && ((s['x-kubernetes-list-type'] ?? 'atomic') !== (ref['x-kubernetes-list-type'] ?? 'atomic') || (s['x-kubernetes-list-map-keys'] ?? []).join() !== (ref['x-kubernetes-list-map-keys'] ?? []).join())) return false;
  if (a === 'object') {
    const req = (x: JSONSchemaProps, other: JSONSchemaProps): string => (x.required ?? []).filter((p) => other.properties?.[p]).sort().join();
    if (req(s, ref) !== req(ref, s)) return false;
  }
  if (a === 'array' && s.items && ref.items) return within(s.items, ref.items, exactly);
  if (a === 'object' && b === 'object') {
    for (const [name, sub] of Object.entries(s.properties ?? {})) {
      const theirs = ref.properties?.[name];
      if (!theirs || !within(sub, theirs)) return false;
    }
    if (typeof s.additionalProperties === 'object' && typeof ref.additionalProperties === 'object') return within(s.additionalProperties, ref.additionalProperties);
  }
  return true;
}

describe('core/v1 structs CRDs embed', () => {
  const reach = [...reachable([`${CORE}PodTemplateSpec`, `${CORE}ServiceSpec`, `${CORE}PersistentVolumeClaimSpec`])].filter((m) => !METADATA.has(m));

  it('every core/v1 struct reachable from PodTemplateSpec, ServiceSpec and PersistentVolumeClaimSpec is a core type the runtime exports', () => {
    assert.ok(reach.length > 100, `${reach.length} structs reachable`);
    const models = new Map(CORE_TYPES.map((c) => [c.definition, c.name]));
    assert.deepEqual(reach.filter((m) => !models.has(m)), [], 'models without a core type');
    const index = fs.readFileSync(path.join(REPO_ROOT, 'packages', 'runtime', 'src', 'index.ts'), 'utf8');
    const exported = new Set([...index.matchAll(/^export type \{([^}]*)\} from/gm)].flatMap((m) => m[1]!.split(',').map((n) => n.trim())));
    // A core type is exported by the root, or by the group version entry point generated code imports it from.
    const exportedBy = (n: string): boolean => {
      const entry = coreTypeEntry(n);
      if (entry === undefined) return exported.has(n);
      const types = fs.readFileSync(path.join(REPO_ROOT, 'packages', 'runtime', 'src', entry, 'types.ts'), 'utf8');
      return new RegExp(`^export (interface|type) ${n}\\b`, 'm').test(types);
    };
    assert.deepEqual(CORE_TYPES.map((c) => c.name).filter((n) => !exportedBy(n)), [], 'core types the runtime does not export');
    assert.equal(new Set(CORE_TYPES.map((c) => c.name)).size, CORE_TYPES.length, 'one entry per name');
  });

  it('over the corpus, no generated interface re-declares a core type the runtime can type', async () => {
    const refs = CORE_TYPES.map((c) => ({ name: c.name, schema: builtinSchema(c.definition)!, required: requiredOf(c.definition) }));
    const redeclared: string[] = [];
    let defs = 0;
    const matched = new Set<string>();
    for (const files of corpusRuns()) {
      for (const gv of groupVersions(await parseCrdPaths(files))) {
        const graph = new TypeGraph(gv);
        for (const u of graph.coreTypeUses) matched.add(u.type.name);
        for (const def of graph.orderedDefs()) {
          if (def.fixedName !== undefined || def.base !== undefined) continue;
          defs++;
          const shaped = refs.filter((r) => isCopyOf(def, r, false) && !LOOKALIKES.some((l) => l.type === r.name && def.paths.every((p) => p.at(-1) === l.field)));
          // Several core types with these fields (`{name, value}`: HTTPHeader, Sysctl, a DNS option): the struct's
          // own name says more than any of them would.
          if (shaped.length === 1 && isCopyOf(def, shaped[0]!, true)) redeclared.push(`${gv.group}/${gv.version} ${def.name} (${def.paths[0]!.join('.')}) is ${shaped[0]!.name}`);
        }
      }
    }
    assert.ok(defs > 1000, `${defs} generated interfaces checked`);
    assert.deepEqual(redeclared, []);
    for (const t of ['HostAlias', 'NodeAffinity', 'EmptyDirVolumeSource', 'EphemeralVolumeSource', 'ProjectedVolumeSource', 'VolumeDevice', 'LocalObjectReference']) {
      assert.ok(matched.has(t), `${t} is matched somewhere in the corpus`);
    }
  });
});

/** Whether generated interface `def` is core type `ref` (see the module comment). */
/**
 * Whether generated interface `def` is core type `ref`: its fields are the type's (all but one in four of them), of the
 * same JSON kinds at every depth; `exactly`: and it says nothing the type does not (see `within`).
 */
function isCopyOf(def: ObjectDef, ref: { schema: JSONSchemaProps; required: ReadonlySet<string> }, exactly: boolean): boolean {
  const own = ref.schema.properties ?? {};
  const names = def.props.map((p) => p.name);
  if (names.length < 2 || def.index !== undefined) return false;
  if (!names.every((n) => Object.hasOwn(own, n))) return false;
  const total = Object.keys(own).length;
  if (total - names.length > Math.floor(total / 4)) return false;
  if (exactly && def.props.some((p) => p.required !== ref.required.has(p.name))) return false;
  return def.props.every((p) => p.schema === undefined || within(p.schema, own[p.name]!, exactly));
}

/** A CRD of kind Thing (group x.io, v1) whose spec has `spec` properties; JSON is YAML. */
function thingCrd(spec: Record<string, JSONSchemaProps>): string {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: spec } } };
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.x.io' },
    spec: { group: 'x.io', scope: 'Namespaced', names: { kind: 'Thing', plural: 'things', singular: 'thing', listKind: 'ThingList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
  });
}

const str: JSONSchemaProps = { type: 'string' };
const int: JSONSchemaProps = { type: 'integer', format: 'int32' };
const obj = (properties: Record<string, JSONSchemaProps>, required?: string[]): JSONSchemaProps => ({ type: 'object', properties, ...(required ? { required } : {}) });
const arr = (items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', items });
const keyRef = obj({ key: str, name: { type: 'string', default: '' }, optional: { type: 'boolean' } }, ['key']);
const nodeSelectorTerm = obj({ matchExpressions: arr(obj({ key: str, operator: str, values: arr(str) }, ['key', 'operator'])), matchFields: arr(obj({ key: str, operator: str, values: arr(str) }, ['key', 'operator'])) });

/** Own-shape fixtures of the three ways a CRD used to carry its own copy of core/v1 (issue 25, item 3). */
const FIXTURE: Record<string, JSONSchemaProps> = {
  // A head group whose password comes from a value or an EnvVarSource (KubeRay-like), beside host aliases and node affinity.
  headGroup: obj({
    redisPassword: obj({
      value: str,
      valueFrom: obj({ configMapKeyRef: keyRef, fieldRef: obj({ apiVersion: str, fieldPath: str }, ['fieldPath']), resourceFieldRef: obj({ containerName: str, divisor: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, resource: str }, ['resource']), secretKeyRef: keyRef }),
    }),
    hostAliases: arr(obj({ hostnames: arr(str), ip: str }, ['ip'])),
    nodeAffinity: obj({
      preferredDuringSchedulingIgnoredDuringExecution: arr(obj({ preference: nodeSelectorTerm, weight: int }, ['preference', 'weight'])),
      requiredDuringSchedulingIgnoredDuringExecution: obj({ nodeSelectorTerms: arr(nodeSelectorTerm) }, ['nodeSelectorTerms']),
    }),
    rayStartParams: { type: 'object', additionalProperties: str },
  }),
  // A VM-like template whose metadata controller-gen left free-form.
  template: obj({ metadata: { type: 'object', nullable: true, 'x-kubernetes-preserve-unknown-fields': true }, spec: obj({ domain: obj({ cores: int, memory: str }) }) }),
  // A predictor: a whole PodSpec inlined plus 28 fields of its own (KServe-like).
  predictor: { ...builtinSchema(`${CORE}PodSpec`)!, properties: { ...builtinSchema(`${CORE}PodSpec`)!.properties, ...Object.fromEntries(Array.from({ length: 28 }, (_, i) => [`option${i + 1}`, str])) } },
  // Half a PodSpec's fields among many of its own (Prometheus-like): not a PodSpec, its parts typed one by one.
  server: obj({
    ...Object.fromEntries(['affinity', 'tolerations', 'nodeSelector', 'hostAliases', 'imagePullSecrets', 'priorityClassName', 'serviceAccountName', 'securityContext', 'volumes', 'containers', 'initContainers', 'hostNetwork', 'dnsPolicy', 'dnsConfig', 'runtimeClassName', 'schedulerName', 'topologySpreadConstraints', 'terminationGracePeriodSeconds', 'automountServiceAccountToken', 'enableServiceLinks', 'hostUsers'].map((f) => [f, builtinSchema(`${CORE}PodSpec`)!.properties![f]!])),
    ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`setting${i + 1}`, str])),
  }),
};

describe('own-shape fixtures: what used to be re-declared', () => {
  it('types an EnvVarSource, host aliases and node affinity in a non-core struct, a free-form template metadata as ObjectMeta, and a PodSpec with 28 extras as extends PodSpec; a controller compiles against them', async () => {
    const model = { resources: parseCrdText(thingCrd(FIXTURE), 'thing.yaml') };
    const files = generate(model);
    const types = files.find((f) => f.path === 'x.io/v1/types.ts')!.content;
    assert.match(types, /^ {2}valueFrom\?: EnvVarSource;$/m);
    assert.match(types, /^ {2}hostAliases\?: HostAlias\[\];$/m);
    assert.match(types, /^ {2}nodeAffinity\?: NodeAffinity;$/m);
    assert.match(types, /^export interface ThingSpecTemplate \{\n {2}metadata\?: ObjectMeta;\n/m);
    const predictor = /^export interface ThingSpecPredictor extends PodSpec \{\n([\s\S]*?)^\}$/m.exec(types);
    assert.ok(predictor, `extends PodSpec:\n${types.slice(0, 3000)}`);
    const declared = [...predictor[1]!.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
    assert.deepEqual(declared, Array.from({ length: 28 }, (_, i) => `option${i + 1}`), 'only its own fields');
    const server = /^export interface ThingSpecServer \{\n([\s\S]*?)^\}$/m.exec(types)?.[1] ?? '';
    assert.match(server, /^ {2}imagePullSecrets\?: LocalObjectReference\[\];$/m, 'not a PodSpec, but its parts are core types');
    assert.match(server, /^ {2}hostAliases\?: HostAlias\[\];$/m);
    assert.match(server, /^ {2}affinity\?: Affinity;$/m);
    assert.doesNotMatch(types, /^export interface \w*(HostAlias|ValueFrom|NodeAffinity|ImagePullSecret|Metadata)\w* /m, 'no private copies');

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-core-fixture-'));
    try {
      for (const f of files) {
        fs.mkdirSync(path.dirname(path.join(dir, 'generated', f.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, 'generated', f.path), f.content);
      }
      fs.writeFileSync(
        path.join(dir, 'controller.ts'),
        [
          `import type { EnvVarSource, HostAlias, PodSpec, PodTemplateSpec } from '@kubegen/runtime/api/core/v1';`,
          `import type { Thing } from './generated/x.io/v1/index.js';`,
          ``,
          `export function appLabel(t: Thing): string | undefined {`,
          `  return t.spec?.template?.metadata?.labels?.['app'];`,
          `}`,
          `export function withPodSpec(t: Thing, pod: PodSpec, aliases: HostAlias[]): Thing {`,
          `  return { ...t, spec: { ...t.spec, predictor: { ...pod, hostAliases: aliases, option1: 'x' } } };`,
          `}`,
          `export function fromPod(t: Thing, pod: PodTemplateSpec): EnvVarSource | undefined {`,
          `  const affinity = pod.spec?.affinity?.nodeAffinity;`,
          `  if (affinity) t.spec!.headGroup!.nodeAffinity = affinity;`,
          `  return t.spec?.headGroup?.redisPassword?.valueFrom ?? pod.spec?.containers[0]?.env?.[0]?.valueFrom;`,
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
});
