/**
 * The built-in API front end: the Kubernetes API of `k8s.io/api` (and apimachinery's `meta/v1`) read from Go sources
 * into an `ApiModel`, so the built-in kinds go through the same model and emitters as custom resources.
 *
 * What comes from where (a GOPATH `src` root such as Debian's `/usr/share/gocode/src`):
 * - the group/versions and kinds: client-go's typed clients (`k8s.io/client-go/kubernetes/typed`), one per kind
 *   client-go has a typed client for — accessor, resource, scope, verbs, extra methods (`typed-clients.ts`);
 * - the types: `k8s.io/api/<folder>/<version>` and `k8s.io/apimachinery/pkg/apis/meta/v1`, every exported type of
 *   those packages, by openapi-gen's and controller-gen's rules (`definitions.ts`);
 * - the group name: each package's `+groupName=`; the release a version of a kind appeared, was deprecated and
 *   removed in: prerelease-lifecycle-gen's `zz_generated.prerelease-lifecycle.go`;
 * - the names discovery gives (singular, short names, categories): `discovery-names.json`, a table taken from
 *   Kubernetes' own discovery documents (client-go does not know them).
 * The model is deterministic: packages, kinds and definitions are sorted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cmp } from '../../model/index.js';
import type { ApiModel, ApiPackage, BuiltinVersion, ResourceModel, SubresourceCall } from '../../model/index.js';
import { DefinitionBuilder, modelPackage } from './definitions.js';
import { commentMarkers, GoWorkspace } from './go-package.js';
import type { GoPackage } from './go-package.js';
import { discoveryNames } from './discovery-names.js';
import { readTypedClients } from './typed-clients.js';
import type { TypedClient, TypedGroupVersion } from './typed-clients.js';

export interface KubeApiOptions {
  /** The GOPATH `src` folder holding `k8s.io/api`, `k8s.io/apimachinery` and `k8s.io/client-go`. */
  goRoot: string;
}

const META_V1 = 'k8s.io/apimachinery/pkg/apis/meta/v1';

/** Reads the built-in API (see the module comment). */
export function readKubeApi(opts: KubeApiOptions): ApiModel {
  const ws = new GoWorkspace(opts.goRoot);
  const display = (f: string): string => path.relative(opts.goRoot, f);
  const packages = new Map<string, ApiPackage>();
  const packageOf = (pkg: GoPackage): ApiPackage | undefined => {
    const known = packages.get(pkg.path);
    if (known) return known;
    let dir: string | undefined;
    if (pkg.path.startsWith('k8s.io/api/')) dir = pkg.path.slice('k8s.io/api/'.length);
    else if (pkg.path === META_V1) dir = 'meta/v1';
    if (dir === undefined) return undefined;
    const version = dir.slice(dir.lastIndexOf('/') + 1);
    // register.go's `const GroupName = "apps"`, else doc.go's `+groupName=`.
    const group = pkg.consts.find((e) => e.c.name === 'GroupName')?.c.value ?? pkg.markers.get('groupName')?.[0] ?? '';
    const p: ApiPackage = { group, version, dir, goPath: pkg.path };
    packages.set(pkg.path, p);
    return p;
  };
  const defs = new DefinitionBuilder(ws, packageOf, display);
  const typed = readTypedClients(path.join(opts.goRoot, 'k8s.io/client-go/kubernetes/typed'));
  const resources: ResourceModel[] = [];
  const groupAccessors: Record<string, string> = {};
  for (const gv of typed) {
    const goPath = `k8s.io/api/${gv.folder}/${gv.version}`;
    const pkg = packageOf(ws.load(goPath))!;
    groupAccessors[pkg.group] = lowerFirst(gv.clientName.slice(0, gv.clientName.length - gv.version.length));
    for (const c of gv.clients) resources.push(resourceOf(ws, defs, gv, c, packageOf, display));
  }
  // Every exported type of every package the API uses, reachable from a kind or not (client-go's packages have
  // them all: options types, subresource bodies, `meta/v1`'s Status and WatchEvent …).
  packageOf(ws.load(META_V1));
  for (const goPath of [...packages.keys()].sort()) {
    const pkg = ws.load(goPath);
    for (const [name, { decl }] of [...pkg.types].sort(([a], [b]) => cmp(a, b))) {
      if (!/^[A-Z]/.test(name)) continue;
      if (commentMarkers(decl.comments).get('k8s:openapi-gen')?.includes('false')) continue;
      if (decl.alias && decl.type.kind === 'name' && decl.type.pkg !== undefined) defs.defineAlias(goPath, name);
      else if (decl.type.kind === 'struct' || (decl.type.kind === 'name' && decl.type.pkg !== undefined) || commentMarkers(decl.comments).has('enum') || isSpecial(pkg, name)) defs.define(goPath, name);
    }
  }
  resources.sort((a, b) => cmp(a.group, b.group) || cmp(a.names.kind, b.names.kind) || cmp(a.versions[0]!.name, b.versions[0]!.name));
  const definitions = new Map([...defs.definitions].sort(([a], [b]) => cmp(a, b)));
  return {
    resources,
    definitions,
    packages: [...packages.values()].sort((a, b) => cmp(a.dir, b.dir)),
    groupAccessors,
  };
}

