/**
 * The offline validator (`@kubegen/runtime/validation`) against the CRD apiserver 1.36 (issue 29): for every corpus
 * CRD, the kind's sample (as `kubegen sample` prints it) and at least 30 seeded mutations of it (support/mutations.ts:
 * wrong types, bounds, lengths, patterns, enums, formats, missing required, nulls, unknown fields, CEL-breaking values,
 * duplicate list entries, metadata, transition updates) go to the server (server-side dry run, strict field
 * validation) and to the validator. Verdicts (accept/refuse) must agree on at least 99% of the cases, and the refused
 * field paths (a 422's `details.causes[].field`, or the `unknown field "…"` list of a strict decoding error) on at
 * least 95% of the cases both refuse. Every disagreement is printed with the kind, the case and both answers; the
 * ones understood are explained in docs/validation.md. fixtures/crds-wave5 (issue 38's public CRDs) is a run of its
 * own, held to every verdict, and to the same refused paths wherever the server refuses by strict decoding (the
 * unknown fields alone, before any schema or rule error).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ResourceClient, type KubeObject } from '@kubegen/runtime';
import { ApiError } from '@kubegen/runtime/internal/client/errors.js';
import { crdResourceInfo, installCrds, type CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { createValidator, type CrdValidator } from '@kubegen/runtime/validation';
import { groupVersions, type KindVersion } from 'kubegen/internal/model/index.js';
import { minimalSample, sampleValidator } from 'kubegen/internal/generate/sample/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { applyEdit } from 'kubegen/internal/generate/sample/edits.js';
import { forEachConcurrently } from '../../bench/support/concurrently.js';
import { corpusRuns, readFixtureCrds, wave5Runs } from '../support/corpus.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { mutations, type MutationCase } from './support/mutations.js';

/** What one side made of a case: refused or not, and the refused field paths (sorted, deduplicated). */
interface Answer {
  refused: boolean;
  paths: string[];
  /** The first lines of the refusal, for the report. */
  text: string;
}

interface Outcome {
  kind: string;
  case: MutationCase;
  server: Answer;
  validator: Answer;
}

const SEED = 29;
/** Requests in flight per kind, and kinds at a time: about 12 requests at once. */
const CONCURRENCY = 4;
const KINDS_AT_ONCE = 3;
const ACCEPTED: Answer = { refused: false, paths: [], text: 'accepted' };

/** `''` and `<nil>` are the same (no path); paths sorted and deduplicated. */
const normalize = (paths: string[]): string[] => [...new Set(paths.map((p) => (p === '' ? '<nil>' : p)))].sort();

/** The server's answer from a refused request. */
function serverRefusal(err: unknown): Answer {
  if (!(err instanceof ApiError)) throw err;
  const status = err.status;
  const unknown = [...(status.message ?? '').matchAll(/unknown field "([^"]+)"/g)].map((m) => m[1]!);
  const causes = (status.details?.causes ?? []).map((c) => c.field ?? '');
  let paths = unknown.length > 0 && /strict decoding error/.test(status.message ?? '') ? unknown : causes;
  // metadata the server cannot decode (`labels: "text"`) is a 400 naming no field; the validator, whose answer is
  // a list of field errors, reports the same refusal on `metadata`: compared as that.
  if (status.code === 400 && causes.length === 0 && /cannot be handled as a .* Go struct field ObjectMeta\./.test(status.message ?? '')) paths = ['metadata'];
  return { refused: true, paths: normalize(paths), text: `${status.code} ${status.reason}: ${(status.message ?? '').slice(0, 400)}` };
}

/** The validator's answer, strict field validation as on the server: unknown fields refuse first. */
function validatorAnswer(v: CrdValidator, obj: unknown, opts: Parameters<CrdValidator['validate']>[1]): { answer: Answer; object: unknown } {
  const r = v.validate(obj, opts);
  if (r.unknownFields.length > 0) return { answer: { refused: true, paths: normalize(r.unknownFields), text: `strict: unknown fields ${r.unknownFields.join(', ')}` }, object: r.object };
  if (r.errors.length === 0) return { answer: ACCEPTED, object: r.object };
  return { answer: { refused: true, paths: normalize(r.errors.map((e) => e.path)), text: r.errors.map((e) => `${e.path}: ${e.message}`).join('; ').slice(0, 400) }, object: r.object };
}

