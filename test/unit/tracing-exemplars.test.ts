/**
 * Issue 41 item 6, trace exemplars on the reconcile-time histogram (metrics/exemplars.ts, metrics/openmetrics.ts):
 * the Accept negotiation; a reconcile under a sampled span leaves an exemplar naming its trace on its bucket of an
 * OpenMetrics scrape (content type, `# EOF`, counters' samples named as in the text format); text scrapes before and
 * after an OpenMetrics one are byte-identical; an unsampled reconcile leaves none; tracing off: text whatever the
 * Accept header; the rendering's names, types and escapes. (A real Prometheus ingesting the exposition: test/integration/tracing-exemplars.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Gauge, Registry, Summary } from 'prom-client';
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { Controller } from '@kubegen/runtime/internal/controller/controller.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { acceptsOpenMetrics, OPENMETRICS_CONTENT_TYPE, renderOpenMetrics } from '@kubegen/runtime/internal/metrics/openmetrics.js';
import { MetricsServer } from '@kubegen/runtime/internal/metrics/server/server.js';
import { disableTracing, enableTracing } from '@kubegen/runtime/internal/tracing/otel.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

/** What Prometheus 2.42 sends when it scrapes. */
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

describe('acceptsOpenMetrics', () => {
  it('is true when OpenMetrics is preferred to the text format', () => {
    assert.equal(acceptsOpenMetrics(PROMETHEUS_ACCEPT), true);
    assert.equal(acceptsOpenMetrics('application/openmetrics-text; version=1.0.0'), true);
    assert.equal(acceptsOpenMetrics(undefined), false);
    assert.equal(acceptsOpenMetrics('*/*'), false);
    assert.equal(acceptsOpenMetrics('text/plain;version=0.0.4'), false);
    assert.equal(acceptsOpenMetrics('text/plain, application/openmetrics-text;q=0.5'), false);
    assert.equal(acceptsOpenMetrics('application/openmetrics-text;q=0'), false);
  });
});

describe('renderOpenMetrics', () => {
  it('keeps every sample name of the text format: a counter not named _total is unknown; escapes; summaries', async () => {
    const registry = new Registry();
    new Counter({ name: 'jobs_total', help: 'Jobs.', registers: [registry] }).inc(2);
    new Counter({ name: 'legacy_count', help: 'A counter named without _total.', registers: [registry] }).inc();
    new Gauge({ name: 'temp', help: 'A "quoted" help\nover two lines \\ and a backslash.', labelNames: ['where'], registers: [registry] }).set({ where: 'a"b\nc' }, NaN);
    new Summary({ name: 'lat_seconds', help: 'S.', percentiles: [0.5], registers: [registry] }).observe(1);
    const om = await renderOpenMetrics(registry);
    assert.equal(
      om,
      [
        '# HELP jobs Jobs.', '# TYPE jobs counter', 'jobs_total 2',
        '# HELP legacy_count A counter named without _total.', '# TYPE legacy_count unknown', 'legacy_count 1',
        '# HELP temp A \\"quoted\\" help\\nover two lines \\\\ and a backslash.', '# TYPE temp gauge', 'temp{where="a\\"b\\nc"} NaN',
        '# HELP lat_seconds S.', '# TYPE lat_seconds summary', 'lat_seconds{quantile="0.5"} 1', 'lat_seconds_sum 1', 'lat_seconds_count 1',
        '# EOF', '',
      ].join('\n'),
    );
    const sampleNames = (body: string): string[] => body.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(/[{ ]/)[0]!);
    assert.deepEqual(sampleNames(om), sampleNames(await registry.metrics()));
  });
});

