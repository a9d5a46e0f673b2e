/**
 * Public generated names: accessors (`cs.gatewayV1.httpRoutes()`), descriptor constants (`httpRouteResource`) and
 * informer accessors follow initialism-aware lower camel case (an initialism is one word), pinned on synthetic edge
 * cases and checked over every kind of the real-world corpus.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KindVersion } from 'kubegen/internal/model/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { lowerCamel, nameWords, pluralMember, resourceConstName } from 'kubegen/internal/generate/names.js';
import { MAX_TYPE_NAME, singular } from 'kubegen/internal/generate/types/type-graph.js';
import { corpusRuns } from '../support/corpus.js';
import { thingCrd } from '../support/crd-yaml.js';
import { emitTypes } from 'kubegen/internal/generate/types/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';

const kv = (kind: string, plural: string): KindVersion => ({ resource: { names: { kind, plural } } }) as unknown as KindVersion;

describe('initialism-aware names', () => {
  it('splits names into words, an initialism being one word', () => {
    assert.deepEqual(nameWords('HTTPRoute'), ['HTTP', 'Route']);
    assert.deepEqual(nameWords('CephNFS'), ['Ceph', 'NFS']);
    assert.deepEqual(nameWords('OAuth2Client'), ['O', 'Auth2', 'Client']);
    assert.deepEqual(nameWords('V1X'), ['V1', 'X']);
  });

  const cases: [kind: string, plural: string, member: string, resource: string][] = [
    ['HTTPRoute', 'httproutes', 'httpRoutes', 'httpRouteResource'],
    ['GRPCRoute', 'grpcroutes', 'grpcRoutes', 'grpcRouteResource'],
    ['URLMap', 'urlmaps', 'urlMaps', 'urlMapResource'],
    ['IPAddress', 'ipaddresses', 'ipAddresses', 'ipAddressResource'],
    ['DNSRecord', 'dnsrecords', 'dnsRecords', 'dnsRecordResource'],
    ['BGPPeer', 'bgppeers', 'bgpPeers', 'bgpPeerResource'],
    ['CephNFS', 'cephnfses', 'cephNfses', 'cephNfsResource'],
    ['OAuth2Client', 'oauth2clients', 'oAuth2Clients', 'oAuth2ClientResource'],
    ['Ingress', 'ingresses', 'ingresses', 'ingressResource'],
    ['V1X', 'v1xs', 'v1Xs', 'v1XResource'],
    ['Foo', 'foos', 'foos', 'fooResource'],
    ['CertificateRequest', 'certificaterequests', 'certificateRequests', 'certificateRequestResource'],
    ['Octopus', 'octopi', 'octopi', 'octopusResource'],
    ['Mouse', 'mice', 'mice', 'mouseResource'],
  ];
  for (const [kind, plural, member, resource] of cases) {
    it(`${kind} (${plural}) → ${member}(), ${resource}`, () => {
      assert.equal(pluralMember(kv(kind, plural)), member);
      assert.equal(resourceConstName(kind), resource);
    });
  }

  it('lower-cases only the first word of an all-caps name', () => {
    assert.equal(lowerCamel('ABC'), 'abc');
    assert.equal(lowerCamel('A'), 'a');
  });

  it('generates no accessor or constant like hTTP…/gRPC…/bGP… for any kind of the corpus', async () => {
    const broken = /\b[a-z][A-Z]{2,}[A-Za-z0-9]*\b/g;
    let kinds = 0;
    for (const run of corpusRuns()) {
      const model = await parseCrdPaths(run);
      kinds += model.resources.length;
      for (const f of generate(model)) {
        if (!/(client|informers|register|clientset|fake)\.ts$/.test(f.path)) continue;
        const code = f.content.replace(/\/\*\*[\s\S]*?\*\//g, '').replace(/'[^'\n]*'|"[^"\n]*"/g, "''");
        assert.deepEqual(code.match(broken) ?? [], [], `${f.path}`);
      }
    }
    assert.equal(kinds, 56);
    const gateway = await parseCrdPaths(corpusRuns().flat().filter((p) => /gateway/i.test(p)));
    const client = generate(gateway).find((f) => /gateway\.networking\.k8s\.io\/v1\/client\.ts$/.test(f.path));
    assert.ok(client, 'the Gateway API v1 client is generated');
    assert.match(client.content, /\bhttpRoutes\(namespace: string\)/);
    assert.match(client.content, /\bgrpcRoutes\(namespace: string\)/);
  });
});

describe('type names', () => {
  it('names array item types in the singular where the plural is regular', () => {
    const cases: [string, string][] = [
      ['rules', 'rule'], ['conditions', 'condition'], ['policies', 'policy'], ['addresses', 'address'], ['matches', 'match'],
      ['boxes', 'box'], ['tlsCertificates', 'tlsCertificate'], ['status', 'status'], ['data', 'data'], ['ingress', 'ingress'],
      ['aliases', 'aliases'], ['heroes', 'heroes'], ['keys', 'key'], ['ips', 'ips'], ['analysis', 'analysis'],
    ];
    for (const [plural, one] of cases) assert.equal(singular(plural), one, plural);
  });

  it(`past ${MAX_TYPE_NAME} characters a name starts again from the kind, and its children extend it`, () => {
    const placement =
      '{type: object, properties: {spec: {type: object, properties: {placement: {type: object, properties: {nodePlacement: {type: object, properties: {preferredDuringSchedulingIgnoredDuringExecution: {type: array, items: {type: object, properties: {preference: {type: object, properties: {matchExpressions: {type: array, items: {type: object, properties: {key: {type: string}}}}}}}}}}}}}}}}}';
    const t = emitTypes(groupVersions({ resources: parseCrdText(thingCrd({ template: placement }), 'c.yaml') })[0]!);
    // ThingSpecTemplateSpecPlacementNodePlacement (43) + PreferredDuringSchedulingIgnoredDuringExecution (47) is too long.
    assert.match(t, /^export interface ThingSpecTemplateSpecPlacementNodePlacement \{\n {2}preferredDuringSchedulingIgnoredDuringExecution\?: ThingPreferredDuringSchedulingIgnoredDuringExecution\[\];$/m);
    assert.match(t, /^ {2}preference\?: ThingPreferredDuringSchedulingIgnoredDuringExecutionPreference;$/m, 'the child extends its shortened parent');
    assert.match(t, /^ {2}matchExpressions\?: ThingMatchExpression\[\];$/m, 'past the limit again, the kind again');
    for (const m of t.matchAll(/^export interface (\w+)/gm)) assert.ok(!/\d$/.test(m[1]!), m[1]);
  });

  it('a long name whose shortened form is taken adds the field above it, not a number', () => {
    const shape = (extra: string) => `{type: object, properties: {requiredDuringSchedulingIgnoredDuringExecutionTerms: {type: array, items: {type: object, properties: {${extra}: {type: string}}}}}}`;
    const t = emitTypes(groupVersions({ resources: parseCrdText(thingCrd({ veryLongFieldNameForTheFirstAffinity: shape('a'), veryLongFieldNameForTheOtherAffinity: shape('b') }), 'c.yaml') })[0]!);
    assert.match(t, /^ {2}requiredDuringSchedulingIgnoredDuringExecutionTerms\?: ThingRequiredDuringSchedulingIgnoredDuringExecutionTerm\[\];$/m);
    assert.match(t, /^ {2}requiredDuringSchedulingIgnoredDuringExecutionTerms\?: ThingVeryLongFieldNameForTheOtherAffinityRequiredDuringSchedulingIgnoredDuringExecutionTerm\[\];$/m);
  });

  it('corpus: singular item types (HTTPRouteSpecRule, AcmeSolver), no name over the limit, deterministic', async () => {
    const names = new Set<string>();
    for (const run of corpusRuns()) {
      const files = generate(await parseCrdPaths(run));
      assert.deepEqual(generate(await parseCrdPaths(run)).map((f) => f.content), files.map((f) => f.content), 'deterministic');
      for (const f of files.filter((x) => x.path.endsWith('/types.ts'))) {
        const declared = [...f.content.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!);
        for (const n of declared) {
          names.add(n);
          // Past the limit only when the shortened form is taken: `<Kind><Field>` is declared, `<Kind><Above><Field>` is this.
          const shortenedTaken = declared.some((o) => o !== n && o.length <= MAX_TYPE_NAME && n.endsWith(o.replace(/^[A-Z][a-z0-9]*/, '')) && n.startsWith(o.match(/^[A-Z][a-z0-9]*/)![0]));
          assert.ok(n.length <= MAX_TYPE_NAME || shortenedTaken, `${n} (${n.length} characters) in ${f.path}`);
        }
      }
    }
    for (const n of ['HTTPRouteSpecRule', 'AcmeSolver']) assert.ok(names.has(n), n);
    for (const n of ['HTTPRouteSpecRules', 'AcmeSolvers', 'CertificateStatusConditions']) assert.ok(!names.has(n), n);
  });
});

