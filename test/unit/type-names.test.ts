/**
 * Issue 25: generated types that read like hand-written ones. Each rule on a small fixture of the shape that broke
 * it in a real project (Elasticsearch, Rook, KubeRay, Knative Eventing, Volcano, Kubernetes' own enums), and the
 * name checker the corpus tests use, shown to fail on the names it must refuse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinSchema } from 'kubegen/internal/builtin-api/schemas.js';
import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { emitTypes, TypeGraph } from 'kubegen/internal/generate/types/index.js';
import { typeCheckGenerated } from '../support/type-check.js';
import { typeNameProblems } from '../support/type-names.js';
import { kindCrd as crd, obj } from '../support/crd-yaml.js';

const str: JSONSchemaProps = { type: 'string' };
const arr = (items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', items });

/** types.ts of the CRDs (one group/version), and the name checker's findings. */
function typesOf(...crds: string[]): { ts: string; problems: string[] } {
  const [gv] = groupVersions({ resources: parseCrdText(crds.join('\n---\n'), 'fixture.yaml') });
  const ts = emitTypes(gv!);
  return { ts, problems: typeNameProblems(ts, gv!.kinds.map((k) => k.resource.names.kind)) };
}

describe("a type's name belongs to the field it types (item 1)", () => {
  it('a shape shared by two fields of one kind is named for what they have in common (Elasticsearch metadata)', () => {
    const metadata = obj({ labels: { type: 'object', additionalProperties: str }, annotations: { type: 'object', additionalProperties: str } });
    const { ts, problems } = typesOf(
      crd('elasticsearch.k8s.elastic.co', 'Elasticsearch', {
        spec: obj({ podDisruptionBudget: obj({ metadata, spec: obj({ minAvailable: { type: 'integer' } }) }), http: obj({ service: obj({ metadata, spec: obj({ type: str }) }) }) }),
      }),
    );
    assert.deepEqual(problems, []);
    assert.equal(ts.match(/^ {2}metadata\?: ElasticsearchSpecMetadata;$/gm)?.length, 2, 'both fields');
    assert.match(ts, /^export interface ElasticsearchSpecMetadata \{$/m);
    assert.doesNotMatch(ts, /PodDisruptionBudgetMetadata|ServiceMetadata/);
  });

  it('a shape shared by two kinds is named after neither (Rook conditions: CephStatusCondition)', () => {
    const condition = obj({ type: str, status: str, reason: str, message: str, lastHeartbeatTime: { type: 'string', format: 'date-time' } });
    const status = obj({ phase: str, conditions: arr(condition) });
    const { ts, problems } = typesOf(crd('ceph.rook.io', 'CephNFS', { spec: obj({ server: obj({ active: { type: 'integer' } }) }), status }), crd('ceph.rook.io', 'CephCluster', { spec: obj({ dataDirHostPath: str }), status }));
    assert.deepEqual(problems, []);
    assert.match(ts, /^export interface CephClusterStatus \{\n {2}phase\?: string;\n {2}conditions\?: CephStatusCondition\[\];$/m);
    assert.match(ts, /^export interface CephNFSStatus \{\n {2}phase\?: string;\n {2}conditions\?: CephStatusCondition\[\];$/m);
    assert.doesNotMatch(ts, /CephNFSStatusCondition|CephClusterStatusCondition/);
  });

  it('a shape shared by fields with no name in common is not shared: each field has an interface of its own name (RayCluster head/worker)', () => {
    const peer = obj({ allowedNamespaces: arr(str), ports: arr({ type: 'integer' }) });
    const crdText = crd('ray.io', 'RayCluster', { spec: obj({ networkPolicy: obj({ head: peer, worker: peer }) }) });
    const { ts, problems } = typesOf(crdText);
    assert.deepEqual(problems, []);
    assert.match(ts, /^ {2}head\?: RayClusterSpecNetworkPolicyHead;\n {2}worker\?: RayClusterSpecNetworkPolicyWorker;$/m);
    assert.match(ts, /^export interface RayClusterSpecNetworkPolicyHead \{\n {2}allowedNamespaces\?: string\[\];\n {2}ports\?: number\[\];\n\}$/m);
    assert.match(ts, /^export interface RayClusterSpecNetworkPolicyWorker \{\n {2}allowedNamespaces\?: string\[\];\n {2}ports\?: number\[\];\n\}$/m);
    assert.doesNotMatch(ts, /^export type /m, 'no alias names one field after another');
    const files = generate({ resources: parseCrdText(crdText, 'c.yaml') });
    const apply = files.find((f) => f.path.endsWith('/applyconfigurations.ts'))!.content;
    assert.match(apply, /^ {2}worker\?: RayClusterSpecNetworkPolicyWorkerApply;$/m);
    assert.match(apply, /^export interface RayClusterSpecNetworkPolicyWorkerApply \{$/m);
    const deepcopy = files.find((f) => f.path.endsWith('/deepcopy.ts'))!.content;
    assert.match(deepcopy, /RayClusterSpecNetworkPolicyWorker/, 'the copy has its deep copy');
  });

  it('fields that share the last word of their names share one interface named for it; the others get their own (Istio route/mirror destinations, header operations)', () => {
    const destination = obj({ host: str, port: obj({ number: { type: 'integer' } }), subset: str });
    const match = obj({ exact: str, prefix: str, regex: str });
    const { ts, problems } = typesOf(
      crd('networking.istio.io', 'VirtualService', {
        spec: obj({
          http: arr(obj({ mirror: destination, mirrors: arr(obj({ destination, percentage: str })), route: arr(obj({ destination, weight: { type: 'integer' } })), match: arr(obj({ uri: match, scheme: match })), corsPolicy: obj({ allowOrigins: arr(match) }) })),
        }),
      }),
    );
    assert.deepEqual(problems, []);
    assert.match(ts, /^ {2}mirror\?: VirtualServiceSpecHttpMirror;$/m);
    assert.match(ts, /^ {2}destination\?: VirtualServiceSpecHttpDestination;$/m, 'both destinations');
    assert.equal(ts.match(/^ {2}destination\?: VirtualServiceSpecHttpDestination;$/gm)?.length, 2);
    assert.match(ts, /^export interface VirtualServiceSpecHttpMirror \{$/m);
    assert.match(ts, /^export interface VirtualServiceSpecHttpDestination \{$/m);
    for (const [field, type] of [['uri', 'VirtualServiceSpecHttpMatchUri'], ['scheme', 'VirtualServiceSpecHttpMatchScheme'], ['allowOrigins', 'VirtualServiceSpecHttpCorsPolicyAllowOrigin[]']]) {
      assert.match(ts, new RegExp(`^ {2}${field}\\?: ${type.replace(/[[\]]/g, '\\$&')};$`, 'm'));
    }
    assert.doesNotMatch(ts, /^export type \w+ = \w+;$/m, 'no field reads as another field\'s type');
    // Their children are named by what the copies have in common (`port` of the mirror and of the destinations).
    assert.match(ts, /^ {2}port\?: VirtualServiceSpecHttp\w*Port;$/m);
  });
});

describe('shortened and numbered names (item 2)', () => {
  it('settles a clash by meaning: the items of `filters` beside `filter` are …FiltersItem (Knative Trigger)', () => {
    const { ts, problems } = typesOf(
      crd('eventing.knative.dev', 'Trigger', {
        spec: obj({ filter: obj({ attributes: { type: 'object', additionalProperties: str } }), filters: arr(obj({ exact: { type: 'object', additionalProperties: str }, prefix: str })) }),
      }),
    );
    assert.deepEqual(problems, []);
    assert.match(ts, /^ {2}filter\?: TriggerSpecFilter;\n {2}filters\?: TriggerSpecFiltersItem\[\];$/m);
  });

  it('a field named like a global or a kind\'s list type is …Field, not …2', () => {
    const { ts } = typesOf(crd('x.io', 'Weak', { Set: obj({ a: str }), List: obj({ b: str }) }));
    assert.match(ts, /^ {2}Set\?: WeakSetField;$/m);
    assert.match(ts, /^ {2}List\?: WeakListField;$/m);
  });

  it('reserves only the runtime names a file imports: Volcano\'s Job spec is JobSpec, beside an imported JobSpec too', () => {
    const volcano = crd('batch.volcano.sh', 'Job', { spec: obj({ queue: str, minAvailable: { type: 'integer' } }) });
    const alone = typesOf(volcano).ts;
    assert.match(alone, /^ {2}spec\?: JobSpec;$/m);
    assert.doesNotMatch(alone, /JobSpec2|JobSpec_/);
    const jobSpec = builtinSchema('io.k8s.api.batch.v1.JobSpec')!;
    const both = typesOf(volcano, crd('batch.volcano.sh', 'JobFlow', { spec: obj({ jobTemplate: obj({ spec: jobSpec }) }) })).ts;
    assert.match(both, /^import type \{ ObjectMeta, ListMeta \} from "@kubegen\/runtime";\nimport type \{ JobSpec as JobSpec_ \} from "@kubegen\/runtime\/api\/batch\/v1";$/m);
    assert.match(both, /^ {2}spec\?: JobSpec;$/m);
    assert.match(both, /^ {2}spec\?: JobSpec_;$/m, 'the runtime\'s, aliased');
  });
});

describe('enums (item 5)', () => {
  it('a literal union repeated at several fields is one named type', () => {
    const values = Array.from({ length: 30 }, (_, i) => `Value${String.fromCharCode(65 + (i % 26))}${i}`);
    const protocol: JSONSchemaProps = { type: 'string', enum: values };
    const { ts, problems } = typesOf(crd('x.io', 'Thing', { spec: obj({ listener: obj({ protocol, host: str }), upstream: obj({ protocol, timeout: str }), probe: obj({ protocol, port: { type: 'integer' } }) }) }));
    assert.deepEqual(problems, []);
    assert.equal(ts.match(/"ValueA0"/g)?.length, 1, 'the values are written once');
    assert.match(ts, /^export type ThingSpecProtocol = "ValueA0" \| "ValueB1" \|/m);
    assert.equal(ts.match(/^ {2}protocol\?: ThingSpecProtocol;$/gm)?.length, 3);
  });

  it('a union used once stays inline', () => {
    const { ts } = typesOf(crd('x.io', 'Thing', { spec: obj({ mode: { type: 'string', enum: ['A', 'B'] } }) }));
    assert.match(ts, /^ {2}mode\?: "A" \| "B";$/m);
  });
});

describe('names of kinds and plurals (issue 38, item 8)', () => {
  it("a lower-case kind's names start with a capital (Zalando's postgresql), its data keeps the spelling; everything compiles", () => {
    const text = crd('acid.zalan.do', 'postgresql', { spec: obj({ teamId: str, numberOfInstances: { type: 'integer' } }) });
    const files = generate({ resources: parseCrdText(text, 'c.yaml') });
    const file = (name: string): string => files.find((f) => f.path === `acid.zalan.do/v1/${name}`)!.content;
    assert.match(file('types.ts'), /^export interface Postgresql \{\n {2}apiVersion\?: "acid\.zalan\.do\/v1";\n {2}kind\?: "postgresql";$/m);
    assert.match(file('types.ts'), /^export interface PostgresqlSpec \{$/m);
    assert.match(file('types.ts'), /^export interface PostgresqlList \{$/m);
    assert.doesNotMatch(files.map((f) => f.content).join('\n'), /(interface|type|class|function|const) postgresql\b/, 'no lower-case declaration');
    assert.match(file('register.ts'), /^export const postgresqlResource: ResourceDescriptor = \{[^}]*kind: "postgresql",/m);
    assert.match(file('client.ts'), /^export type PostgresqlInterface = /m);
    assert.match(file('applyconfigurations.ts'), /^export function postgresqlApply\(name: string, namespace\?: string\): PostgresqlApply \{\n {2}return \{ apiVersion: "acid\.zalan\.do\/v1", kind: "postgresql",/m);
    assert.equal(
      typeCheckGenerated(files, {
        'use.ts': `import { postgresqlApply, type Postgresql, type PostgresqlLister } from './generated/acid.zalan.do/v1/index.js';
export const pg: Postgresql = { kind: 'postgresql', spec: { teamId: 'acid' } };
export const apply = { ...postgresqlApply('a', 'ns'), spec: { numberOfInstances: 2 } };
export const names = (l: PostgresqlLister): string[] => l.list().map((p) => p.metadata?.name ?? '');
`,
      }),
      '',
    );
  });

  it("a kind spelled like a global takes its group's first label (Crossplane's Object: KubernetesObject), so no name shadows Object", () => {
    const text = crd('kubernetes.crossplane.io', 'Object', { spec: obj({ forProvider: obj({ manifest: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }) }) });
    const files = generate({ resources: parseCrdText(text, 'c.yaml') });
    const all = files.map((f) => f.content).join('\n');
    const file = (name: string): string => files.find((f) => f.path === `kubernetes.crossplane.io/v1/${name}`)!.content;
    assert.match(file('types.ts'), /^export interface KubernetesObject \{\n {2}apiVersion\?: "kubernetes\.crossplane\.io\/v1";\n {2}kind\?: "Object";$/m);
    assert.match(file('types.ts'), /^export interface KubernetesObjectSpec \{$/m);
    assert.match(file('types.ts'), /^export interface KubernetesObjectList \{\n {2}apiVersion\?: "kubernetes\.crossplane\.io\/v1";\n {2}kind\?: "ObjectList";$/m);
    assert.match(file('register.ts'), /^export const kubernetesObjectResource: ResourceDescriptor = \{[^}]*kind: "Object",/m);
    assert.doesNotMatch(all, /\b(interface|type|class) Object\b|\bObject(Spec|Client|Lister|Informer|Apply|Interface)\b/);
    assert.equal(
      typeCheckGenerated(files, {
        'use.ts': `import { kubernetesObjectApply, type KubernetesObject } from './generated/kubernetes.crossplane.io/v1/index.js';
export const o: KubernetesObject = { kind: 'Object', spec: { forProvider: { manifest: { anything: 1 } } } };
export const a = kubernetesObjectApply('a', 'ns');
export const keys: string[] = Object.keys(o);
`,
      }),
      '',
    );
  });

  it('Latin plurals in -ices singularise to -ex/-ix (vertices → Vertex), other -ices words lose their s (devices → Device)', () => {
    const { ts, problems } = typesOf(
      crd('numaflow.example.io', 'Pipeline', { spec: obj({ vertices: arr(obj({ name: str })), indices: arr(obj({ field: str })), matrices: arr(obj({ rows: str })), devices: arr(obj({ path: str })), services: arr(obj({ port: str })) }) }),
    );
    assert.deepEqual(problems, []);
    for (const [field, item] of [['vertices', 'Vertex'], ['indices', 'Index'], ['matrices', 'Matrix'], ['devices', 'Device'], ['services', 'Service']]) {
      assert.match(ts, new RegExp(`^ {2}${field}\\?: PipelineSpec${item}\\[\\];$`, 'm'));
    }
  });
});

describe('the name checker', () => {
  it('refuses a field typed after another kind, after an unrelated field, or with a collision number', () => {
    const ts = [
      'export interface CephCluster {\n  status?: CephClusterStatus;\n}\n',
      'export interface CephClusterStatus {\n  conditions?: CephNFSStatusCondition[];\n  worker?: CephClusterStatusHead;\n  filters?: CephClusterStatusFilter2[];\n}\n',
      'export interface CephNFS {\n  status?: CephNFSStatus;\n}\n',
      'export interface CephNFSStatus {\n  conditions?: CephNFSStatusCondition[];\n}\n',
      'export interface CephNFSStatusCondition {\n  type?: string;\n}\n',
      'export interface CephClusterStatusHead {\n  x?: string;\n}\n',
      'export interface CephClusterStatusFilter2 {\n  x?: string;\n}\n',
      'export interface CephClusterSpecS3 {\n  x?: string;\n}\n',
    ].join('\n');
    assert.deepEqual(typeNameProblems(ts, ['CephCluster', 'CephNFS']).sort(), [
      'CephClusterStatus.conditions: CephNFSStatusCondition is named after kind CephNFS (field of CephCluster)',
      'CephClusterStatus.filters: CephClusterStatusFilter2 is not named after the field',
      'CephClusterStatus.worker: CephClusterStatusHead is not named after the field',
      'CephClusterStatusFilter2 ends in a number',
    ]);
  });
});

describe('graph', () => {
  it('names are independent of the order of properties', () => {
    const a = obj({ x: str });
    const one = crd('x.io', 'Thing', { spec: obj({ first: obj({ meta: a }), second: obj({ meta: a }), other: a }) });
    const two = crd('x.io', 'Thing', { spec: obj({ other: a, second: obj({ meta: a }), first: obj({ meta: a }) }) });
    const names = (text: string): string[] => {
      const [gv] = groupVersions({ resources: parseCrdText(text, 'c.yaml') });
      return new TypeGraph(gv!).orderedDefs().map((d) => d.name).sort();
    };
    assert.deepEqual(names(one), names(two));
  });
});
