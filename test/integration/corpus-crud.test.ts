/**
 * Every corpus CRD against a real server, through the generated clientset (issue 12). The whole corpus is generated
 * and compiled (tsc) into a scratch project, each CRD is installed, and per kind (its storage version) the minimal
 * sample of `kubegen sample` goes through the generated typed client: create, get, list, watch (a MODIFIED event
 * for the merge patch), merge patch, server-side apply (from the generated `<kind>Apply` constructor), updateStatus where the kind has a status subresource, delete
 * (then get answers 404). A kind that fails names the step and the server's reason (for a CEL rule or a pattern the
 * apiserver quotes the rule or the pattern). On the 1.36 server the sample of every other served version of each
 * kind is created too (server-side dry run, strict field validation).
 *
 * On the `crd-only` profile (the CRD apiserver 1.36) every one of the 56 corpus CRDs installs, and so does every
 * CRD of fixtures/crds-wave5 (issue 38's shapes: their own run); on the `full` profile (kube-apiserver 1.20) only
 * the corpus CRDs it accepts are tried, the refusals counted and reported.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, Transport } from '@kubegen/runtime';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime';
import { CRD_RESOURCE, crdResourceInfo, installCrds, type CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import type { EnvtestProfile } from '@kubegen/runtime/internal/testing/envtest/envtest-profiles.js';
import { groupIdentifiers, groupVersions, type JSONSchemaProps, type KindVersion } from 'kubegen/internal/model/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { groupVersionMember, lowerCamel, pluralMember } from 'kubegen/internal/generate/names.js';
import { minimalSample, sampleValidator, type SampleValidator } from 'kubegen/internal/generate/sample/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { corpusRuns, readFixtureCrds, wave5Runs } from '../support/corpus.js';
import { linkRuntimePackage, REPO_ROOT, TSC } from '../support/paths.js';
import { sharedEnv, type TestEnv } from './support/env.js';

/** The generated typed client of one kind, as this test drives it. */
interface KindClient {
  create(obj: KubeObject): Promise<KubeObject>;
  get(name: string): Promise<KubeObject>;
  list(): Promise<{ items: KubeObject[]; metadata?: { resourceVersion?: string } }>;
  watch(opts: { resourceVersion?: string }): Promise<AsyncIterable<{ type: string; object: KubeObject }> & { stop(): void }>;
  patch(name: string, patch: { type: 'merge'; patch: Record<string, unknown> }): Promise<KubeObject>;
  apply(obj: KubeObject, opts: { fieldManager: string; force?: boolean }): Promise<KubeObject>;
  updateStatus?(obj: KubeObject): Promise<KubeObject>;
  delete(name: string): Promise<void>;
}

type ClientsetClass = new (transport: Transport) => Record<string, Record<string, (ns?: string) => KindClient>>;
/** A generated `<kind>Apply(name, namespace?)`: the identity of an apply configuration. */
type ApplyConstructor = (name: string, namespace?: string) => KubeObject;

interface Run {
  files: string[];
  /** Each kind's storage version. */
  kinds: KindVersion[];
  /** The other served versions. */
  otherVersions: KindVersion[];
  groupIds: Map<string, string>;
  Clientset: ClientsetClass;
  /** The generated modules by group/version member (`samplecontrollerV1alpha1`), from the root index. */
  modules: Record<string, Record<string, unknown>>;
}

/** A set of CRD fixtures and its runs (files generated together). */
interface Corpus {
  name: string;
  runs: string[][];
}

const CORPUS: Corpus = { name: 'fixtures/crds', runs: corpusRuns() };
const WAVE5: Corpus = { name: 'fixtures/crds-wave5', runs: wave5Runs() }; // the `.m.` twins need no groupAccessors