/** Sends every case of one kind to the server and to the validator. */
async function runKind(env: TestEnv, ns: string, kv: KindVersion, crd: CrdObject, validator: CrdValidator, cases: MutationCase[], uniq: string): Promise<Outcome[]> {
  const kind = `${kv.resource.names.kind}.${kv.resource.group}/${kv.version.name}`;
  const namespaced = kv.resource.scope === 'Namespaced';
  const client = new ResourceClient<KubeObject>(env.transport, crdResourceInfo(crd, kv.version.name), namespaced ? ns : undefined);
  const opts = namespaced ? { namespace: ns } : {};
  const outcomes: Outcome[] = [];
  const place = (obj: Record<string, unknown>, name?: string): KubeObject => {
    const meta = { ...(obj['metadata'] as Record<string, unknown>) };
    if (name !== undefined) meta['name'] = name;
    if (namespaced) meta['namespace'] = ns;
    return { ...obj, metadata: meta } as KubeObject;
  };
  await forEachConcurrently(cases.length, CONCURRENCY, async (i) => {
    const c = cases[i]!;
    if (!c.base) {
      const obj = place(c.object);
      const server = await client.create(obj, { dryRun: true, fieldValidation: 'Strict' }).then(() => ACCEPTED, serverRefusal);
      outcomes.push({ kind, case: c, server, validator: validatorAnswer(validator, obj, opts).answer });
      return;
    }
    // A transition: the base is created for real (a name of its own), then updated with a dry run.
    const name = `${kv.resource.names.kind.toLowerCase()}-t${i}-${uniq}`.slice(0, 63);
    const base = place(c.base, name);
    const vBase = validatorAnswer(validator, base, opts);
    let created: KubeObject;
    try {
      created = await client.create(base, { fieldValidation: 'Strict' });
    } catch (err) {
      outcomes.push({ kind, case: { ...c, name: `${c.name} [base]` }, server: serverRefusal(err), validator: vBase.answer });
      return;
    }
    try {
      if (vBase.answer.refused) {
        outcomes.push({ kind, case: { ...c, name: `${c.name} [base]` }, server: ACCEPTED, validator: vBase.answer });
        return;
      }
      const serverUpdate = structuredClone(created) as Record<string, unknown>;
      applyEdit(serverUpdate, c.edit!); // the stored object with the transition's change
      const server = await client.update(serverUpdate as KubeObject, { dryRun: true, fieldValidation: 'Strict' }).then(() => ACCEPTED, serverRefusal);
      // The validator sees the same write and, as `oldSelf`, the object the server stored (as a client would).
      const validatorUpdate = validatorAnswer(validator, serverUpdate, { ...opts, operation: 'update', old: created }).answer;
      outcomes.push({ kind, case: c, server, validator: validatorUpdate });
    } finally {
      await client.delete(name).catch(() => undefined);
    }
  });
  return outcomes;
}

/** The disagreements understood (docs/validation.md, "Differential test"): matched on both answers, with the reason. */
const EXPLAINED: { why: string; matches(o: Outcome): boolean }[] = [
  {
    why: 'a parent of the scale subresource\'s replicas path is not an object: the server\'s accessor error names the path (.spec.replicas), the validator takes the replicas as absent',
    matches: (o) => /\.\w[\w.]* accessor error: .* expected map\[string\]interface/.test(o.server.text) && !/accessor error/.test(o.validator.text),
  },
];

const explain = (o: Outcome): string => EXPLAINED.find((e) => e.matches(o))?.why ?? 'UNEXPLAINED';

const sameAnswer = (a: Answer, b: Answer): boolean => a.refused === b.refused;
const samePaths = (a: Answer, b: Answer): boolean => a.paths.join('\n') === b.paths.join('\n');

