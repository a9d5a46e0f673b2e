/**
 * The RESTMapper against a real control plane, with kubectl (1.32, on PATH) as the oracle: on both envtest profiles,
 * with the corpus CRDs and CRDs whose names clash on purpose installed, every name form kubectl accepts (plural,
 * singular, short names, kind, `plural.group`, `plural.version.group`, `Kind.group`) of every listable resource
 * resolves to the group, version, resource and scope kubectl lists, names kubectl refuses are refused, and the
 * ambiguous short names warn as kubectl warns. On the `full` profile the mapper also follows a CRD through its life
 * (added, a new storage version, a version no longer served, removed) with no restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { RawRequestInit, RawResponse, ResourceRequest, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';
import { DiscoveryClient } from '@kubegen/runtime/internal/discovery/discovery-client.js';
import type { APIResourceInfo } from '@kubegen/runtime/internal/discovery/types.js';
import { createLogger } from '@kubegen/runtime/internal/log.js';
import { DynamicRESTMapper } from '@kubegen/runtime/internal/restmapper/dynamic-mapper.js';
import { AmbiguousResourceError, NoKindMatchError, NoResourceMatchError } from '@kubegen/runtime/internal/restmapper/types.js';
import { CRD_RESOURCE, readCrdPaths, type CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import type { EnvtestProfile } from '@kubegen/runtime/internal/testing/envtest/envtest-profiles.js';
import { eventually } from '@kubegen/runtime/internal/testing/envtest/eventually.js';
import { corpusRuns } from '../support/corpus.js';
import { fixture } from '../support/paths.js';
import { sharedEnv, uniqueName, type TestEnv } from './support/env.js';
import { kubectlResolve, kubectlVersion, REFUSED } from './support/kubectl-oracle.js';

const CLASH_CRDS = fixture('discovery', 'crds', 'short-name-clashes.yaml');

/** Counts `raw()` requests (discovery). */
class RawCounter implements Transport {
  count = 0;
  constructor(private readonly inner: Transport) {}
  raw(method: string, p: string, init?: RawRequestInit): Promise<RawResponse> {
    this.count++;
    return this.inner.raw(method, p, init);
  }
  request<T>(req: ResourceRequest): Promise<T> {
    return this.inner.request<T>(req);
  }
  watch<T>(req: ResourceRequest): Promise<Watch<T>> {
    return this.inner.watch<T>(req);
  }
}

/** The name forms kubectl accepts for a resource. */
function nameForms(r: APIResourceInfo): string[] {
  const forms = [r.resource, r.singular || r.kind.toLowerCase(), r.kind, ...r.shortNames];
  if (r.group) forms.push(`${r.resource}.${r.group}`, `${r.resource}.${r.version}.${r.group}`, `${r.kind}.${r.group}`);
  return forms;
}

/**
 * Creates or updates each CRD (a few at a time; an unchanged one is a no-op for the server), then waits until
 * discovery serves every accepted one. Returns the CRDs the server refused, with why.
 */
