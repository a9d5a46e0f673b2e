import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { main, type MainIO } from 'kubegen/internal/cli/main.js';
import { BUNDLE_MARKER, bundleForImage, runtimeOptionalPeers } from 'kubegen/internal/bundle/bundle.js';
import { bundleInstalledPeers } from 'kubegen/internal/bundle/optional-peers.js';
import { rewriteRequireCalls } from 'kubegen/internal/bundle/require-calls.js';
import { HEADER, LAZY_LOADER } from 'kubegen/internal/generate/emit-util.js';
import { InputErrors, InputError } from 'kubegen/internal/model/errors.js';
import { OtlpReceiver } from '../integration/support/otlp-receiver.js';
import { REPO_ROOT } from '../support/paths.js';
import { treeSnapshot } from '../support/tree.js';

/**
 * A compiled controller's entry: the runtime's index, a lazily loaded built-in group/version, and its metrics registry
 * (prom-client, which the runtime loads from node_modules with a `require` of its own); tracing, which loads the
 * OpenTelemetry api (bundled: the project has it installed).
 */
const MAIN = `import { KubeClientset, metricsRegistry } from '@kubegen/runtime';
import { enableTracing } from '@kubegen/runtime/tracing';
if (process.env.TRACE) await enableTracing();
const cs = new KubeClientset({ request: async () => ({}) });
console.log(JSON.stringify({ deployments: typeof cs.appsV1.deployments, pods: typeof cs.coreV1.pods, metrics: metricsRegistry.contentType }));
`;

const execFileAsync = promisify(execFile);

function capture(cwd: string) {
  let err = '';
  const io: MainIO = { cwd, env: {}, stdout: () => undefined, stderr: { write: (s: string) => void (err += s), isTTY: false, columns: 80 }, now: () => 0 };
  return { io, err: () => err };
}

