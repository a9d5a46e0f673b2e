/** MetricsServer on 127.0.0.1:0 and bind-address parsing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { parseBindAddress } from '@kubegen/runtime/internal/metrics/server/bind-address.js';
import { registerDefaultMetrics } from '@kubegen/runtime/internal/metrics/default-metrics.js';
import { MetricsServer } from '@kubegen/runtime/internal/metrics/server/server.js';

describe('parseBindAddress', () => {
  it('accepts controller-runtime style addresses and treats "0" and "" as disabled', () => {
    assert.deepEqual(parseBindAddress(':8080'), { host: undefined, port: 8080 });
    assert.deepEqual(parseBindAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseBindAddress('[::1]:9090'), { host: '::1', port: 9090 });
    assert.deepEqual(parseBindAddress('localhost:8081'), { host: 'localhost', port: 8081 });
    assert.equal(parseBindAddress('0'), undefined);
    assert.equal(parseBindAddress(''), undefined);
  });

  it('rejects malformed addresses', () => {
    assert.throws(() => parseBindAddress('8080'), /missing a port/);
    assert.throws(() => parseBindAddress(':99999'), /invalid port/);
    assert.throws(() => parseBindAddress('::1:80'), /brackets/);
    assert.throws(() => new MetricsServer({ bindAddress: 'nope', logger: nullLogger }), /missing a port/);
  });
});

describe('MetricsServer', () => {
  it('serves the registry in Prometheus text format on /metrics, with the process and Node collectors', async () => {
    const registry = new Registry();
    const c = new Counter({ name: 'controller_runtime_reconcile_total', help: 'h', labelNames: ['controller', 'result'], registers: [registry] });
    c.inc({ controller: 'foo', result: 'success' }, 3);
    const server = new MetricsServer({ bindAddress: '127.0.0.1:0', registry, logger: nullLogger });
    const addr = await server.listen();
    try {
      assert.match(addr!, /^127\.0\.0\.1:\d+$/);
      assert.notEqual(addr, '127.0.0.1:0');
      const res = await fetch(`http://${addr}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const body = await res.text();
      assert.match(body, /controller_runtime_reconcile_total\{controller="foo",result="success"\} 3/);
      assert.match(body, /process_cpu_seconds_total/);
      assert.match(body, /nodejs_heap_size_used_bytes/);
      assert.equal((await fetch(`http://${addr}/other`)).status, 404);
      assert.equal((await fetch(`http://${addr}/metrics`, { method: 'POST' })).status, 405);
    } finally {
      await server.close();
    }
    await assert.rejects(fetch(`http://${addr}/metrics`), 'closed servers refuse connections');
  });

  it('registers the default collectors once per registry', () => {
    const registry = new Registry();
    registerDefaultMetrics(registry);
    assert.doesNotThrow(() => registerDefaultMetrics(registry));
    assert.doesNotThrow(() => new MetricsServer({ bindAddress: '0', registry, logger: nullLogger }));
    assert.ok(registry.getSingleMetric('process_resident_memory_bytes'));
  });

  it('"0" disables it: listen resolves undefined and opens nothing', async () => {
    const server = new MetricsServer({ bindAddress: '0', registry: new Registry(), defaultMetrics: false, logger: nullLogger });
    assert.equal(await server.listen(), undefined);
    assert.equal(server.address, undefined);
    await server.close();
  });

  it('answers 500 when collecting fails, and keeps serving', async () => {
    const registry = new Registry();
    let broken = true;
    new Counter({
      name: 'flaky_total',
      help: 'h',
      registers: [registry],
      collect() {
        if (broken) throw new Error('collector exploded');
      },
    });
    const server = new MetricsServer({ bindAddress: '127.0.0.1:0', registry, defaultMetrics: false, logger: nullLogger });
    const addr = await server.listen();
    try {
      const bad = await fetch(`http://${addr}/metrics`);
      assert.equal(bad.status, 500);
      assert.match(await bad.text(), /collector exploded/);
      broken = false;
      assert.equal((await fetch(`http://${addr}/metrics`)).status, 200);
    } finally {
      await server.close();
    }
  });

  it('reports a busy port as a rejected listen', async () => {
    const a = new MetricsServer({ bindAddress: '127.0.0.1:0', registry: new Registry(), defaultMetrics: false, logger: nullLogger });
    const addr = await a.listen();
    try {
      const b = new MetricsServer({ bindAddress: addr!, registry: new Registry(), defaultMetrics: false, logger: nullLogger });
      await assert.rejects(b.listen(), /EADDRINUSE/);
    } finally {
      await a.close();
    }
  });
});