/** Generates every run of `corpus` into `dir/run<i>`, compiles the whole folder with tsc, and imports each clientset. */
async function generateAndCompile(dir: string, corpus: Corpus): Promise<Run[]> {
  const runs: Omit<Run, 'Clientset' | 'modules'>[] = [];
  for (const [i, files] of corpus.runs.entries()) {
    const model = await parseCrdPaths(files);
    const gvs = groupVersions(model);
    for (const f of generate(model)) {
      const target = path.join(dir, 'src', `run${i}`, f.path);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, f.content);
    }
    const all = gvs.flatMap((gv) => gv.kinds);
    runs.push({
      files,
      kinds: all.filter((kv) => kv.version.storage),
      otherVersions: all.filter((kv) => !kv.version.storage && kv.version.served),
      groupIds: groupIdentifiers(model),
    });
  }
  linkRuntimePackage(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'corpus-crud', type: 'module', private: true }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'], types: [], skipLibCheck: true, outDir: 'out', rootDir: 'src' },
      include: ['src'],
    }),
  );
  const tsc = spawnSync(TSC, ['-p', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(tsc.status, 0, `tsc failed:\n${(tsc.stdout + tsc.stderr).slice(0, 4000)}`);
  const out: Run[] = [];
  for (const [i, r] of runs.entries()) {
    const mod = (await import(pathToFileURL(path.join(dir, 'out', `run${i}`, 'index.js')).href)) as { Clientset: ClientsetClass } & Record<string, Record<string, unknown>>;
    out.push({ ...r, Clientset: mod.Clientset, modules: mod });
  }
  return out;
}

const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 240);

/** Runs the battery on one kind; resolves with `undefined` when every step passed, else `step: reason`. */
async function exercise(kv: KindVersion, client: KindClient, applyOf: ApplyConstructor, ns: string | undefined): Promise<string | undefined> {
  const kind = kv.resource.names.kind;
  let step = 'create';
  // The sample as `kubegen sample` prints it: checked with the kind's validator and repaired for its CEL rules.
  const validator: SampleValidator = await sampleValidator(kv);
  const sample = minimalSample(kv, { name: `${kind.toLowerCase()}-crud`, validator }) as KubeObject;
  try {
    const created = await client.create(sample);
    const name = created.metadata!.name!;
    step = 'get';
    assert.equal((await client.get(name)).metadata?.uid, created.metadata?.uid);
    step = 'list';
    const list = await client.list();
    assert.ok(list.items.some((o) => o.metadata?.name === name), 'the list holds the object');
    step = 'watch';
    const watch = await client.watch({ resourceVersion: list.metadata?.resourceVersion });
    step = 'merge patch';
    await client.patch(name, { type: 'merge', patch: { metadata: { labels: { 'kubegen.dev/patched': 'merge' } } } });
    step = 'watch';
    for await (const ev of watch) {
      if (ev.type === 'MODIFIED' && ev.object.metadata?.name === name) {
        assert.equal(ev.object.metadata?.labels?.['kubegen.dev/patched'], 'merge');
        break;
      }
    }
    watch.stop();
    step = 'apply';
    const identity = applyOf(name, ns);
    assert.deepEqual([identity.apiVersion, identity.kind, identity.metadata?.name], [sample.apiVersion, kind, name], 'the generated apply constructor');
    const applied = await client.apply({ ...identity, metadata: { ...identity.metadata, labels: { 'kubegen.dev/applied': 'true' } } }, { fieldManager: 'corpus-crud' });
    assert.equal(applied.metadata?.labels?.['kubegen.dev/applied'], 'true');
    const managers = (applied.metadata?.managedFields ?? []) as { manager?: string; operation?: string }[];
    assert.ok(managers.some((m) => m.manager === 'corpus-crud' && m.operation === 'Apply'), 'the apply is recorded in managedFields');
    if (kv.version.subresources.status) {
      step = 'updateStatus';
      assert.ok(client.updateStatus, 'the typed client has updateStatus');
      const withStatus = minimalSample(kv, { name, withStatus: true, validator }) as KubeObject & { status?: unknown };
      const current = await client.get(name);
      await client.updateStatus({ ...current, status: withStatus.status ?? {} } as KubeObject);
    }
    step = 'delete';
    await client.delete(name);
    await client.get(name).then(
      () => assert.fail('the object is still there after delete'),
      (err: unknown) => assert.ok(isNotFound(err), `get after delete: ${firstLine(err)}`),
    );
    return undefined;
  } catch (err) {
    const rules = celRulesNamedIn(kv.version.schema, firstLine(err));
    return `${step}: ${firstLine(err)}${rules.map((r) => ` [CEL rule: ${r}]`).join('')}`;
  }
}