describe('reconcile-time exemplars', () => {
  const { exporter, provider } = inMemoryTracing();
  const unsampled = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });

  /** Runs one reconcile of `name` in a controller named `controller` on `registry`. */
  async function reconcileOnce(registry: Registry, controller: string, name: string): Promise<void> {
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const c = new Controller({ name: controller, reconciler: async () => void setImmediate(done), registry, logger: nullLogger, skipNameValidation: true });
    const running = c.start();
    c.sink.add({ namespace: 'ns', name });
    await finished;
    await new Promise((r) => setTimeout(r, 20)); // the histogram is observed once the reconcile's promise settled
    c.stop();
    await running;
  }

  async function scrape(addr: string, accept?: string): Promise<{ type: string; body: string }> {
    const res = await fetch(`http://${addr}/metrics`, accept ? { headers: { accept } } : {});
    assert.equal(res.status, 200);
    return { type: res.headers.get('content-type') ?? '', body: await res.text() };
  }

  /** `name{labels}` of every sample line. */
  const series = (body: string): string[] => body.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(' ')[0]!).sort();

  it('an OpenMetrics scrape shows the sampled reconcile on its bucket; text scrapes are unchanged', async () => {
    const registry = new Registry();
    const server = new MetricsServer({ bindAddress: '127.0.0.1:0', registry, logger: nullLogger, defaultMetrics: false });
    const addr = (await server.listen())!;
    try {
      assert.equal(await enableTracing({ tracerProvider: provider }), true);
      await reconcileOnce(registry, 'ex', 'a');
      const span = exporter.getFinishedSpans().find((s) => s.name === 'reconcile ex')!;
      assert.ok(span, 'the reconcile span');

      const textBefore = await scrape(addr);
      assert.match(textBefore.type, /^text\/plain; version=0\.0\.4/);
      assert.doesNotMatch(textBefore.body, /trace_id/);

      const om = await scrape(addr, PROMETHEUS_ACCEPT);
      assert.equal(om.type, OPENMETRICS_CONTENT_TYPE);
      assert.ok(om.body.endsWith('\n# EOF\n'), 'ends with # EOF');
      const withExemplar = om.body.split('\n').filter((l) => l.includes(' # {'));
      assert.equal(withExemplar.length, 1, om.body);
      const m = /^controller_runtime_reconcile_time_seconds_bucket\{le="([^"]+)",controller="ex"\} 1 # \{trace_id="([0-9a-f]{32})",span_id="([0-9a-f]{16})"\} ([0-9.e-]+) (\d+\.\d{3})$/.exec(withExemplar[0]!);
      assert.ok(m, withExemplar[0]);
      assert.deepEqual([m[2], m[3]], [span.spanContext().traceId, span.spanContext().spanId], "the exemplar names the reconcile's span");
      assert.ok(Number(m[4]) <= Number(m[1]), 'the exemplar lies in its bucket');
      assert.ok(Math.abs(Number(m[5]) - Date.now() / 1000) < 60, 'timestamped in seconds');
      // The counters: family without _total, samples named as in the text format.
      assert.match(om.body, /^# TYPE controller_runtime_reconcile counter$/m);
      assert.match(om.body, /^controller_runtime_reconcile_total\{controller="ex",result="success"\} 1$/m);
      assert.match(om.body, /^# TYPE controller_runtime_reconcile_time_seconds histogram$/m);
      assert.deepEqual(series(om.body), series(textBefore.body), 'the same series in both formats');

      const textAfter = await scrape(addr);
      assert.equal(textAfter.body, textBefore.body, 'a text scrape after an OpenMetrics one is byte-identical');

      // Unsampled: no exemplar; tracing off: text whatever the Accept header.
      const registry2 = new Registry();
      await enableTracing({ tracerProvider: unsampled });
      await reconcileOnce(registry2, 'ex2', 'b');
      const server2 = new MetricsServer({ bindAddress: '127.0.0.1:0', registry: registry2, logger: nullLogger, defaultMetrics: false });
      const addr2 = (await server2.listen())!;
      try {
        const om2 = await scrape(addr2, PROMETHEUS_ACCEPT);
        assert.equal(om2.type, OPENMETRICS_CONTENT_TYPE);
        assert.doesNotMatch(om2.body, /trace_id/, 'an unsampled reconcile is no exemplar');
        disableTracing();
        const off = await scrape(addr2, PROMETHEUS_ACCEPT);
        assert.match(off.type, /^text\/plain; version=0\.0\.4/);
        assert.doesNotMatch(off.body, /# EOF/);
      } finally {
        await server2.close();
      }
    } finally {
      disableTracing();
      await server.close();
    }
  });
});
