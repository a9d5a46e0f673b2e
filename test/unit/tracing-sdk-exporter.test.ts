/**
 * Issue 41 item 7 (tracing's CPU): the `http/protobuf` trace exporter startTracing builds from the exporter package's
 * trace parts (tracing/sdk-exporter.ts) sends what the package's own `OTLPTraceExporter` sends — the same requests,
 * byte for byte — without loading `@opentelemetry/otlp-transformer`'s index or `@opentelemetry/sdk-metrics`; for an
 * exporter version it was not written against it builds nothing (the caller then uses the package's class).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { leanOtlpProtoTraceExporter } from '@kubegen/runtime/internal/tracing/sdk-exporter.js';
import { REPO_ROOT } from '../support/paths.js';

interface Received {
  method: string;
  url: string;
  headers: Record<string, unknown>;
  body: Buffer;
}

interface SpanExporterLike {
  export(spans: ReadableSpan[], done: (result: { code: number; error?: Error }) => void): void;
  shutdown(): Promise<void>;
}

describe('the lean http/protobuf trace exporter (tracing/sdk-exporter.ts)', () => {
  const received: Received[] = [];
  let server: http.Server;
  const saved = process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { host: _host, connection: _connection, ...headers } = req.headers;
        received.push({ method: req.method!, url: req.url!, headers, body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    if (saved === undefined) delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    else process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = saved;
    await new Promise((resolve) => server.close(resolve));
  });

  /** Spans with attributes, an event, a link, an error status and a parent. */
  function spans(): ReadableSpan[] {
    const memory = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer('t', '1.0');
    const parent = tracer.startSpan('reconcile c', { attributes: { 'k8s.object.name': 'a', 'kubegen.reconcile.attempt': 2, ok: true } });
    const child = tracer.startSpan('create deployments', { links: [{ context: parent.spanContext(), attributes: { 'k8s.event.type': 'create' } }] });
    child.addEvent('exception', { 'exception.message': 'boom' });
    child.setStatus({ code: 2, message: 'boom' });
    child.end();
    parent.end();
    return memory.getFinishedSpans() as ReadableSpan[];
  }

  async function exportWith(exporter: SpanExporterLike, batch: ReadableSpan[]): Promise<Received> {
    const n = received.length;
    const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(batch, resolve));
    await exporter.shutdown();
    assert.equal(result.code, 0, String(result.error));
    assert.equal(received.length, n + 1, 'one request');
    return received[n]!;
  }

  it("sends the same request as the package's OTLPTraceExporter, byte for byte", async () => {
    const lean = leanOtlpProtoTraceExporter() as SpanExporterLike | undefined;
    assert.ok(lean, 'built for the installed exporter version');
    const batch = spans();
    const ours = await exportWith(lean, batch);
    const theirs = await exportWith(new OTLPTraceExporter() as unknown as SpanExporterLike, batch);
    assert.equal(ours.method, 'POST');
    assert.equal(ours.url, '/v1/traces');
    assert.equal(ours.headers['content-type'], 'application/x-protobuf');
    assert.ok(ours.body.length > 100, 'spans in the body');
    assert.deepEqual({ ...ours, body: ours.body.toString('hex') }, { ...theirs, body: theirs.body.toString('hex') });
  });

  /** Runs `code` (an ES module; `req` a CommonJS require, `hook` registered first) in a child Node; its stdout's last line as JSON. */
  function child(hook: string, code: string): Record<string, unknown> {
    const prelude = `const { createRequire, registerHooks } = await import('node:module'); const req = createRequire(process.cwd() + '/'); ${hook}\n`;
    const out = execFileSync(process.execPath, ['--conditions=kubegen-internal', '--input-type=module', '-e', prelude + code], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
    return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
  }

  it("loads neither otlp-transformer's index nor sdk-metrics (the package's exporter loads both)", () => {
    const loaded = "Object.keys(req.cache).filter((f) => /sdk-metrics|otlp-transformer\\/build\\/src\\/index\\.js|api-logs/.test(f)).length";
    const r = child(
      '',
      `const { leanOtlpProtoTraceExporter } = await import('@kubegen/runtime/internal/tracing/sdk-exporter.js');
       const exporter = leanOtlpProtoTraceExporter();
       const lean = { built: typeof exporter?.export === 'function', loaded: ${loaded} };
       req('@opentelemetry/exporter-trace-otlp-proto');
       console.log(JSON.stringify({ ...lean, packageLoads: ${loaded} > 0 }));`,
    );
    assert.deepEqual(r, { built: true, loaded: 0, packageLoads: true });
  });

  it('another exporter version: nothing built', () => {
    const r = child(
      `registerHooks({ load(url, context, next) { const r = next(url, context); if (!url.endsWith('/exporter-trace-otlp-proto/package.json')) return r; return { ...r, source: JSON.stringify({ ...JSON.parse(String(r.source)), version: '0.300.0' }) }; } });`,
      `const { leanOtlpProtoTraceExporter } = await import('@kubegen/runtime/internal/tracing/sdk-exporter.js');
       console.log(JSON.stringify({ version: req('@opentelemetry/exporter-trace-otlp-proto/package.json').version, built: leanOtlpProtoTraceExporter() !== undefined }));`,
    );
    assert.deepEqual(r, { version: '0.300.0', built: false });
  });
});