/** The outcomes of one set of fixtures, and the number of cases per kind (`Kind.group#run`). */
interface Tally {
  outcomes: Outcome[];
  perKind: Map<string, number>;
}

/** Agreement over a tally's outcomes, every disagreement printed (with its explanation, or `UNEXPLAINED`). */
function judge(name: string, t: Tally): { verdictMisses: Outcome[]; pathMisses: Outcome[]; strictMisses: Outcome[]; verdictRate: number; pathRate: number } {
  const { outcomes, perKind } = t;
  outcomes.sort((a, b) => (a.kind === b.kind ? (a.case.name < b.case.name ? -1 : 1) : a.kind < b.kind ? -1 : 1));
  const verdictMisses = outcomes.filter((o) => !sameAnswer(o.server, o.validator));
  const bothRefused = outcomes.filter((o) => o.server.refused && o.validator.refused);
  const pathMisses = bothRefused.filter((o) => !samePaths(o.server, o.validator));
  // After a strict decoding refusal the server names the unknown fields only: so must the validator.
  const strict = bothRefused.filter((o) => /strict decoding error/.test(o.server.text));
  const strictMisses = strict.filter((o) => !samePaths(o.server, o.validator));
  const verdictRate = 1 - verdictMisses.length / outcomes.length;
  const pathRate = bothRefused.length ? 1 - pathMisses.length / bothRefused.length : 1;
  const refusedByServer = outcomes.filter((o) => o.server.refused).length;
  console.log(`ℹ ${name}: ${perKind.size} kinds, ${outcomes.length} cases (${refusedByServer} refused by the server); fewest cases of a kind: ${Math.min(...perKind.values())}`);
  console.log(`ℹ ${name}: verdicts agree on ${outcomes.length - verdictMisses.length}/${outcomes.length} (${(verdictRate * 100).toFixed(2)}%); refused paths on ${bothRefused.length - pathMisses.length}/${bothRefused.length} (${(pathRate * 100).toFixed(2)}%), after a strict decoding refusal on ${strict.length - strictMisses.length}/${strict.length}`);
  const families = new Map<string, [number, number]>();
  for (const o of outcomes) {
    const f = families.get(o.case.family) ?? [0, 0];
    families.set(o.case.family, [f[0] + 1, f[1] + (sameAnswer(o.server, o.validator) && (!o.server.refused || samePaths(o.server, o.validator)) ? 1 : 0)]);
  }
  console.log(`ℹ ${name}: by family (cases, full agreement): ${[...families].map(([f, [n, ok]]) => `${f} ${ok}/${n}`).join(', ')}`);
  for (const o of verdictMisses) console.log(`ℹ VERDICT ${o.kind} | ${o.case.name}\n    server:    ${o.server.text}\n    validator: ${o.validator.text}\n    why:       ${explain(o)}`);
  for (const o of pathMisses) console.log(`ℹ PATHS ${o.kind} | ${o.case.name}\n    server:    [${o.server.paths.join(', ')}] ${o.server.text}\n    validator: [${o.validator.paths.join(', ')}] ${o.validator.text}\n    why:       ${explain(o)}`);
  const unexplained = [...verdictMisses, ...pathMisses].filter((o) => explain(o) === 'UNEXPLAINED').length;
  console.log(`ℹ ${name}: ${verdictMisses.length + pathMisses.length} disagreement(s), ${unexplained} not explained (docs/validation.md lists the explained ones)`);
  return { verdictMisses, pathMisses, strictMisses, verdictRate, pathRate };
}