async function installAll(env: TestEnv, crds: CrdObject[]): Promise<string[]> {
  const client = new ResourceClient<CrdObject>(env.transport, CRD_RESOURCE);
  const existing = new Map((await client.list()).items.map((c) => [c.metadata!.name!, c.metadata!.resourceVersion]));
  const refused: string[] = [];
  const accepted: CrdObject[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < crds.length) {
      const crd = crds[next++]!;
      const name = crd.metadata!.name!;
      try {
        const rv = existing.get(name);
        await (rv ? client.update({ ...crd, metadata: { ...crd.metadata, resourceVersion: rv } }) : client.create(crd));
        accepted.push(crd);
      } catch (err) {
        refused.push(`${name}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  await eventually(
    async () => {
      // A CRD whose names the server did not accept (a conflict) is never served: refused too.
      for (const c of (await client.list()).items) {
        const names = c.status?.conditions?.find((x) => x.type === 'NamesAccepted' && x.status === 'False');
        const i = accepted.findIndex((a) => a.metadata!.name === c.metadata!.name);
        if (!names || i < 0) continue;
        refused.push(`${c.metadata!.name}: ${names.message ?? 'names not accepted'}`);
        accepted.splice(i, 1);
      }
      const found = await new DiscoveryClient(env.transport).serverGroupsAndResources();
      const serves = (c: CrdObject, v: string): boolean => found.resources.get(`${c.spec.group}/${v}`)?.some((r) => r.resource === c.spec.names.plural) ?? false;
      const missing = accepted.filter((c) => c.spec.versions.some((v) => v.served && !serves(c, v.name))).map((c) => c.metadata!.name);
      assert.deepEqual(missing, [], 'CRDs not served by discovery yet');
    },
    { timeoutMs: 180_000, intervalMs: 250 },
  );
  return refused;
}

function oracleSuite(profile: EnvtestProfile): void {
  describe(`DynamicRESTMapper agrees with kubectl (${profile})`, () => {
    let env: TestEnv;
    let cacheDir: string;
    const clashes = readCrdPaths([CLASH_CRDS]);
    before(async () => {
      env = await sharedEnv({ profile });
      cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), `kubegen-kubectl-cache-${profile}-`));
    });
    after(async () => {
      if (env) {
        const crds = new ResourceClient<CrdObject>(env.transport, CRD_RESOURCE);
        await Promise.allSettled(clashes.map((c) => crds.delete(c.metadata!.name!)));
        await env.release();
      }
      if (cacheDir) fs.rmSync(cacheDir, { recursive: true, force: true });
    });

    it('resolves every name form of every listable resource as kubectl does', async () => {
      const kubectl = kubectlVersion();
      let t = performance.now();
      const refusedCrds = await installAll(env, [...readCrdPaths(corpusRuns()[0]!), ...clashes]);
      console.log(`ℹ ${profile}: installed the corpus and clash CRDs in ${Math.round(performance.now() - t)} ms; refused by the server: ${refusedCrds.map((r) => r.split(':')[0]).join(', ') || 'none'}`);

      const counter = new RawCounter(env.transport);
      t = performance.now();
      const discovered = await new DiscoveryClient(counter).serverGroupsAndResources();
      const ms = (performance.now() - t).toFixed(1);
      const total = [...discovered.resources.values()].reduce((n, l) => n + l.length, 0);
      console.log(`ℹ ${profile}: discovery of ${discovered.groups.length} groups, ${total} resources: ${counter.count} requests, ${ms} ms (${discovered.aggregated ? 'aggregated' : 'legacy walk'})`);
      assert.equal(discovered.failed.size, 0, [...discovered.failed].join('\n'));
      if (profile === 'crd-only') {
        assert.equal(discovered.aggregated, true);
        assert.ok(counter.count <= 2, `aggregated discovery takes ${counter.count} requests`);
      }

      const lines: string[] = [];
      const mapper = new DynamicRESTMapper(env.transport, { logger: createLogger({ level: 'warn', format: 'json', write: (l) => lines.push(l) }) });
      const resources = (await mapper.resources()).filter((r) => r.verbs.includes('list'));
      const names = [...new Set(resources.flatMap(nameForms))];
      const ours = new Map<string, string>();
      for (const name of names) {
        try {
          const m = await mapper.resolve(name);
          ours.set(name, `${m.resource.group}/${m.resource.version}/${m.resource.resource}${m.namespaced ? '' : ' (cluster)'}`);
        } catch (err) {
          if (!(err instanceof NoResourceMatchError || err instanceof AmbiguousResourceError)) throw err;
          ours.set(name, REFUSED);
        }
      }
      t = performance.now();
      const oracle = await kubectlResolve(env.kubeconfigPath, cacheDir, 'kubegen-oracle', names, (n) => ours.get(n)!);
      const refusedNames = names.filter((n) => oracle.answers.get(n) === REFUSED);
      console.log(
        `ℹ ${profile}: ${names.length} names of ${resources.length} listable resources compared with kubectl ${kubectl} in ${oracle.invocations} invocations, ${Math.round(performance.now() - t)} ms; refused by kubectl: ${refusedNames.join(', ') || 'none'}`,
      );
      const mismatches = names.filter((n) => oracle.answers.get(n) !== ours.get(n)).map((n) => `${n}: kubectl ${oracle.answers.get(n)}, mapper ${ours.get(n)}`);
      assert.deepEqual(mismatches, []);

      // The clashes were there and resolved, and both warned alike about the ambiguous short names.
      assert.ok(ours.get('gz')?.endsWith('/gizmos') && ours.get('dh') !== REFUSED && ours.get('cg') !== REFUSED);
      assert.equal(ours.get('gizmos.beta.kubegen.dev'), 'beta.kubegen.dev/v1/gizmos (cluster)');
      const ourWarnings = new Set(lines.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => m.startsWith('short name')));
      assert.deepEqual([...ourWarnings].sort(), [...oracle.warnings].sort());
      assert.ok(oracle.warnings.size >= 2, `kubectl warned: ${[...oracle.warnings].join('; ')}`);
    });
  });
}

oracleSuite('full');
oracleSuite('crd-only');

describe('DynamicRESTMapper follows a CRD through its life (full)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'full' });
  });
  after(async () => {
    await env?.release();
  });

  it('sees it added, moved to a new storage version, a version dropped, and removed, with no restart', async () => {
    const group = `${uniqueName('life')}.kubegen.dev`;
    const crds = new ResourceClient<CrdObject>(env.transport, CRD_RESOURCE);
    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    const spec = (versions: { name: string; served: boolean; storage: boolean }[]): CrdObject['spec'] => ({
      group,
      scope: 'Namespaced',
      names: { plural: 'rotors', singular: 'rotor', kind: 'Rotor', shortNames: ['rtr'] },
      versions: versions.map((v) => ({ ...v, schema })),
    });
    // An hour of backoff after the first miss: only the CRD watch can make the mapper see the changes.
    const mapper = new DynamicRESTMapper(env.transport, { missBackoff: { initialMs: 3_600_000 } });
    const stop = new AbortController();
    const running = mapper.start(stop.signal);
    const gk = { group, kind: 'Rotor' };
    try {
      await assert.rejects(mapper.resolve(`rotors.${group}`), NoResourceMatchError);
      await crds.create({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `rotors.${group}` }, spec: spec([{ name: 'v1', served: true, storage: true }]) });
      const added = await eventually(() => mapper.resolve('rtr'), { timeoutMs: 20_000 });
      assert.deepEqual([added.resource, added.namespaced], [{ group, version: 'v1', resource: 'rotors' }, true]);

      const v2 = spec([
        { name: 'v2', served: true, storage: true },
        { name: 'v1', served: true, storage: false },
      ]);
      await crds.update({ ...(await crds.get(`rotors.${group}`)), spec: v2 });
      await eventually(async () => assert.equal((await mapper.restMapping(gk)).resource.version, 'v2'), { timeoutMs: 20_000 });
      assert.deepEqual((await mapper.restMappings(gk)).map((m) => m.resource.version), ['v2', 'v1']);

      const onlyV2 = spec([
        { name: 'v2', served: true, storage: true },
        { name: 'v1', served: false, storage: false },
      ]);
      await crds.update({ ...(await crds.get(`rotors.${group}`)), spec: onlyV2 });
      await eventually(() => assert.rejects(mapper.restMapping(gk, 'v1'), NoKindMatchError), { timeoutMs: 20_000 });
      assert.equal((await mapper.resolve(`rotors.${group}`)).resource.version, 'v2');

      await crds.delete(`rotors.${group}`);
      await eventually(() => assert.rejects(mapper.restMapping(gk), NoKindMatchError), { timeoutMs: 30_000 });
      await assert.rejects(mapper.resolve('rtr'), NoResourceMatchError);
    } finally {
      stop.abort();
      await running;
      await crds.delete(`rotors.${group}`).catch(() => undefined);
    }
  });
});