function isSpecial(pkg: GoPackage, name: string): boolean {
  return ['Time', 'MicroTime', 'Duration', 'FieldsV1'].includes(name) && pkg.path === META_V1;
}

function resourceOf(ws: GoWorkspace, defs: DefinitionBuilder, gv: TypedGroupVersion, c: TypedClient, packageOf: (p: GoPackage) => ApiPackage | undefined, display: (f: string) => string): ResourceModel {
  const typePkg = ws.load(c.typePath);
  const pkg = packageOf(typePkg)!;
  const entry = typePkg.types.get(c.typeName);
  if (!entry) throw new Error(`${display(c.file)}: type ${c.typeName} not found in ${c.typePath}`);
  const definition = defs.define(c.typePath, c.typeName);
  const listDefinition = c.lists ? defs.define(c.typePath, `${c.typeName}List`) : undefined;
  const markers = commentMarkers(entry.decl.comments);
  const methods = new Set(c.methods);
  const verbs = VERBS.filter(([m]) => methods.has(m)).map(([, v]) => v);
  const calls: SubresourceCall[] = [];
  for (const spec of markers.get('genclient:method') ?? []) calls.push(genclientMethod(spec, typePkg, definition));
  for (const e of EXPANSIONS[`${pkg.dir}/${c.resource}`] ?? []) if (methods.has(e.goMethod)) calls.push(e.call);
  const builtin: BuiltinVersion = { pkg, definition, accessor: c.accessor, verbs, calls };
  if (listDefinition) builtin.listDefinition = listDefinition;
  const lifecycle = readLifecycle(typePkg.dir, c.typeName);
  if (lifecycle) builtin.lifecycle = lifecycle;
  const names = discoveryNames(pkg.group, gv.version, c.resource);
  const scale = calls.some((x) => x.subresource === 'scale');
  const loc = { file: display(entry.file.file), line: entry.decl.line, column: entry.decl.column };
  return {
    group: pkg.group,
    names: {
      kind: c.typeName,
      plural: c.resource,
      singular: names?.singular ?? c.typeName.toLowerCase(),
      listKind: `${c.typeName}List`,
      shortNames: names?.shortNames ?? [],
      categories: names?.categories ?? [],
    },
    scope: c.namespaced ? 'Namespaced' : 'Cluster',
    versions: [
      {
        name: gv.version,
        served: true,
        storage: true,
        deprecated: lifecycle?.deprecated !== undefined,
        schema: { $ref: definition },
        subresources: {
          status: methods.has('UpdateStatus'),
          ...(scale ? { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } } : {}),
        },
        printerColumns: [],
        selectableFields: [],
        builtin,
        source: loc,
      },
    ],
    source: loc,
  };
}

/** client-go interface methods → the verbs they send (`UpdateStatus`, `ApplyStatus` are the status subresource's). */
const VERBS: readonly [string, string][] = [
  ['Get', 'get'], ['List', 'list'], ['Watch', 'watch'], ['Create', 'create'], ['Update', 'update'], ['Patch', 'patch'],
  ['Delete', 'delete'], ['DeleteCollection', 'deletecollection'], ['Apply', 'apply'],
];