describe('the offline validator against the CRD apiserver 1.36 (differential, every corpus CRD)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
  });
  after(async () => {
    await env?.release();
  });

  /** Installs a run's CRDs, then sends every kind's sample and mutations to the server and to the validator. */
  const sendRun = async (label: string, files: string[], tally: Tally): Promise<void> => {
    const ns = await env.newNamespace('vdiff');
    const uniq = ns.slice(-5);
    const model = await parseCrdPaths(files, { onWarning: () => undefined });
    const crds = new Map<string, CrdObject>();
    for (const f of files) for (const c of readFixtureCrds(f)) crds.set(`${c.spec.group}/${c.spec.names.kind}`, c);
    const t0 = performance.now();
    await installCrds(env.transport, [...crds.values()], 300_000);
    const t1 = performance.now();
    const kinds = groupVersions(model).flatMap((gv) => gv.kinds).filter((kv) => kv.version.storage);
    await forEachConcurrently(kinds.length, KINDS_AT_ONCE, async (k) => {
      const kv = kinds[k]!;
      const crd = crds.get(`${kv.resource.group}/${kv.resource.names.kind}`)!;
      const validator = await createValidator(crd as Parameters<typeof createValidator>[0]);
      const sample = minimalSample(kv, { name: `${kv.resource.names.kind.toLowerCase()}-vdiff`, validator: await sampleValidator(kv) });
      const cases = mutations(kv, sample, { seed: SEED });
      const kindOutcomes = await runKind(env, ns, kv, crd, validator, cases, uniq);
      tally.perKind.set(`${kv.resource.names.kind}.${kv.resource.group}#${label}`, kindOutcomes.length);
      tally.outcomes.push(...kindOutcomes);
    });
    console.log(`ℹ ${label}: ${crds.size} CRDs established in ${((t1 - t0) / 1000).toFixed(1)} s, ${kinds.length} kinds' cases sent in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    assert.ok(kinds.every((kv) => tally.perKind.has(`${kv.resource.names.kind}.${kv.resource.group}#${label}`)), 'every kind of the run was tried');
  };

  // One test per corpus run (the second holds the other variants of Foo and Workflow, installed over the first's),
  // each within the runner's per-test timeout on a loaded machine; the last one judges all cases.
  const corpus: Tally = { outcomes: [], perKind: new Map() };
  for (const [run, files] of corpusRuns().entries()) {
    it(`sends the samples and their mutations of corpus run ${run} (${files.length} files) to the server and to the validator`, async () => {
      await sendRun(`run ${run}`, files, corpus);
    });
  }

  it('agrees on at least 99% of verdicts and 95% of refused field paths over the samples and their mutations', () => {
    const r = judge('fixtures/crds', corpus);
    assert.equal(corpus.perKind.size, 56, 'every corpus kind');
    assert.ok(Math.min(...corpus.perKind.values()) >= 31, 'the sample and at least 30 mutations per kind');
    assert.ok(r.verdictRate >= 0.99, `verdicts agree on ${(r.verdictRate * 100).toFixed(2)}% (want 99%)`);
    assert.ok(r.pathRate >= 0.95, `refused paths agree on ${(r.pathRate * 100).toFixed(2)}% (want 95%)`);
  });

  // Issue 38's public CRDs (fixtures/crds-wave5, read as kubectl reads YAML): a run of their own, judged on its own.
  const wave5: Tally = { outcomes: [], perKind: new Map() };
  const [wave5Files] = wave5Runs();
  it(`sends the samples and their mutations of fixtures/crds-wave5 (${wave5Files!.length} files) to the server and to the validator`, async () => {
    await sendRun('crds-wave5', wave5Files!, wave5);
  });

  it('agrees on every verdict over fixtures/crds-wave5, and on the refused paths after every strict decoding refusal', () => {
    const r = judge('fixtures/crds-wave5', wave5);
    assert.equal(wave5.perKind.size, 10, 'every crds-wave5 kind');
    assert.ok(Math.min(...wave5.perKind.values()) >= 31, 'the sample and at least 30 mutations per kind');
    assert.deepEqual(r.verdictMisses.map((o) => `${o.kind} | ${o.case.name}`), [], 'every verdict agrees');
    assert.deepEqual(r.strictMisses.map((o) => `${o.kind} | ${o.case.name}`), [], 'the unknown fields after a strict decoding refusal');
  });
});
