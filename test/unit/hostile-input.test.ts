/**
 * Unusual and hostile schemas, one class per test (issue 9): each names the class and pins what the generated
 * types say for it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { emitTypes } from 'kubegen/internal/generate/types/index.js';
import { InputError } from 'kubegen/internal/model/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { REPO_ROOT } from '../support/paths.js';
import { typeCheckProject } from '../support/type-check.js';
import { thingCrd } from '../support/crd-yaml.js';

/** A CRD whose spec has the single field `f` with the given schema (YAML flow mapping). */
function crdWithField(schema: string): string {
  return thingCrd({ f: schema });
}

function fieldType(schema: string): string {
  const resources = parseCrdText(crdWithField(schema), 'thing.yaml');
  const [gv] = groupVersions({ resources });
  const types = emitTypes(gv!);
  const m = /^export interface ThingSpec \{[\s\S]*?^\s+f\?: (.*);$/m.exec(types);
  assert.ok(m, types);
  return m[1]!;
}

describe('hostile and unusual schemas', () => {
  it('a nullable enum that lists null gives null once', () => {
    assert.equal(fieldType('{type: string, nullable: true, enum: [a, null]}'), '"a" | null');
    assert.equal(fieldType('{type: string, nullable: true, enum: [a]}'), '"a" | null');
  });

  it('an integer enum beyond 2^53 widens to number instead of a rounded literal', () => {
    assert.equal(fieldType('{type: integer, enum: [9007199254740993, 1]}'), 'number');
    assert.equal(fieldType('{type: integer, enum: [9007199254740991, 1]}'), '9007199254740991 | 1');
  });

  it('an int-or-string enum is its values, not any IntOrString', () => {
    assert.equal(fieldType('{x-kubernetes-int-or-string: true, enum: [1, auto]}'), '1 | "auto"');
    assert.equal(fieldType('{x-kubernetes-int-or-string: true}'), 'IntOrString');
  });
});

describe('hostile YAML', () => {
  it('refuses nested aliases that would expand to billions of nodes, with a clear error', () => {
    // "Billion laughs": 10 aliases per level, 9 levels, about 2 KB of text.
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    const text = lines.join('\n') + '\n';
    assert.ok(text.length < 2500, `${text.length} bytes`);
    // Unbounded, this would take minutes and gigabytes; bounded, it is refused after counting about 5M nodes.
    assert.throws(
      () => parseCrdText(text, 'bomb.yaml'),
      (err: unknown) => err instanceof InputError && /^bomb\.yaml:1:1: excessive aliasing: document 1 expands to more than 5000000 nodes/.test(err.message),
    );
  });

  it('reads schemas nested close to 200 levels deep, the limit kube-apiserver also has', () => {
    let inner = '{type: string}';
    // (`n` would be a boolean key for kubectl: YAML 1.1.)
    for (let i = 0; i < 195; i++) inner = `{type: object, properties: {nn: ${inner}}}`;
    const resources = parseCrdText(crdWithField(inner), 'deep.yaml');
    const [gv] = groupVersions({ resources });
    const types = emitTypes(gv!);
    assert.match(types, /^export interface ThingSpecFN/m);
    assert.ok(types.split('\n').length > 195 * 3, 'one interface per level');
  });
});

describe('kinds spelled like runtime exports', () => {
  it('a kind named after each exported runtime identifier (and Namespace, Resource, Status, Scale, SharedIndex) generates code that compiles', async () => {
    // The root and every entry point by concept (packages/runtime/src/entry/*.ts: `/cache` has what listers import).
    const entryDir = path.join(REPO_ROOT, 'packages/runtime/src/entry');
    const index = [path.join(REPO_ROOT, 'packages/runtime/src/index.ts'), ...fs.readdirSync(entryDir).map((f) => path.join(entryDir, f))]
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    const exported = new Set<string>();
    for (const m of index.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
      for (const name of m[1]!.split(',').map((n) => n.trim().split(/\s+as\s+/).pop()!.trim())) if (/^[A-Z][A-Za-z0-9]*$/.test(name)) exported.add(name);
    }
    assert.ok(exported.has('Transport') && exported.has('Lister') && exported.has('ObjectMeta') && exported.has('ResourceClient'), 'the runtime exports were read');
    const all = [...new Set([...exported, 'Namespace', 'Resource', 'Status', 'Scale', 'SharedIndex'])].filter((k) => !k.endsWith('List'));
    // A kind spelled like another kind's generated name (DelayingQueue + DelayingQueueInterface) is refused (next test).
    const kinds = all.filter((k) => !all.some((other) => other !== k && ['Interface', 'Lister', 'NamespaceLister', 'Informer'].some((sfx) => other + sfx === k)));
    assert.ok(kinds.length > 100, `${kinds.length} kinds`);
    const docs = kinds.map((kind) =>
      crdWithField('{type: string}')
        .replace('things.x.io', `${kind.toLowerCase()}s.clash.x.io`)
        .replace('group: x.io', 'group: clash.x.io')
        .replace('{kind: Thing, plural: things, singular: thing, listKind: ThingList}', `{kind: ${kind}, plural: ${kind.toLowerCase()}s, singular: ${kind.toLowerCase()}, listKind: ${kind}List}`)
        .replace('subresources: {}', ''),
    );
    const resources = parseCrdText(docs.join('---\n'), 'clash.yaml');
    assert.equal(resources.length, kinds.length, 'every kind was read');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-clash-'));
    try {
      for (const f of generate({ resources })) {
        fs.mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, f.path), f.content);
      }
      const output = typeCheckProject(dir);
      assert.equal(output, '', `${kinds.length} kinds; tsc:\n${output.slice(0, 3000)}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kinds spelled like generated names', () => {
  it('refuses a kind named like the generated Interface/Lister/Informer type of another kind of its group/version', () => {
    const doc = (kind: string) =>
      crdWithField('{type: string}')
        .replace('things.x.io', `${kind.toLowerCase()}s.x.io`)
        .replace('{kind: Thing, plural: things, singular: thing, listKind: ThingList}', `{kind: ${kind}, plural: ${kind.toLowerCase()}s, singular: ${kind.toLowerCase()}, listKind: ${kind}List}`);
    const resources = parseCrdText([doc('Queue'), doc('QueueInterface')].join('---\n'), 'pair.yaml');
    assert.throws(
      () => generate({ resources }),
      (err: unknown) => err instanceof InputError && /^pair\.yaml:\d+:\d+.*kind QueueInterface is also the name of the generated Interface type of kind Queue in x\.io\/v1; rename one of the two kinds/.test(err.message),
    );
  });

  it('keeps nested type names clear of the kind-derived names (a root field named `lister` → not FooLister)', () => {
    const text = crdWithField('{type: string}').replace('          spec:\n', '          lister:\n            type: object\n            properties:\n              a: {type: string}\n          spec:\n');
    const [gv] = groupVersions({ resources: parseCrdText(text, 'thing.yaml') });
    const types = emitTypes(gv!);
    assert.doesNotMatch(types, /^export interface ThingLister \{/m);
    assert.match(types, /^export interface ThingListerField \{/m, 'by meaning, not ThingLister2');
  });
});