/** Hand-written client-go expansions kubegen's typed clients have too, by `<package dir>/<resource>`. */
const EXPANSIONS: Readonly<Record<string, { goMethod: string; call: SubresourceCall }[]>> = {
  'core/v1/pods': [
    {
      goMethod: 'Bind',
      call: { method: 'bind', verb: 'create', subresource: 'binding', input: 'io.k8s.api.core.v1.Binding', result: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', doc: 'Binds the pod to a node (a scheduler\'s call): creates its `binding` subresource.' },
    },
    {
      goMethod: 'EvictV1',
      call: { method: 'evict', verb: 'create', subresource: 'eviction', input: 'io.k8s.api.policy.v1.Eviction', result: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', doc: 'Evicts the pod, honouring its PodDisruptionBudgets (a policy/v1 Eviction): creates its `eviction` subresource. A budget that allows no disruption answers 429 TooManyRequests.' },
    },
    {
      goMethod: 'GetLogs',
      call: { method: 'getLogs', verb: 'get', subresource: 'log', text: true, input: 'io.k8s.api.core.v1.PodLogOptions', doc: 'The pod\'s log as text (its `log` subresource); the options choose the container, a tail, a time window.' },
    },
  ],
  'policy/v1/evictions': [
    {
      goMethod: 'Evict',
      call: { method: 'evict', verb: 'create', subresource: 'eviction', target: 'io.k8s.api.core.v1.Pod', result: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', doc: 'Evicts pod `name` (its `eviction` subresource), honouring its PodDisruptionBudgets; a budget that allows no disruption answers 429 TooManyRequests.' },
    },
  ],
  'policy/v1beta1/evictions': [
    {
      goMethod: 'Evict',
      call: { method: 'evict', verb: 'create', subresource: 'eviction', target: 'io.k8s.api.core.v1.Pod', result: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', doc: 'Evicts pod `name` (its `eviction` subresource) with a policy/v1beta1 Eviction.' },
    },
  ],
  'core/v1/namespaces': [
    {
      goMethod: 'Finalize',
      call: { method: 'finalize', verb: 'update', subresource: 'finalize', doc: 'Replaces the namespace\'s `spec.finalizers` (its `finalize` subresource), as a namespace controller does.' },
    },
  ],
};

/** `+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale` → a call. */
function genclientMethod(spec: string, pkg: GoPackage, self: string): SubresourceCall {
  const args = new Map(spec.split(',').map((kv, i) => (i === 0 ? ['method', kv] : (kv.split('=', 2) as [string, string]))));
  const typeId = (ref: string | undefined): string | undefined => {
    if (ref === undefined) return undefined;
    const dot = ref.lastIndexOf('.');
    if (dot < 0) return `${modelPackage(pkg)}.${ref}`;
    const goPath = ref.slice(0, dot);
    return `${goPath.startsWith('k8s.io/api/') ? `io.k8s.api.${goPath.slice('k8s.io/api/'.length).replace(/\//g, '.')}` : goPath}.${ref.slice(dot + 1)}`;
  };
  const goMethod = args.get('method')!;
  const call: SubresourceCall = {
    method: lowerFirst(goMethod),
    verb: args.get('verb') as SubresourceCall['verb'],
    subresource: args.get('subresource')!,
    doc: CALL_DOCS[goMethod] ?? `client-go's ${goMethod}: the \`${args.get('subresource')}\` subresource.`,
  };
  const input = typeId(args.get('input'));
  const result = typeId(args.get('result'));
  if (input && input !== self) call.input = input;
  if (result && result !== self) call.result = result;
  // `result` defaults to `input` in client-gen.
  else if (!result && input && input !== self) call.result = input;
  return call;
}

const CALL_DOCS: Readonly<Record<string, string>> = {
  GetScale: 'Reads the `scale` subresource: desired and current replicas and the label selector.',
  UpdateScale: 'Replaces the `scale` subresource (sets the desired replicas).',
  ApplyScale: 'Server-side applies the `scale` subresource.',
  UpdateEphemeralContainers: 'Replaces the pod\'s `spec.ephemeralContainers` (its `ephemeralcontainers` subresource): how a debug container is added.',
  UpdateResize: 'Changes a running pod\'s container resources in place (its `resize` subresource).',
  CreateToken: 'Requests a token for the service account (its `token` subresource, a TokenRequest): bound to an audience and an expiry.',
  UpdateApproval: 'Approves or denies the request (its `approval` subresource: `status.conditions`).',
};

function readLifecycle(dir: string, typeName: string): BuiltinVersion['lifecycle'] {
  const file = path.join(dir, 'zz_generated.prerelease-lifecycle.go');
  if (!fs.existsSync(file)) return undefined;
  const text = fs.readFileSync(file, 'utf8');
  const out: NonNullable<BuiltinVersion['lifecycle']> = {};
  for (const step of ['Introduced', 'Deprecated', 'Removed'] as const) {
    const m = new RegExp(`^func \\(in \\*${typeName}\\) APILifecycle${step}\\(\\) \\(major, minor int\\) \\{\\n\\s*return (\\d+), (\\d+)`, 'm').exec(text);
    if (m) out[step.toLowerCase() as 'introduced'] = `${m[1]}.${m[2]}`;
  }
  const r = new RegExp(`^func \\(in \\*${typeName}\\) APILifecycleReplacement\\(\\) schema.GroupVersionKind \\{\\n\\s*return schema.GroupVersionKind\\{Group: "([^"]*)", Version: "([^"]*)", Kind: "([^"]*)"\\}`, 'm').exec(text);
  if (r) out.replacement = { group: r[1]!, version: r[2]!, kind: r[3]! };
  return Object.keys(out).length > 0 ? out : undefined;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
