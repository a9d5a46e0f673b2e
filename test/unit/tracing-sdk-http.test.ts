/**
 * Issue 41 item 7 (tracing's CPU): the OTLP/HTTP exporters' `import('http')` does not load Node's undici once
 * `startTracing` (or `routeExporterHttpImport`) installed sdk-http.ts's resolve hook. Each case runs in a child Node
 * (`process.moduleLoadList` names every built-in loaded); the first shows that the exporter's import does load undici
 * without the hook, so the others can fail.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../support/paths.js';

describe('the OTLP/HTTP exporter without undici (tracing/sdk-http.ts)', () => {
  let dir: string;
  let probe: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-sdk-http-'));
    // A file of a package named like the exporter's base, importing http the way it does.
    const pkg = path.join(dir, 'node_modules/@opentelemetry/otlp-exporter-base');
    fs.mkdirSync(pkg, { recursive: true });
    probe = path.join(pkg, 'probe.cjs');
    fs.writeFileSync(probe, "module.exports = () => import('http');\n");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs `code` (an ES module, `req` a CommonJS require) in a child Node from the repository root; its last stdout line as JSON. */
  function child(code: string, env: Record<string, string> = {}): Record<string, unknown> {
    const prelude = "const { createRequire } = await import('node:module'); const req = createRequire(process.cwd() + '/');\n";
    const out = execFileSync(process.execPath, ['--conditions=kubegen-internal', '--input-type=module', '-e', prelude + code], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
    return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
  }
  const undiciLoaded = 'process.moduleLoadList.some((m) => m.includes("undici"))';

  it("without the hook, the exporter's import('http') loads undici (what the hook avoids)", () => {
    const r = child(`const ns = await req(${JSON.stringify(probe)})(); console.log(JSON.stringify({ request: typeof ns.request, undici: ${undiciLoaded} }));`);
    assert.deepEqual(r, { request: 'function', undici: true });
  });

  it("with it, the exporter's import('http') is node:http's request and Agent, and loads no undici; others import node:http itself", () => {
    const r = child(
      `const { routeExporterHttpImport } = await import('@kubegen/runtime/internal/tracing/sdk-http.js');
       const installed = routeExporterHttpImport();
       const ns = await req(${JSON.stringify(probe)})();
       const http = req('node:http');
       const result = { installed, again: routeExporterHttpImport(), same: ns.request === http.request && ns.Agent === http.Agent, keys: Object.keys(ns).sort(), undici: ${undiciLoaded} };
       const own = await import('node:http');
       console.log(JSON.stringify({ ...result, othersGetNodeHttp: typeof own.createServer === 'function' && own.request === http.request }));`,
    );
    assert.deepEqual(r, { installed: true, again: true, same: true, keys: ['Agent', 'request'], undici: false, othersGetNodeHttp: true });
  });

  it('without exporter-http.js beside it (the runtime bundled into one file): no hook, the exporter imports node:http itself', () => {
    const alone = path.join(dir, 'alone');
    fs.mkdirSync(alone, { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, 'packages/runtime/dist/tracing/sdk-http.js'), path.join(alone, 'sdk-http.mjs'));
    const r = child(
      `const { routeExporterHttpImport } = await import(${JSON.stringify(pathToFileURL(path.join(alone, 'sdk-http.mjs')).href)});
       const installed = routeExporterHttpImport();
       const ns = await req(${JSON.stringify(probe)})();
       console.log(JSON.stringify({ installed, createServer: typeof ns.createServer }));`,
    );
    assert.deepEqual(r, { installed: false, createServer: 'function' });
  });

  for (const protocol of ['http/protobuf', 'http/json']) {
    it(`startTracing (${protocol}): a span reaches an OTLP receiver, and undici was never loaded`, () => {
      const r = child(
        `const http = req('node:http');
         const got = [];
         const server = http.createServer((rq, rs) => { let n = 0; rq.on('data', (d) => (n += d.length)); rq.on('end', () => { got.push({ path: rq.url, type: rq.headers['content-type'], bytes: n > 0 }); rs.writeHead(200); rs.end(); }); });
         await new Promise((r) => server.listen(0, '127.0.0.1', r));
         process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:' + server.address().port;
         const { startTracing } = await import('@kubegen/runtime/tracing/sdk');
         const stop = await startTracing();
         const { trace } = await import('@opentelemetry/api');
         trace.getTracer('t').startSpan('s').end();
         await stop();
         server.close();
         console.log(JSON.stringify({ got, undici: ${undiciLoaded} }));`,
        { OTEL_EXPORTER_OTLP_PROTOCOL: protocol },
      );
      const type = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
      assert.deepEqual(r, { got: [{ path: '/v1/traces', type, bytes: true }], undici: false });
    });
  }
});
