import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { InputError } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = join(repo, 'fixtures');

function crd(opts: { version?: string; group?: string; kind?: string; plural?: string; extra?: string; schema?: string } = {}): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: ${opts.group ?? 'example.com'}
  names:
    kind: ${opts.kind ?? 'Thing'}
    plural: ${opts.plural ?? 'things'}
  scope: Namespaced
  versions:
    - name: ${opts.version ?? 'v1'}
      served: true
      storage: true
${opts.extra ?? ''}      schema:
        openAPIV3Schema:
${opts.schema ?? `          type: object
          properties:
            spec:
              type: object
              properties:
                mode: { type: string, enum: [=, "!=", "on", 'yes', "no", 'off'] }
`}`;
}

function inputError(fn: () => unknown, pattern: RegExp): InputError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof InputError, `expected an InputError, got ${String(caught)}`);
  assert.match(caught.message, pattern);
  return caught;
}

describe('parseCrdText', () => {
  it('reads names with defaults, scope, version flags and the schema (= is a string)', () => {
    const [r] = parseCrdText(crd(), 'a.yaml');
    assert.ok(r);
    assert.equal(r.group, 'example.com');
    assert.deepEqual(r.names, { kind: 'Thing', plural: 'things', singular: 'thing', listKind: 'ThingList', shortNames: [], categories: [] });
    assert.equal(r.scope, 'Namespaced');
    const v = r.versions[0]!;
    assert.equal(v.name, 'v1');
    assert.equal(v.served, true);
    assert.equal(v.storage, true);
    assert.equal(v.deprecated, false);
    assert.deepEqual(v.schema.properties?.['spec']?.properties?.['mode']?.enum, ['=', '!=', 'on', 'yes', 'no', 'off']);
    assert.equal(r.source.file, 'a.yaml');
    assert.equal(r.source.line, 1);
  });

  it('reads YAML as kubectl does: YAML 1.1 booleans, the last of duplicate keys, under-indented quoted continuation lines; each a warning', () => {
    const text = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: things.example.com }
spec:
  group: example.com
  names: { kind: Thing, plural: things }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: false
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            enabled:
              type: boolean
              default: y
              description: 'Whether the thing is
              enabled (continued at the key''s own indentation)
          and further left.'
            mode:
              type: string
              enum: ["yes", 'no', "=", on]
`;
    const warnings: string[] = [];
    const [r] = parseCrdText(text.replace('enum: ["yes", \'no\', "=", on]', 'enum: ["yes", \'no\', "="]\n              x-kubernetes-preserve-unknown-fields: on'), 'k.yaml', { onWarning: (w, m) => warnings.push(`${w.file}:${w.line}:${w.column}: ${m}`) });
    const v = r!.versions[0]!;
    assert.equal(v.storage, true, 'the last storage: wins');
    const enabled = v.schema.properties!['enabled']!;
    assert.equal(enabled.default, true, 'y is true');
    assert.equal(enabled.description, "Whether the thing is enabled (continued at the key's own indentation) and further left.");
    assert.deepEqual(v.schema.properties!['mode']!.enum, ['yes', 'no', '=']);
    assert.equal(v.schema.properties!['mode']!['x-kubernetes-preserve-unknown-fields'], true, 'on is true');
    assert.deepEqual(warnings, [
      'k.yaml:12:7: duplicate key "storage": kubectl keeps the last value, and so does kubegen',
      "k.yaml:19:24: unquoted y is a boolean in YAML 1.1, as kubectl reads it (true); quote it if a string is meant",
      "k.yaml:21:1: continuation line of a quoted string is indented no deeper than its key; kubectl reads it, strict YAML parsers refuse it",
      "k.yaml:22:1: continuation line of a quoted string is indented no deeper than its key; kubectl reads it, strict YAML parsers refuse it",
      "k.yaml:26:53: unquoted on is a boolean in YAML 1.1, as kubectl reads it (true); quote it if a string is meant",
    ]);
    // A string schema given a YAML 1.1 boolean is refused, as the apiserver refuses what kubectl sends it.
    inputError(() => parseCrdText(text, 'k.yaml'), /^k\.yaml:25:\d+ \(at spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.mode\.enum\[3\]\): enum value true of a string schema must be a string$/);
  });

  it("leaves quotes inside plain scalars alone (Kubernetes' \"Must not contain ':'.\"), and re-indents only quoted scalars", () => {
    const text = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: things.example.com }
spec:
  group: example.com
  names: { kind: Thing, plural: things }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            mountPath:
              description: Path within the container at which the volume should be mounted.  Must not contain ':'.
              type: string
            other:
              description: it's - 'not' a "quote", [really] {either} # a comment with 'a quote
              type: string
            last:
              description: "a key's: value
              continued"
              type: string
`;
    const warnings: string[] = [];
    const [r] = parseCrdText(text, 'k.yaml', { onWarning: (w, m) => warnings.push(`${w.line}: ${m}`) });
    const props = r!.versions[0]!.schema.properties!;
    assert.equal(props['mountPath']!.description, "Path within the container at which the volume should be mounted.  Must not contain ':'.");
    assert.equal(props['other']!.description, `it's - 'not' a "quote", [really] {either}`);
    assert.equal(props['last']!.description, "a key's: value continued");
    assert.deepEqual(warnings, ['24: continuation line of a quoted string is indented no deeper than its key; kubectl reads it, strict YAML parsers refuse it'], 'only the quoted one');
  });

  it('keeps subresources, printer columns, selectable fields, deprecation and conversion', () => {
    const text = crd({
      extra: `      deprecated: true
      deprecationWarning: use v2
      subresources:
        status: {}
        scale: { specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector }
      additionalPrinterColumns:
        - { name: Ready, type: string, jsonPath: .status.ready, priority: 1 }
      selectableFields:
        - jsonPath: .spec.mode
`,
    }).replace('  scope: Namespaced', '  scope: Cluster\n  conversion:\n    strategy: None');
    const [r] = parseCrdText(text, 'a.yaml');
    const v = r!.versions[0]!;
    assert.equal(r!.scope, 'Cluster');
    assert.deepEqual(r!.conversion, { strategy: 'None' });
    assert.equal(v.deprecated, true);
    assert.equal(v.deprecationWarning, 'use v2');
    assert.deepEqual(v.subresources, { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } });
    assert.deepEqual(v.printerColumns, [{ name: 'Ready', type: 'string', jsonPath: '.status.ready', priority: 1 }]);
    assert.deepEqual(v.selectableFields, ['.spec.mode']);
  });

  it('reads multi-document YAML, skips empty documents, accepts a List of CRDs and JSON', () => {
    const two = `${crd()}---\n---\n# only a comment\n---\n${crd({ kind: 'Other', plural: 'others' })}`;
    assert.deepEqual(parseCrdText(two, 'm.yaml').map((r) => r.names.kind), ['Thing', 'Other']);
    const list = { apiVersion: 'v1', kind: 'List', items: [parseYamlAsJson(crd())] };
    assert.deepEqual(parseCrdText(JSON.stringify(list, null, 2), 'l.json').map((r) => r.names.kind), ['Thing']);
  });

  it('rejects v1beta1 CRDs with a hint to convert', () => {
    const e = inputError(() => parseCrdText(crd().replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'), 'old.yaml'), /v1beta1.*convert.*apiextensions\.k8s\.io\/v1/);
    assert.equal(e.location.line, 1);
  });

  it('rejects a non-CRD document naming its kind', () => {
    inputError(() => parseCrdText('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n', 'cm.yaml'), /ConfigMap/);
  });

  it('rejects a version without schema.openAPIV3Schema', () => {
    const text = crd().replace(/      schema:[\s\S]*$/, '');
    const e = inputError(() => parseCrdText(text, 'ns.yaml'), /no schema\.openAPIV3Schema/);
    assert.match(e.message, /^ns\.yaml:\d+:\d+/);
    assert.equal(e.location.path, 'spec.versions[0].schema');
  });

  it('reports malformed YAML with line and column', () => {
    const e = inputError(() => parseCrdText('apiVersion: v1\nkind: [unclosed\nfoo: bar\n', 'bad.yaml'), /malformed YAML/);
    assert.ok(e.location.line >= 2, `line ${e.location.line}`);
    assert.ok(e.location.column >= 1);
    assert.match(e.message, /^bad\.yaml:\d+:\d+: /);
  });

  it('rejects a path-traversal version name, a bad group, plural and kind', () => {
    const e = inputError(() => parseCrdText(crd({ version: '../../pwned' }), 'p.yaml'), /version name/);
    assert.equal(e.location.path, 'spec.versions[0].name');
    assert.equal(e.location.line, 12);
    inputError(() => parseCrdText(crd({ group: 'Example.COM/x' }), 'p.yaml'), /DNS-1123 subdomain/);
    inputError(() => parseCrdText(crd({ plural: '"../things"' }), 'p.yaml'), /plural/);
    inputError(() => parseCrdText(crd({ kind: '"Foo); x("' }), 'p.yaml'), /kind/);
    inputError(() => parseCrdText(crd({ kind: 'delete' }), 'p.yaml'), /reserved word/);
  });

  it('rejects unknown schema keys and non-numeric integer enums with the JSON path', () => {
    const schema = `          type: object
          properties:
            spec:
              type: object
              properties:
                code: { type: integer, enum: ["1); process.exit(1); //"] }
`;
    const e = inputError(() => parseCrdText(crd({ schema }), 's.yaml'), /must be an integer/);
    assert.equal(e.location.path, 'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.code.enum[0]');
    const unknown = `          type: object\n          properties:\n            spec: { type: object, $ref: '#/x' }\n`;
    const e2 = inputError(() => parseCrdText(crd({ schema: unknown }), 's.yaml'), /unknown schema keyword "\$ref"/);
    assert.equal(e2.location.line, 19);
  });

  it('requires exactly one storage version', () => {
    const text = crd().replace('      storage: true', '      storage: false');
    inputError(() => parseCrdText(text, 's.yaml'), /exactly one version must have storage: true, found 0/);
  });
});