/** The CEL rules (`x-kubernetes-validations`) anywhere in `schema` whose message the server's error quotes. */
function celRulesNamedIn(schema: JSONSchemaProps, message: string): string[] {
  const found: string[] = [];
  const visit = (s: JSONSchemaProps | undefined): void => {
    if (!s) return;
    for (const v of s['x-kubernetes-validations'] ?? []) if (v.message && message.includes(v.message) && !found.includes(v.rule)) found.push(v.rule);
    for (const p of Object.values(s.properties ?? {})) visit(p);
    visit(s.items);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties);
  };
  visit(schema);
  return found;
}

/** Creates the sample of a served version that is not the storage one (server-side dry run, strict field validation). */
async function dryRunSample(env: TestEnv, kv: KindVersion, crd: CrdObject, ns: string | undefined): Promise<string | undefined> {
  const client = new ResourceClient<KubeObject>(env.transport, crdResourceInfo(crd, kv.version.name), ns);
  const sample = minimalSample(kv, { name: `${kv.resource.names.kind.toLowerCase()}-${kv.version.name}`, validator: await sampleValidator(kv) }) as KubeObject;
  return client.create(sample, { dryRun: true, fieldValidation: 'Strict' }).then(
    () => undefined,
    (err: unknown) => `dry run: ${firstLine(err)}${celRulesNamedIn(kv.version.schema, firstLine(err)).map((r) => ` [CEL rule: ${r}]`).join('')}`,
  );
}