describe('kubegen bundle', () => {
  let project: string;
  before(() => {
    // A project folder whose packages resolve from the repository's node_modules, as an installed project's would.
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-bundle-'));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(project, 'node_modules'));
    fs.writeFileSync(path.join(project, 'package.json'), '{"type":"module"}\n');
    fs.mkdirSync(path.join(project, 'dist/src'), { recursive: true });
    fs.writeFileSync(path.join(project, 'dist/src/main.js'), MAIN);
  });
  after(() => fs.rmSync(project, { recursive: true, force: true }));

  it('bundles the entry and the runtime into dist/image/main.js, which runs and loads a built-in group/version lazily', async () => {
    const c = capture(project);
    assert.equal(await main(['bundle'], c.io), 0, c.err());
    assert.match(c.err(), /^bundled dist\/src\/main\.js into dist\/image\/main\.js \(\d+ files, \d+ kB of JavaScript\)\n$/);
    const image = path.join(project, 'dist/image');
    const files = fs.readdirSync(image);
    assert.ok(files.includes(BUNDLE_MARKER) && files.includes('main.js.map'), files.join(' '));
    // The folder has the umask's permissions, as mkdir gives them (the image's non-root user reads it).
    fs.mkdirSync(path.join(project, 'dist/plain'));
    assert.equal(fs.statSync(image).mode & 0o777, fs.statSync(path.join(project, 'dist/plain')).mode & 0o777);
    fs.rmdirSync(path.join(project, 'dist/plain'));
    const bundled = fs.readFileSync(path.join(image, 'main.js'), 'utf8');
    assert.ok(bundled.startsWith(`${HEADER}\n`));
    // The runtime's modules are in the bundle, and prom-client's classes: nothing of them is loaded from node_modules.
    assert.doesNotMatch(bundled, /from ["']@kubegen\/runtime/);
    assert.doesNotMatch(bundled, /require\(["']prom-client/);
    assert.match(bundled, /node_modules\/prom-client\/lib\/registry\.js/);
    assert.ok(!bundled.includes(LAZY_LOADER), 'the lazy loader is rewritten');
    const ran = JSON.parse(execFileSync(process.execPath, [path.join(image, 'main.js')], { cwd: project, encoding: 'utf8' })) as Record<string, unknown>;
    assert.deepEqual(ran, { deployments: 'function', pods: 'function', metrics: 'text/plain; version=0.0.4; charset=utf-8' });
    // The compiled files' own source maps are followed: the map names the runtime's TypeScript.
    const map = JSON.parse(fs.readFileSync(path.join(image, 'main.js.map'), 'utf8')) as { sources: string[] };
    assert.ok(map.sources.some((s) => s.endsWith('packages/runtime/src/api/clientset.ts')), map.sources.slice(0, 5).join(' '));
  });

  it("bundles the runtime's optional peers the project has installed: the tracing SDK exports from the bundle", async () => {
    const peers = runtimeOptionalPeers(project);
    assert.ok(peers.includes('@opentelemetry/api') && peers.includes('undici') && peers.includes('@peculiar/x509'), peers.join(' '));
    // A controller's main.ts as the scaffold writes it with --tracing: the SDK started first, a span of its own.
    fs.writeFileSync(path.join(project, 'dist/src/traced.js'), `import { startTracing } from '@kubegen/runtime/tracing/sdk';
import { trace } from '@opentelemetry/api';
const stop = await startTracing();
trace.getTracer('bundle-test').startSpan('from the bundle').end();
await stop();
`);
    const res = await bundleForImage({ cwd: project, entry: 'dist/src/traced.js', out: 'dist/traced-image', external: ['left-pad'] });
    try {
      assert.deepEqual(res.external, ['left-pad'], 'every optional peer is installed here: none is left to node_modules');
      const js = Object.entries(treeSnapshot(res.out)).filter(([f]) => f.endsWith('.js')).map(([, text]) => text).join('\n');
      assert.doesNotMatch(js, /import\("@opentelemetry\//, 'no OpenTelemetry package is loaded by name');
      assert.match(js, /node_modules\/@opentelemetry\/sdk-trace-base\//);
      assert.match(js, /node_modules\/@opentelemetry\/exporter-trace-otlp-proto\//);
      const receiver = await OtlpReceiver.start();
      try {
        for (const protocol of ['http/protobuf', 'http/json']) {
          const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_SERVICE_NAME: 'bundled' };
          await execFileAsync(process.execPath, [path.join(project, res.main)], { cwd: project, env });
        }
        assert.deepEqual(receiver.spans.map((sp) => [sp.name, sp.encoding, sp.resource['service.name']]), [['from the bundle', 'protobuf', 'bundled'], ['from the bundle', 'json', 'bundled']]);
      } finally {
        await receiver.close();
      }
    } finally {
      fs.rmSync(res.out, { recursive: true, force: true });
    }
  });

  it('leaves an optional peer the project has not installed to node_modules: the bundle builds, the import fails when run', async () => {
    fs.writeFileSync(path.join(project, 'dist/src/absent.js'), `const api = await import('@opentelemetry/api');
const absent = await import('kubegen-absent-peer/sub').then(() => 'loaded', (err) => err.code);
console.log(JSON.stringify({ api: typeof api.trace.getTracer, absent }));
`);
    const left = new Set<string>();
    const { build } = await import('esbuild');
    const out = path.join(project, 'dist/absent-out');
    await build({ absWorkingDir: project, entryPoints: [path.join(project, 'dist/src/absent.js')], outdir: out, bundle: true, format: 'esm', platform: 'node', logLevel: 'silent',
      plugins: [bundleInstalledPeers(['@opentelemetry/api', 'kubegen-absent-peer'], left)] });
    try {
      assert.deepEqual([...left], ['kubegen-absent-peer']);
      const text = fs.readFileSync(path.join(out, 'absent.js'), 'utf8');
      assert.match(text, /import\("kubegen-absent-peer\/sub"\)/);
      assert.ok(text.includes('ProxyTracerProvider'), 'the installed peer is bundled');
      const ran = JSON.parse(execFileSync(process.execPath, [path.join(out, 'absent.js')], { cwd: project, encoding: 'utf8' })) as unknown;
      assert.deepEqual(ran, { api: 'function', absent: 'ERR_MODULE_NOT_FOUND' });
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it("gives a dynamically imported CommonJS package Node's namespace (named exports and default): certificates, undici, the SDK", async () => {
    fs.writeFileSync(path.join(project, 'dist/src/namespaces.js'), `import { generateServingCertificate } from '@kubegen/runtime/webhook';
await import('reflect-metadata');
const keys = {};
for (const [name, load] of [['x509', () => import('@peculiar/x509')], ['undici', () => import('undici')], ['sdk', () => import('@opentelemetry/sdk-trace-node')], ['prom', () => import('prom-client')]]) {
  const ns = await load();
  keys[name] = Object.keys(ns).sort();
  keys[name + '.default'] = ns.default === undefined ? 'none' : Object.keys(ns.default).length > 0 ? 'module.exports' : 'empty';
}
const cert = await generateServingCertificate({ hosts: ['localhost'] });
console.log(JSON.stringify({ keys, cert: cert.cert.startsWith('-----BEGIN CERTIFICATE-----') }));
`);
    const res = await bundleForImage({ cwd: project, entry: 'dist/src/namespaces.js', out: 'dist/namespaces-image' });
    try {
      const run = (file: string): { keys: Record<string, string[] | string>; cert: boolean } => JSON.parse(execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8' }));
      const fromNode = run(path.join(project, 'dist/src/namespaces.js'));
      const bundled = run(path.join(project, res.main));
      assert.deepEqual(bundled, fromNode);
      assert.equal(bundled.cert, true, 'the runtime makes a certificate with the bundled @peculiar/x509');
      assert.ok((bundled.keys['x509'] as string[]).includes('cryptoProvider') && (bundled.keys['undici'] as string[]).includes('Pool'), JSON.stringify(bundled.keys).slice(0, 300));
      assert.equal(bundled.keys['x509.default'], 'module.exports');
    } finally {
      fs.rmSync(res.out, { recursive: true, force: true });
    }
  });

  it("bundles the validation layer with CEL, which runs from the bundle as from tsc's modules", async () => {
    // A CRD with a CEL rule: the layer loads @bufbuild/cel (dynamically) and re2js (through its createRequire loader).
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: {
          type: 'object', 'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }],
          properties: { min: { type: 'integer' }, max: { type: 'integer' }, name: { type: 'string', pattern: '^[a-z]+$' } } } } } } }],
      },
    };
    fs.writeFileSync(path.join(project, 'dist/src/validate.js'), `import { createValidator } from '@kubegen/runtime/validation';
const v = await createValidator(${JSON.stringify(crd)});
const check = (spec) => v.validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'd' }, spec }).errors.map((e) => e.path + ': ' + e.detail);
console.log(JSON.stringify([check({ min: 1, max: 2, name: 'ok' }), check({ min: 3, max: 2, name: 'Not ok' })]));
`);
    const res = await bundleForImage({ cwd: project, entry: 'dist/src/validate.js', out: 'dist/validate-image' });
    const run = (file: string): unknown => JSON.parse(execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8' }));
    const bundled = run(path.join(project, res.main));
    assert.deepEqual(bundled, run(path.join(project, 'dist/src/validate.js')));
    assert.deepEqual((bundled as string[][])[0], []);
    assert.deepEqual((bundled as string[][])[1]!.length, 2, JSON.stringify(bundled));
    fs.rmSync(res.out, { recursive: true });
  });

  it('the same input gives the same bytes', async () => {
    const first = treeSnapshot((await bundleForImage({ cwd: project })).out);
    const second = treeSnapshot((await bundleForImage({ cwd: project })).out);
    assert.deepEqual(second, first);
  });

  it('refuses an entry with a syntax error, naming file:line:column, and leaves the last bundle as it was', async () => {
    await bundleForImage({ cwd: project });
    const before = treeSnapshot(path.join(project, 'dist/image'));
    fs.writeFileSync(path.join(project, 'dist/src/broken.js'), 'export const a = 1;\nexport const b = ;\n');
    const c = capture(project);
    assert.equal(await main(['bundle', 'dist/src/broken.js'], c.io), 1);
    assert.match(c.err(), /^error: dist\/src\/broken\.js:2:18: Unexpected ";"\n$/);
    await assert.rejects(bundleForImage({ cwd: project, entry: 'dist/src/broken.js' }), (err: unknown) => err instanceof InputErrors || err instanceof InputError);
    assert.deepEqual(treeSnapshot(path.join(project, 'dist/image')), before);
    assert.deepEqual(fs.readdirSync(path.join(project, 'dist')).sort(), ['image', 'src'], 'no temp folder left');
  });

  it('refuses a missing entry and an output folder it did not write, writing nothing', async () => {
    const c = capture(project);
    assert.equal(await main(['bundle', 'dist/src/nope.js', '--out', 'dist/other'], c.io), 1);
    assert.match(c.err(), /^error: dist\/src\/nope\.js: no such file/);
    assert.ok(!fs.existsSync(path.join(project, 'dist/other')));
    fs.mkdirSync(path.join(project, 'dist/mine'));
    fs.writeFileSync(path.join(project, 'dist/mine/notes.txt'), 'mine');
    const d = capture(project);
    assert.equal(await main(['bundle', '--out', 'dist/mine'], d.io), 1);
    assert.match(d.err(), /not a folder kubegen bundle wrote \(no \.kubegen-bundle; it holds notes\.txt\); nothing was written/);
    assert.deepEqual(fs.readdirSync(path.join(project, 'dist/mine')), ['notes.txt']);
  });
});

describe('rewriteRequireCalls', () => {
  const LAZY = `import { createRequire } from "node:module";\n${LAZY_LOADER}\nexport const a = () => load("./apps/v1/client.js");\n`;

  it("makes a lazy loader's calls requires the bundler follows", () => {
    assert.equal(rewriteRequireCalls(LAZY, 'clientset.js'), `import { createRequire } from "node:module";\n${LAZY_LOADER}\nexport const a = () => require("./apps/v1/client.js");\n`);
  });

  it("follows a loader named require and an inline one, and leaves built-ins, variables and resolve to the loader", () => {
    const prom = `const require = createRequire(import.meta.url);\nexport const R = require('prom-client/lib/registry');\nconst y = () => createRequire(import.meta.url)('js-yaml');\nconst h = createRequire(import.meta.url)('node:http');\n`;
    assert.equal(
      rewriteRequireCalls(prom, 'prom.js'),
      `const requireHere_ = createRequire(import.meta.url);\nexport const R = require("prom-client/lib/registry");\nconst y = () => require("js-yaml");\nconst h = createRequire(import.meta.url)('node:http');\n`,
    );
    const optional = `const requireHere = createRequire(import.meta.url);\nrequireHere.resolve(p.probe);\nrequireHere(name);\nmy_requireHere('x');\nrequireHere('re2js');\n`;
    assert.equal(rewriteRequireCalls(optional, 'optional.js'), `const requireHere = createRequire(import.meta.url);\nrequireHere.resolve(p.probe);\nrequireHere(name);\nmy_requireHere('x');\nrequire("re2js");\n`);
  });

  it('leaves a module without a loader alone, and refuses a lazy loader call it cannot follow', () => {
    assert.equal(rewriteRequireCalls('const x = load("./a.js");\n', 'other.js'), undefined);
    assert.throws(() => rewriteRequireCalls(`${LAZY_LOADER}\nload(name);\n`, 'clientset.js'), /clientset\.js: a call of its lazy loader that is not load\("\.\/…"\)/);
  });
});