describe('parseCrdPaths', () => {
  const tmp = join(repo, 'dist/tmp-parse-test');

  it('walks folders in sorted order, filters extensions and sorts the model', async () => {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(join(tmp, 'b'), { recursive: true });
    writeFileSync(join(tmp, 'b/z.yml'), crd({ kind: 'Zeta', plural: 'zetas' }));
    writeFileSync(join(tmp, 'a.yaml'), crd({ kind: 'Alpha', plural: 'alphas', group: 'b.example.com' }));
    writeFileSync(join(tmp, 'c.json'), JSON.stringify(parseYamlAsJson(crd({ kind: 'Gamma', plural: 'gammas', group: 'a.example.com' }))));
    writeFileSync(join(tmp, 'notes.txt'), 'not yaml: [');
    const model = await parseCrdPaths([tmp]);
    assert.deepEqual(model.resources.map((r) => `${r.group}/${r.names.kind}`), ['a.example.com/Gamma', 'b.example.com/Alpha', 'example.com/Zeta']);
  });

  it('rejects two CRDs for the same group and kind, naming both files', async () => {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'one.yaml'), crd());
    writeFileSync(join(tmp, 'two.yaml'), crd());
    await assert.rejects(parseCrdPaths([tmp]), (e: unknown) => e instanceof InputError && /two\.yaml/.test(e.message) && /one\.yaml/.test(e.message));
  });

  it('parses every CRD of the corpus (56 files)', async () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const f of readdirSync(d).sort()) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.ya?ml$/.test(p)) files.push(p);
      }
    };
    walk(join(fixtures, 'crds'));
    assert.equal(files.length, 56);
    for (const f of files) {
      const model = await parseCrdPaths([f]);
      assert.equal(model.resources.length, 1, f);
      assert.equal(model.resources[0]!.versions.filter((v) => v.storage).length, 1);
    }
  });

  it('reads the bad fixtures as errors', async () => {
    await assert.rejects(parseCrdPaths([join(fixtures, 'bad/path-traversal-version.yaml')]), /version name "\.\.\/\.\.\/pwned"/);
  });
});

/** Tiny YAML→JSON for test inputs, via the parser under test's own dependency. */
function parseYamlAsJson(text: string): unknown {
  const [r] = parseCrdText(text, 'x.yaml');
  assert.ok(r);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${r.names.plural}.${r.group}` },
    spec: {
      group: r.group,
      names: { kind: r.names.kind, plural: r.names.plural },
      scope: r.scope,
      versions: r.versions.map((v) => ({ name: v.name, served: v.served, storage: v.storage, schema: { openAPIV3Schema: v.schema } })),
    },
  };
}
