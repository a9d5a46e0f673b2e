/**
 * Samples of built-in kinds (`kubegen sample --kind PodDisruptionBudget`, `builtinSample`): kinds named as kubectl
 * names them, the most stable version unless told, seeds merged over the schema's minimal object, clear errors for
 * an unknown kind or version. test/integration/builtin-kinds.test.ts creates every sample kube-apiserver 1.20 serves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadBuiltinApi } from 'kubegen/internal/builtin-api/index.js';
import { BUILTIN_SEEDS } from 'kubegen/internal/generate/sample/builtin-seeds.js';
import { builtinSample, resolveBuiltinKind, UnknownKindError } from 'kubegen/internal/generate/sample/builtin.js';
import { runCli } from '../support/cli.js';

type Obj = Record<string, any>;

describe('builtinSample', () => {
  it('a PodDisruptionBudget: policy/v1 (the most stable version), a selector and minAvailable', () => {
    assert.deepEqual(builtinSample('PodDisruptionBudget'), {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'poddisruptionbudget-sample' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'poddisruptionbudget-sample' } } },
    });
    assert.equal(builtinSample('PodDisruptionBudget', { apiVersion: 'policy/v1beta1' })['apiVersion'], 'policy/v1beta1');
    assert.equal(builtinSample('pdb', { apiVersion: 'v1beta1' })['apiVersion'], 'policy/v1beta1', 'a version name alone');
  });

  it('a Deployment: the schema\'s required fields with the seed over them, its selector matching the template', () => {
    const d = builtinSample('Deployment', { name: 'web', namespace: 'ns' }) as Obj;
    assert.deepEqual(d['metadata'], { name: 'web', namespace: 'ns' });
    assert.deepEqual(d['spec'].selector, { matchLabels: { app: 'web' } });
    assert.deepEqual(d['spec'].template, { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'sample', image: 'registry.k8s.io/pause:3.10' }] } });
  });

  it('names kinds as kubectl does: kind, plural, singular, short name, with group or version and group; any case', () => {
    const apiVersionOf = (kind: string): unknown => builtinSample(kind)['apiVersion'];
    for (const k of ['Deployment', 'deployment', 'deployments', 'deploy', 'deployments.apps', 'Deployment.apps', 'DEPLOY.apps']) assert.equal(apiVersionOf(k), 'apps/v1', k);
    assert.equal(apiVersionOf('deployments.v1beta2.apps'), 'apps/v1beta2');
    assert.equal(apiVersionOf('deployments.extensions'), 'extensions/v1beta1');
    assert.equal(apiVersionOf('Event'), 'v1', 'the core group before events.k8s.io');
    assert.equal(apiVersionOf('events.events.k8s.io'), 'events.k8s.io/v1');
    assert.equal(apiVersionOf('hpa'), 'autoscaling/v2');
    assert.equal(apiVersionOf('Ingress'), 'networking.k8s.io/v1', 'GA before extensions/v1beta1');
  });

  it('the namespace goes into metadata and where the kind names it inside, not into cluster-scoped kinds', () => {
    const event = builtinSample('Event', { namespace: 'team-a' }) as Obj;
    assert.equal(event['metadata'].namespace, 'team-a');
    assert.equal(event['involvedObject'].namespace, 'team-a');
    assert.equal((builtinSample('LocalSubjectAccessReview', { namespace: 'team-a' }) as Obj)['spec'].resourceAttributes.namespace, 'team-a');
    assert.equal((builtinSample('ClusterRole', { namespace: 'team-a' }) as Obj)['metadata'].namespace, undefined);
  });

  it('a CertificateSigningRequest carries a real PEM request; a PersistentVolume capacity, access modes and a source', () => {
    const csr = builtinSample('CertificateSigningRequest') as Obj;
    assert.match(Buffer.from(csr['spec'].request, 'base64').toString(), /^-----BEGIN CERTIFICATE REQUEST-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE REQUEST-----\n$/);
    assert.deepEqual(builtinSample('pv')['spec'], { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/sample' } });
  });

  it('an unknown kind names the closest ones; an unknown version names the versions there are', () => {
    assert.throws(() => builtinSample('PodDisruptonBudget'), (e: unknown) => {
      assert.ok(e instanceof UnknownKindError);
      assert.equal(e.suggestions[0], 'PodDisruptionBudget');
      assert.match(e.message, /^no built-in kind "PodDisruptonBudget" in Kubernetes 1\.\d+\.\d+ \(closest: PodDisruptionBudget, /);
      return true;
    });
    assert.throws(() => builtinSample('PodDisruptionBudget', { apiVersion: 'policy/v2' }), /^UnknownKindError: built-in kind PodDisruptionBudget has no version policy\/v2 in Kubernetes 1\.\d+\.\d+ \(it has policy\/v1, policy\/v1beta1\)$/);
  });

  it('every built-in kind in every version has a sample of its kind and version', () => {
    let n = 0;
    for (const r of loadBuiltinApi().model.resources) {
      for (const v of r.versions) {
        const apiVersion = r.group ? `${r.group}/${v.name}` : v.name;
        const s = builtinSample(r.group ? `${r.names.plural}.${v.name}.${r.group}` : r.names.plural, { apiVersion });
        assert.deepEqual([s['apiVersion'], s['kind']], [apiVersion, r.names.kind]);
        n++;
      }
    }
    assert.ok(n > 150, `${n} kind versions`);
  });

  it('every seed is of a kind (and version) the built-in API has', () => {
    const stale = Object.keys(BUILTIN_SEEDS).filter((key) => {
      const parts = key.split('/');
      const kind = parts.pop()!;
      const [group, version] = parts.length === 0 ? ['', undefined] : [parts[0]!, parts[1]];
      return !loadBuiltinApi().model.resources.some((r) => r.group === group && r.names.kind === kind && (version === undefined || r.versions.some((v) => v.name === version)));
    });
    assert.deepEqual(stale, []);
  });

  it('resolves to the kind version with its schema written out', () => {
    const kv = resolveBuiltinKind({ kind: 'deploy' });
    assert.equal(kv.version.schema.$ref, undefined);
    assert.ok(kv.version.schema.properties?.['spec']?.properties?.['template']);
  });
});

describe('kubegen sample --kind (built-in)', () => {
  it('prints the sample as YAML; --api-version and --namespace pick the version and the namespace', async () => {
    const r = await runCli('/', 'sample', '--kind', 'PodDisruptionBudget', '--api-version', 'policy/v1beta1', '--namespace', 'ns');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    assert.match(r.out, /^---\napiVersion: policy\/v1beta1\nkind: PodDisruptionBudget\n/);
    assert.deepEqual((parse(r.out.replace(/^---\n/, '')) as Obj)['metadata'], { name: 'poddisruptionbudget-sample', namespace: 'ns' });
  });

  it('a kind of two groups is sampled from the first, with a note naming the other', async () => {
    const r = await runCli('/', 'sample', '--kind', 'Event');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, 'note: Event is also events.events.k8s.io; this is Event v1 (pick another with --api-version or --kind <plural>.<group>)\n');
  });

  it('an unknown kind or version exits 1 naming the closest; --api-version with --crds is a usage error', async () => {
    const unknown = await runCli('/', 'sample', '--kind', 'deplyment');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /^error: no built-in kind "deplyment" in Kubernetes [\d.]+ \(closest: Deployment, /);
    assert.equal(unknown.out, '');
    const version = await runCli('/', 'sample', '--kind', 'hpa', '--api-version', 'autoscaling/v2beta2');
    assert.equal(version.code, 1);
    assert.match(version.err, /has no version autoscaling\/v2beta2 .*\(it has autoscaling\/v2, autoscaling\/v1\)/);
    const mixed = await runCli('/', 'sample', '--crds', 'x.yaml', '--api-version', 'v1');
    assert.equal(mixed.code, 2);
    assert.match(mixed.err, /--api-version goes with --kind alone/);
  });
});
