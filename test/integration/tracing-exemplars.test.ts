/**
 * Issue 41 item 6 against a real Prometheus (Debian's 2.42, hack/setup-prometheus.sh; `promtool check metrics` of
 * that version parses only the text format and rejects exemplars, so Prometheus's own OpenMetrics parser is the
 * oracle): with tracing on, a metrics server with the full registry (the process and Node collectors included) is
 * scraped by a Prometheus with exemplar storage, which negotiates OpenMetrics. The scrape is healthy (a parse error
 * would mark the target down), the reconcile-time histogram's exemplar names the sampled reconcile's trace, and the
 * counters are stored under the names the text format gives them. No apiserver: the controller is fed by hand.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { Controller } from '@kubegen/runtime/internal/controller/controller.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { MetricsServer } from '@kubegen/runtime/internal/metrics/server/server.js';
import { enableTracing } from '@kubegen/runtime/internal/tracing/otel.js';
import { startPrometheus, type PrometheusProcess } from './support/prometheus.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';
import { eventually } from '../support/wait.js';

describe('reconcile-time exemplars scraped by Prometheus (OpenMetrics)', () => {
  const { exporter, provider } = inMemoryTracing();
  const registry = new Registry();
  const server = new MetricsServer({ bindAddress: '127.0.0.1:0', registry, logger: nullLogger });
  let prom: PrometheusProcess | undefined;

  after(async () => {
    await prom?.stop();
    await server.close();
  });

  it('ingests the exposition with the exemplar of the sampled reconcile', async () => {
    assert.equal(await enableTracing({ tracerProvider: provider }), true);
    const addr = (await server.listen())!;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const c = new Controller({ name: 'exemplars', reconciler: async () => void setImmediate(done), registry, logger: nullLogger, skipNameValidation: true });
    const running = c.start();
    c.sink.add({ namespace: 'ns', name: 'a' });
    await finished;
    await new Promise((r) => setTimeout(r, 20));
    c.stop();
    await running;
    const span = exporter.getFinishedSpans().find((s) => s.name === 'reconcile exemplars')!;
    assert.ok(span, 'the reconcile span');

    prom = await startPrometheus(
      { global: { scrape_interval: '1s', scrape_timeout: '1s' }, scrape_configs: [{ job_name: 'manager', static_configs: [{ targets: [addr] }] }] },
      {},
      ['--enable-feature=exemplar-storage'],
    );
    const p = prom;
    const target = await eventually('Prometheus to scrape the manager', async () => {
      const [tg] = await p.targets();
      return tg?.health === 'up' ? tg : tg?.lastError ? assert.fail(`scrape failed: ${tg.lastError}`) : undefined;
    }, 30_000);
    assert.equal(target.lastError, '');
    const found = await eventually('the exemplar', async () => {
      const series = await p.exemplars('controller_runtime_reconcile_time_seconds_bucket{controller="exemplars"}', 300);
      return series.find((s) => s.exemplars.length > 0);
    }, 20_000);
    assert.deepEqual([found.exemplars[0]!.labels['trace_id'], found.exemplars[0]!.labels['span_id']], [span.spanContext().traceId, span.spanContext().spanId]);
    assert.ok(Number(found.exemplars[0]!.value) <= Number(found.seriesLabels['le']), 'in its bucket');

    const counter = await p.query('controller_runtime_reconcile_total{controller="exemplars",result="success"}');
    assert.deepEqual(counter.result.map((r) => r.value[1]), ['1'], 'the counter keeps its text-format name');
    assert.equal((await p.query('process_cpu_seconds_total')).result.length, 1, "the process collectors' counters too");
    assert.equal((await p.query('nodejs_heap_size_used_bytes')).result.length, 1, 'and gauges');
  });
});