describe('shared type names', () => {
  it('a shape shared by unrelated fields is not shared: each field has its own interface, whatever the order of properties', () => {
    const shape = '{type: object, properties: {x: {type: string}}}';
    const typesOf = (props: Record<string, string>): string => emitTypes(groupVersions({ resources: parseCrdText(thingCrd(props), 'c.yaml') })[0]!);
    const outputs = [{ constructor: shape, aB: shape, deep: `{type: object, properties: {zz: ${shape}}}` }, { deep: `{type: object, properties: {zz: ${shape}}}`, aB: shape, constructor: shape }].map(typesOf);
    for (const t of outputs) {
      for (const name of ['ThingSpecAB', 'ThingSpecConstructor', 'ThingSpecDeepZz']) assert.match(t, new RegExp(`^export interface ${name} \\{\\n {2}x\\?: string;\\n\\}$`, 'm'));
      assert.match(t, /^ {2}aB\?: ThingSpecAB;$/m);
      assert.match(t, /^ {2}"?constructor"?\?: ThingSpecConstructor \| \{\}\["constructor"\];$/m);
      assert.match(t, /^ {2}zz\?: ThingSpecDeepZz;$/m, 'every field reads as its own');
      assert.doesNotMatch(t, /^export type /m);
    }
    const names = (t: string): string[] => [...t.matchAll(/^export interface (\w+)/gm)].map((m) => m[1]!).sort();
    assert.deepEqual(names(outputs[0]!), names(outputs[1]!));
  });
});

describe('listers.ts', () => {
  it('imports NamespaceLister only when a kind of the group/version is namespaced (noUnusedLocals)', async () => {
    const { emitListers } = await import('kubegen/internal/generate/informers/index.js');
    const gv = (scope: string) => ({ group: 'x.io', version: 'v1', kinds: [{ resource: { names: { kind: 'Thing', plural: 'things' }, scope, group: 'x.io' }, version: { name: 'v1' } }] }) as never;
    const names = (kind: string) => ({ root: kind, list: `${kind}List` });
    assert.match(emitListers({ gv: gv('Cluster'), typeNames: names, runtimeImport: '@kubegen/runtime', ext: '.js' }), /^import type \{ ReadonlyIndexer \} from "@kubegen\/runtime\/cache";$/m);
    assert.match(emitListers({ gv: gv('Namespaced'), typeNames: names, runtimeImport: '@kubegen/runtime', ext: '.js' }), /^import type \{ NamespaceLister, ReadonlyIndexer \} from "@kubegen\/runtime\/cache";$/m);
  });
});