function corpusSuite(profile: EnvtestProfile, corpus: Corpus, want: { minPassing: number; allCrds?: boolean; otherVersions?: boolean }): void {
  describe(`every kind of ${corpus.name} through the generated clientset on the ${profile} profile (envtest)`, () => {
    let env: TestEnv;
    let dir: string;
    before(async () => {
      env = await sharedEnv({ profile });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `kubegen-corpus-crud-${profile}-`));
    });
    after(async () => {
      await env?.release();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    const what = `${want.otherVersions ? '; every other served version\'s sample is accepted' : ''}${want.allCrds ? '; every CRD installs' : ''}`;
    it(`creates, reads, lists, watches, patches, applies, updates status and deletes (at least ${want.minPassing} kinds pass${what})`, async () => {
      const runs = await generateAndCompile(dir, corpus);
      const ns = await env.newNamespace('corpus');
      // CRDs other tests installed on the shared control plane: the corpus' variants of them are put back after.
      const crdClient = new ResourceClient<CrdObject>(env.transport, CRD_RESOURCE);
      const before = new Map((await crdClient.list()).items.map((c) => [c.metadata!.name!, c]));
      const touched = new Set<string>();
      const refusedCrds: string[] = [];
      const failures: string[] = [];
      const versionFailures: string[] = [];
      let tried = 0;
      let versionsTried = 0;
      for (const run of runs) {
        const accepted = new Map<string, CrdObject>();
        for (const file of run.files) {
          for (const fromFile of readFixtureCrds(file)) {
            if (before.has(fromFile.metadata?.name ?? '')) touched.add(fromFile.metadata!.name!);
            // A version other than the storage one is written through its conversion: with no webhook server here,
            // a CRD converting by webhook is installed converting by None, so each version's sample meets its own schema.
            const webhook = want.otherVersions && (fromFile.spec['conversion'] as { strategy?: string } | undefined)?.strategy === 'Webhook';
            const crd = webhook ? { ...fromFile, spec: { ...fromFile.spec, conversion: { strategy: 'None' } } } : fromFile;
            if (webhook) console.log(`ℹ ${crd.metadata?.name}: conversion webhook replaced by None (no webhook server in envtest)`);
            try {
              await installCrds(env.transport, [crd], 30_000);
              accepted.set(`${crd.spec.group}/${crd.spec.names.kind}`, crd);
            } catch (err) {
              refusedCrds.push(`${path.relative(REPO_ROOT, file)}: ${firstLine(err)}`);
            }
          }
        }
        const clientset = new run.Clientset(env.transport);
        for (const kv of run.kinds) {
          if (!accepted.has(`${kv.resource.group}/${kv.resource.names.kind}`)) continue;
          tried++;
          const member = groupVersionMember(run.groupIds.get(kv.resource.group)!, kv.version.name);
          const gv = clientset[member]!;
          const kindNs = kv.resource.scope === 'Namespaced' ? ns : undefined;
          const client = gv[pluralMember(kv)]!.call(gv, kindNs);
          const applyOf = run.modules[member]![`${lowerCamel(kv.resource.names.kind)}Apply`] as ApplyConstructor;
          const failure = await exercise(kv, client, applyOf, kindNs);
          if (failure) failures.push(`${kv.resource.names.kind}.${kv.resource.group}/${kv.version.name}: ${failure}`);
        }
        for (const kv of want.otherVersions ? run.otherVersions : []) {
          const crd = accepted.get(`${kv.resource.group}/${kv.resource.names.kind}`);
          if (!crd) continue;
          versionsTried++;
          const failure = await dryRunSample(env, kv, crd, kv.resource.scope === 'Namespaced' ? ns : undefined);
          if (failure) versionFailures.push(`${kv.resource.names.kind}.${kv.resource.group}/${kv.version.name}: ${failure}`);
        }
      }
      await installCrds(env.transport, [...touched].map((n) => before.get(n)!), 30_000);
      const passed = tried - failures.length;
      const versions = want.otherVersions ? `, ${versionsTried - versionFailures.length} of ${versionsTried} other served versions` : '';
      console.log(`ℹ ${profile}, ${corpus.name}: ${passed} of ${tried} kinds passed every step${versions}; ${refusedCrds.length} CRD(s) refused by the server`);
      for (const r of refusedCrds) console.log(`ℹ CRD refused: ${r}`);
      for (const f of [...failures, ...versionFailures]) console.log(`ℹ kind failed: ${f}`);
      if (want.allCrds) assert.deepEqual(refusedCrds, [], 'every CRD installs');
      assert.deepEqual(versionFailures, [], 'the sample of every other served version is accepted');
      assert.ok(passed >= want.minPassing, `${passed} kinds passed (want at least ${want.minPassing}):\n${failures.join('\n')}`);
    });
  });
}

// The CRD apiserver 1.36 takes every corpus CRD (56 files, 54 distinct kinds plus two variants of Foo and Workflow),
// and every kind's sample (its CEL rules satisfied by `kubegen sample`, issue 29) passes every step; so does the
// sample of every other served version (a dry run).
corpusSuite('crd-only', CORPUS, { minPassing: 56, allCrds: true, otherVersions: true });
// Issue 38's public fixtures: 10 CRDs (oneOf branches, upjet's required parameter, the `.m.` twins, kubectl-lenient
// YAML, reserved words in rules, an embedded pod template), every kind and served version accepted.
corpusSuite('crd-only', WAVE5, { minPassing: 10, allCrds: true, otherVersions: true });
// kube-apiserver 1.20 refuses the CRDs that use newer schema features; every kind it accepts must pass.
corpusSuite('full', CORPUS, { minPassing: 30 });
