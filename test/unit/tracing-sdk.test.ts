/**
 * Issue 41 item 1, `@kubegen/runtime/tracing/sdk` (`startTracing`, what every example's and the scaffold's main.ts
 * calls): a no-op that loads nothing unless the OTEL_* variables ask; loud errors for an unsupported exporter or
 * protocol; an error naming the npm packages to install when the SDK cannot be loaded; started, the provider
 * registered globally and the runtime's tracing on. Neither `@kubegen/runtime` nor `@kubegen/runtime/tracing` resolves
 * the module (a resolve hook in a child process reports every module resolved; it reports the sdk module once it is
 * imported, so the check can fail).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { disableTracing, globalTracerProviderRegistered } from '@kubegen/runtime/internal/tracing/otel.js';
import { isTracingEnabled } from '@kubegen/runtime/internal/tracing/index.js';
import { startTracing, TRACING_SDK_PACKAGES } from '@kubegen/runtime/internal/tracing/sdk.js';
import { REPO_ROOT } from '../support/paths.js';

describe('startTracing (@kubegen/runtime/tracing/sdk)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-tracing-sdk-'));
  });
  after(() => {
    disableTracing();
    trace.disable();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `code` (an ES module) in a child Node from the repository root with `hook` registered; its stdout. */
  function child(hook: string, code: string): string {
    const hookFile = path.join(dir, `hook-${Math.random().toString(36).slice(2)}.mjs`);
    fs.writeFileSync(hookFile, `import { registerHooks } from 'node:module';\n${hook}\n`);
    return execFileSync(process.execPath, ['--import', pathToFileURL(hookFile).href, '--input-type=module', '-e', code], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  }

  it('the root and tracing entry points do not resolve it, nor any OpenTelemetry SDK module', () => {
    const out = child(
      "registerHooks({ resolve(s, c, next) { const r = next(s, c); process.stdout.write(`resolved ${r.url}\\n`); return r; } });",
      "await import('@kubegen/runtime'); await import('@kubegen/runtime/tracing'); console.log('--- sdk'); await import('@kubegen/runtime/tracing/sdk');",
    );
    const [before, afterSdk] = out.split('--- sdk\n') as [string, string];
    assert.match(before, /resolved .*\/packages\/runtime\/dist\/tracing\/index\.js/, 'the hook saw the tracing entry point');
    assert.doesNotMatch(before, /\/tracing\/sdk\.js/, 'the sdk module is not resolved by the root or tracing entry points');
    assert.doesNotMatch(before, /@opentelemetry\/(sdk-|resources|exporter-)/, 'no SDK module');
    assert.match(afterSdk, /resolved .*\/packages\/runtime\/dist\/tracing\/sdk\.js/, 'imported, the hook reports it');
    assert.doesNotMatch(afterSdk, /@opentelemetry\/(sdk-|resources|exporter-)/, 'importing it loads no SDK module yet');
  });

  it('without the variables (or disabled, or exporter none): a no-op, tracing stays off', async () => {
    for (const env of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:19001', OTEL_SDK_DISABLED: 'true' }, { OTEL_TRACES_EXPORTER: 'none' }]) {
      const stop = await startTracing(env);
      await stop();
      assert.equal(isTracingEnabled(), false, JSON.stringify(env));
      assert.equal(globalTracerProviderRegistered(), false, JSON.stringify(env));
    }
  });

  it('an unsupported exporter or protocol is an error', async () => {
    await assert.rejects(startTracing({ OTEL_TRACES_EXPORTER: 'zipkin' }), /OTEL_TRACES_EXPORTER=zipkin: expected otlp, console or none/);
    await assert.rejects(startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:19001', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }), /OTEL_EXPORTER_OTLP_PROTOCOL=thrift: expected http\/protobuf, http\/json or grpc/);
    assert.equal(isTracingEnabled(), false);
  });

  it('the SDK not installed: an error naming the packages to install', () => {
    const out = child(
      "registerHooks({ resolve(s, c, next) { if (s === '@opentelemetry/sdk-trace-node') throw Object.assign(new Error(`Cannot find package '${s}'`), { code: 'ERR_MODULE_NOT_FOUND' }); return next(s, c); } });",
      "const { startTracing } = await import('@kubegen/runtime/tracing/sdk'); try { await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:19001' }); console.log('started'); } catch (err) { console.log(err.message); }",
    );
    assert.match(out, /^traces are asked for \(OTEL_\* variables\), but @opentelemetry\/sdk-trace-node cannot be loaded: npm install (\S+ ?)+/);
    assert.ok(out.includes(`npm install ${TRACING_SDK_PACKAGES.join(' ')} (Cannot find package`), out);
    assert.deepEqual(TRACING_SDK_PACKAGES, ['@opentelemetry/api', '@opentelemetry/sdk-trace-node', '@opentelemetry/resources', '@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/exporter-trace-otlp-http']);
  });

  it('asked for: the SDK provider registered globally, the runtime tracing', async () => {
    const stop = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:19001', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    try {
      assert.equal(globalTracerProviderRegistered(), true);
      assert.equal(isTracingEnabled(), true);
      const span = trace.getTracer('t').startSpan('s');
      assert.equal(span.isRecording(), true, 'a real (SDK) span, not the api no-op'); // not ended: nothing to export
      // The resource's attributes (the host id is read asynchronously) settled before startTracing resolved.
      const { resource } = span as unknown as { resource: { asyncAttributesPending: boolean; attributes: Record<string, unknown> } };
      assert.equal(resource.asyncAttributesPending, false);
      assert.equal(typeof resource.attributes['host.name'], 'string');
    } finally {
      await stop();
    }
  });
});
